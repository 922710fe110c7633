"""Fits from row blocks for data larger than memory (a numpy memmap or an iterator of
``(X, y, w)`` blocks), equal to the in-memory fits and returning the same params."""

from jaxclassic.streaming.linear import fit_logistic
from jaxclassic.streaming.linear import fit_ols
from jaxclassic.streaming.linear import fit_ridge
from jaxclassic.streaming.linear import least_squares_moments
from jaxclassic.streaming.discriminant import class_moments
from jaxclassic.streaming.discriminant import fit_gaussian_nb
from jaxclassic.streaming.discriminant import fit_lda
from jaxclassic.streaming.discriminant import update_gaussian_nb
from jaxclassic.streaming.cluster import fit_kmeans
from jaxclassic.streaming.cluster import fit_gmm
from jaxclassic.streaming.boosting import fit_gradient_boosting

__all__ = [
    "fit_ols",
    "fit_ridge",
    "fit_logistic",
    "fit_gaussian_nb",
    "fit_lda",
    "fit_kmeans",
    "fit_gmm",
    "fit_gradient_boosting",
    "least_squares_moments",
    "class_moments",
    "update_gaussian_nb",
]
