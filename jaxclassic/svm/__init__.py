"""Support vector machines: linear (primal / dual coordinate descent) and kernel (SMO)."""

from jaxclassic.svm._api import decision_function
from jaxclassic.svm._api import predict
from jaxclassic.svm._api import predict_proba
from jaxclassic.svm._api import support_vectors
# each model module adds its public names below, one import a line
