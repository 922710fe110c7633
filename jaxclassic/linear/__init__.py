"""Linear models: regression (OLS, ridge, lasso, Bayesian, SGD), classification (logistic,
softmax, one-vs-rest / one-vs-one, perceptron), features and subset selection."""

from jaxclassic.linear._api import decision_function
from jaxclassic.linear._api import predict
from jaxclassic.linear._api import predict_dist
from jaxclassic.linear._api import predict_proba
# each model module adds its public names below, one import a line
from jaxclassic.linear.ols import fit_ols
from jaxclassic.linear.ols import ols_inference
from jaxclassic.linear.ridge import fit_ridge
from jaxclassic.linear.ridge import ridge_path
from jaxclassic.linear.bayesian import fit_bayesian_ridge
from jaxclassic.linear.sgd import fit_sgd_regressor
from jaxclassic.linear.features import polynomial_features
from jaxclassic.linear.features import standardize
from jaxclassic.linear.lasso import fit_lasso
from jaxclassic.linear.lasso import lasso_path
from jaxclassic.linear.selection import aic
from jaxclassic.linear.selection import backward_stepwise
from jaxclassic.linear.selection import best_subset
from jaxclassic.linear.selection import bic
from jaxclassic.linear.stagewise import forward_stagewise
from jaxclassic.linear.selection import forward_stepwise
from jaxclassic.linear.selection import mallows_cp
from jaxclassic.linear.logistic import fit_logistic
from jaxclassic.linear.logistic import logistic_inference
from jaxclassic.linear.softmax import fit_softmax
from jaxclassic.linear.multiclass import fit_one_vs_one
from jaxclassic.linear.multiclass import fit_one_vs_rest
from jaxclassic.linear.perceptron import fit_perceptron
