"""Support vector machines: linear (primal / dual coordinate descent) and kernel (SMO)."""

from jaxclassic.svm._api import decision_function
from jaxclassic.svm._api import predict
from jaxclassic.svm._api import predict_proba
from jaxclassic.svm._api import support_vectors
# each model module adds its public names below, one import a line
from jaxclassic.svm.linear import LinearSVMParams
from jaxclassic.svm.linear import fit_linear_svm
from jaxclassic.svm.platt import platt_scale
from jaxclassic.svm.kernel import KernelSVMParams
from jaxclassic.svm.kernel import fit_kernel_svm
from jaxclassic.svm.svr import KernelSVRParams
from jaxclassic.svm.svr import fit_kernel_svr

__all__ = [
    "decision_function",
    "predict",
    "predict_proba",
    "support_vectors",
    "LinearSVMParams",
    "fit_linear_svm",
    "platt_scale",
    "KernelSVMParams",
    "fit_kernel_svm",
    "KernelSVRParams",
    "fit_kernel_svr",
]
