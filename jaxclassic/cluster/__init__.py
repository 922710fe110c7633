"""Clustering: k-means / k-means++, hierarchical (agglomerative) clustering, Gaussian mixtures
by EM. Each model module adds its public names below, one import a line."""

from jaxclassic.cluster._api import predict
from jaxclassic.cluster._api import predict_proba
from jaxclassic.cluster._api import score_samples
