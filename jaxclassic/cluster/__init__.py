"""Clustering: k-means / k-means++, hierarchical (agglomerative) clustering, Gaussian mixtures
by EM. Each model module adds its public names below, one import a line."""

from jaxclassic.cluster._api import predict
from jaxclassic.cluster._api import predict_proba
from jaxclassic.cluster._api import score_samples
from jaxclassic.cluster.hierarchical import agglomerative
from jaxclassic.cluster.hierarchical import cut_tree
from jaxclassic.cluster.kmeans import KMeansElbow
from jaxclassic.cluster.kmeans import KMeansParams
from jaxclassic.cluster.kmeans import fit_kmeans
from jaxclassic.cluster.kmeans import kmeans_elbow
from jaxclassic.cluster.kmeans import kmeans_plusplus
from jaxclassic.cluster.gmm import fit_gmm
from jaxclassic.cluster.gmm import bic
from jaxclassic.cluster.gmm import aic
from jaxclassic.cluster.gmm import sample
