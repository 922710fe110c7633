"""Nearest neighbours and kernel density estimation: exact tiled k-NN search, k-NN
classification / regression (and k by cross-validation), kernel density estimates."""

from jaxclassic.neighbors._api import predict
from jaxclassic.neighbors._api import predict_proba
from jaxclassic.neighbors.search import kneighbors
from jaxclassic.neighbors.knn import KNNClassifierParams
from jaxclassic.neighbors.knn import KNNConfig
from jaxclassic.neighbors.knn import KNNCVResult
from jaxclassic.neighbors.knn import KNNParams
from jaxclassic.neighbors.knn import KNNRegressorParams
from jaxclassic.neighbors.knn import fit_knn
from jaxclassic.neighbors.knn import knn_cv_scores
from jaxclassic.neighbors.kde import KDEBandwidthCV
from jaxclassic.neighbors.kde import KDEConfig
from jaxclassic.neighbors.kde import KDEParams
from jaxclassic.neighbors.kde import fit_kde
from jaxclassic.neighbors.kde import kde_bandwidth_cv
from jaxclassic.neighbors.kde import log_kernel_norm
from jaxclassic.neighbors.kde import sample
from jaxclassic.neighbors.kde import score_samples

__all__ = [
    "predict",
    "predict_proba",
    "kneighbors",
    "KNNClassifierParams",
    "KNNConfig",
    "KNNCVResult",
    "KNNParams",
    "KNNRegressorParams",
    "fit_knn",
    "knn_cv_scores",
    "KDEBandwidthCV",
    "KDEConfig",
    "KDEParams",
    "fit_kde",
    "kde_bandwidth_cv",
    "log_kernel_norm",
    "sample",
    "score_samples",
]
