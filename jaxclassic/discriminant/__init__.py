"""Generative classifiers: naive Bayes (Gaussian, categorical, mixed; multinomial, Bernoulli and complement
for counts, with exact batch updates) and LDA / QDA."""

from jaxclassic.discriminant._api import predict
from jaxclassic.discriminant._api import predict_log_proba
from jaxclassic.discriminant._api import predict_proba
# each model module adds its public names below, one import a line
from jaxclassic.discriminant.naive_bayes import CategoricalNBParams
from jaxclassic.discriminant.naive_bayes import GaussianNBParams
from jaxclassic.discriminant.naive_bayes import MixedNBParams
from jaxclassic.discriminant.naive_bayes import fit_gaussian_nb
from jaxclassic.discriminant.naive_bayes import fit_categorical_nb
from jaxclassic.discriminant.naive_bayes import fit_mixed_nb
from jaxclassic.discriminant.discrete_nb import BernoulliNBParams
from jaxclassic.discriminant.discrete_nb import ComplementNBParams
from jaxclassic.discriminant.discrete_nb import MultinomialNBParams
from jaxclassic.discriminant.discrete_nb import fit_bernoulli_nb
from jaxclassic.discriminant.discrete_nb import fit_complement_nb
from jaxclassic.discriminant.discrete_nb import fit_multinomial_nb
from jaxclassic.discriminant.discrete_nb import update_bernoulli_nb
from jaxclassic.discriminant.discrete_nb import update_complement_nb
from jaxclassic.discriminant.discrete_nb import update_multinomial_nb
from jaxclassic.discriminant.lda_qda import LDAParams
from jaxclassic.discriminant.lda_qda import QDAParams
from jaxclassic.discriminant.lda_qda import fit_lda
from jaxclassic.discriminant.lda_qda import fit_qda

__all__ = [
    "predict",
    "predict_log_proba",
    "predict_proba",
    "CategoricalNBParams",
    "GaussianNBParams",
    "MixedNBParams",
    "fit_gaussian_nb",
    "fit_categorical_nb",
    "fit_mixed_nb",
    "BernoulliNBParams",
    "ComplementNBParams",
    "MultinomialNBParams",
    "fit_bernoulli_nb",
    "fit_complement_nb",
    "fit_multinomial_nb",
    "update_bernoulli_nb",
    "update_complement_nb",
    "update_multinomial_nb",
    "LDAParams",
    "QDAParams",
    "fit_lda",
    "fit_qda",
]
