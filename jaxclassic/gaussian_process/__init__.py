"""Gaussian process regression: the posterior by Cholesky, the marginal likelihood, its optimisation."""

from jaxclassic.gaussian_process._api import predict
from jaxclassic.gaussian_process.covariance import GPKernel
from jaxclassic.gaussian_process.covariance import GP_KERNELS
from jaxclassic.gaussian_process.regression import GPParams
from jaxclassic.gaussian_process.regression import Matern12Params
from jaxclassic.gaussian_process.regression import Matern32Params
from jaxclassic.gaussian_process.regression import Matern52Params
from jaxclassic.gaussian_process.regression import RBFParams
from jaxclassic.gaussian_process.regression import NumericalJitterWarning
from jaxclassic.gaussian_process.regression import fit_gp
from jaxclassic.gaussian_process.regression import log_marginal_likelihood
from jaxclassic.gaussian_process.optimize import GPOptimization
from jaxclassic.gaussian_process.optimize import optimize_hyperparameters

__all__ = [
    "predict",
    "GPKernel",
    "GP_KERNELS",
    "GPParams",
    "Matern12Params",
    "Matern32Params",
    "Matern52Params",
    "RBFParams",
    "NumericalJitterWarning",
    "fit_gp",
    "log_marginal_likelihood",
    "GPOptimization",
    "optimize_hyperparameters",
]
