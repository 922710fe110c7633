"""Linear models: regression (OLS, ridge, lasso, Bayesian, SGD), classification (logistic,
softmax, one-vs-rest / one-vs-one, perceptron), features and subset selection."""

from jaxclassic.linear._api import decision_function
from jaxclassic.linear._api import predict
from jaxclassic.linear._api import predict_dist
from jaxclassic.linear._api import predict_proba
# each model module adds its public names below, one import a line
