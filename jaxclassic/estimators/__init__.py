"""scikit-learn-compatible estimators over the functional core (needs ``jaxclassic[sklearn]``).

Each family adds its classes below, one import a line.
"""

from jaxclassic.estimators.discriminant import CategoricalNB
from jaxclassic.estimators.discriminant import GaussianNB
from jaxclassic.estimators.discriminant import LinearDiscriminantAnalysis
from jaxclassic.estimators.discriminant import QuadraticDiscriminantAnalysis
from jaxclassic.estimators.lasso import Lasso
from jaxclassic.estimators.linear_regression import BayesianRidge
from jaxclassic.estimators.linear_regression import LinearRegression
from jaxclassic.estimators.linear_regression import Ridge
from jaxclassic.estimators.linear_regression import SGDRegressor
from jaxclassic.estimators.linear_classification import LogisticRegression
from jaxclassic.estimators.linear_classification import PerceptronClassifier
from jaxclassic.estimators.linear_classification import SoftmaxRegression

__all__ = [
    "LogisticRegression",
    "PerceptronClassifier",
    "SoftmaxRegression",
    "BayesianRidge",
    "LinearRegression",
    "Ridge",
    "SGDRegressor",
    "Lasso",
    "CategoricalNB",
    "GaussianNB",
    "LinearDiscriminantAnalysis",
    "QuadraticDiscriminantAnalysis",
]
