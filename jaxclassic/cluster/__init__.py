"""Clustering: k-means / k-means++, hierarchical (agglomerative) clustering, Gaussian mixtures
by EM. Each model module adds its public names below, one import a line."""

from jaxclassic.cluster._api import predict
from jaxclassic.cluster._api import predict_proba
from jaxclassic.cluster._api import score_samples
from jaxclassic.cluster.hierarchical import AgglomerativeParams
from jaxclassic.cluster.hierarchical import agglomerative  # deprecated: fit_agglomerative
from jaxclassic.cluster.hierarchical import cut_tree
from jaxclassic.cluster.hierarchical import fit_agglomerative
from jaxclassic.cluster.hierarchical import maxdists
from jaxclassic.cluster.kmeans import KMeansElbow
from jaxclassic.cluster.kmeans import KMeansParams
from jaxclassic.cluster.kmeans import fit_kmeans
from jaxclassic.cluster.kmeans import kmeans_elbow
from jaxclassic.cluster.kmeans import kmeans_plusplus
from jaxclassic.cluster.minibatch_kmeans import MiniBatchKMeansParams
from jaxclassic.cluster.minibatch_kmeans import fit_minibatch_kmeans
from jaxclassic.cluster.minibatch_kmeans import minibatch_kmeans_step
from jaxclassic.cluster.gmm import DiagGMMParams
from jaxclassic.cluster.gmm import FullGMMParams
from jaxclassic.cluster.gmm import GMMParams
from jaxclassic.cluster.gmm import SphericalGMMParams
from jaxclassic.cluster.gmm import TiedGMMParams
from jaxclassic.cluster.gmm import fit_gmm
from jaxclassic.cluster.gmm import bic
from jaxclassic.cluster.gmm import aic
from jaxclassic.cluster.gmm import sample

__all__ = [
    "predict",
    "predict_proba",
    "score_samples",
    "AgglomerativeParams",
    "fit_agglomerative",
    "cut_tree",
    "maxdists",
    "KMeansElbow",
    "KMeansParams",
    "fit_kmeans",
    "kmeans_elbow",
    "kmeans_plusplus",
    "MiniBatchKMeansParams",
    "fit_minibatch_kmeans",
    "minibatch_kmeans_step",
    "GMMParams",
    "FullGMMParams",
    "TiedGMMParams",
    "DiagGMMParams",
    "SphericalGMMParams",
    "fit_gmm",
    "bic",
    "aic",
    "sample",
]
