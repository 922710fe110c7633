"""Generative classifiers: naive Bayes (Gaussian, categorical, mixed) and LDA / QDA."""

from jaxclassic.discriminant._api import predict
from jaxclassic.discriminant._api import predict_log_proba
from jaxclassic.discriminant._api import predict_proba
# each model module adds its public names below, one import a line
