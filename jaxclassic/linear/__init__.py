"""Linear models: regression (OLS, ridge, lasso, Bayesian, SGD), classification (logistic,
softmax, one-vs-rest / one-vs-one, perceptron), their inference, features and subset selection."""

from jaxclassic.linear._api import decision_function
from jaxclassic.linear._api import predict
from jaxclassic.linear._api import predict_dist
from jaxclassic.linear._api import predict_proba
# each model module adds its public names below, one import a line
from jaxclassic.linear._params import LinearParams
from jaxclassic.linear.inference import InferenceResult
from jaxclassic.linear.ols import fit_ols
from jaxclassic.linear.ols import ols_inference
from jaxclassic.linear.ridge import fit_ridge
from jaxclassic.linear.ridge import ridge_path
from jaxclassic.linear.bayesian import BayesianRidgeParams
from jaxclassic.linear.bayesian import PredictiveDistribution
from jaxclassic.linear.bayesian import fit_bayesian_ridge
from jaxclassic.linear.sgd import SGDRegressorParams
from jaxclassic.linear.sgd import fit_sgd_regressor
from jaxclassic.linear.sgd import partial_fit_sgd_regressor
from jaxclassic.linear.sgd import SGDRegressorState
from jaxclassic.linear.sgd_classifier import SGDClassifierParams
from jaxclassic.linear.sgd_classifier import fit_sgd_classifier
from jaxclassic.linear.sgd_classifier import partial_fit_sgd_classifier
from jaxclassic.linear.features import Standardized
from jaxclassic.linear.features import polynomial_features
from jaxclassic.linear.features import standardize
from jaxclassic.linear.lasso import LassoParams
from jaxclassic.linear.lasso import LassoPath
from jaxclassic.linear.lasso import fit_lasso
from jaxclassic.linear.lasso import lasso_path
from jaxclassic.linear.elastic_net import ElasticNetParams
from jaxclassic.linear.elastic_net import fit_elastic_net
from jaxclassic.linear.selection import StepwisePath
from jaxclassic.linear.selection import SubsetSelection
from jaxclassic.linear.selection import aic
from jaxclassic.linear.selection import backward_stepwise
from jaxclassic.linear.selection import best_subset
from jaxclassic.linear.selection import bic
from jaxclassic.linear.stagewise import StagewisePath
from jaxclassic.linear.stagewise import forward_stagewise
from jaxclassic.linear.selection import forward_stepwise
from jaxclassic.linear.selection import mallows_cp
from jaxclassic.linear.logistic import LogisticParams
from jaxclassic.linear.logistic import fit_logistic
from jaxclassic.linear.logistic import logistic_inference
from jaxclassic.linear.softmax import SoftmaxParams
from jaxclassic.linear.softmax import fit_softmax
from jaxclassic.linear.multiclass import OneVsOneParams
from jaxclassic.linear.multiclass import OneVsRestParams
from jaxclassic.linear.multiclass import fit_one_vs_one
from jaxclassic.linear.multiclass import fit_one_vs_rest
from jaxclassic.linear.perceptron import KernelPerceptronParams
from jaxclassic.linear.perceptron import PerceptronParams
from jaxclassic.linear.perceptron import fit_perceptron

__all__ = [
    "decision_function",
    "predict",
    "predict_dist",
    "predict_proba",
    "LinearParams",
    "InferenceResult",
    "fit_ols",
    "ols_inference",
    "fit_ridge",
    "ridge_path",
    "BayesianRidgeParams",
    "PredictiveDistribution",
    "fit_bayesian_ridge",
    "SGDRegressorParams",
    "fit_sgd_regressor",
    "partial_fit_sgd_regressor",
    "SGDRegressorState",
    "SGDClassifierParams",
    "fit_sgd_classifier",
    "partial_fit_sgd_classifier",
    "Standardized",
    "polynomial_features",
    "standardize",
    "LassoParams",
    "LassoPath",
    "fit_lasso",
    "lasso_path",
    "ElasticNetParams",
    "fit_elastic_net",
    "StepwisePath",
    "SubsetSelection",
    "aic",
    "backward_stepwise",
    "best_subset",
    "bic",
    "StagewisePath",
    "forward_stagewise",
    "forward_stepwise",
    "mallows_cp",
    "LogisticParams",
    "fit_logistic",
    "logistic_inference",
    "SoftmaxParams",
    "fit_softmax",
    "OneVsOneParams",
    "OneVsRestParams",
    "fit_one_vs_one",
    "fit_one_vs_rest",
    "KernelPerceptronParams",
    "PerceptronParams",
    "fit_perceptron",
]
