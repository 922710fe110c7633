"""Ensembles on the tree engine: bagging, random forests, AdaBoost, gradient boosting,
XGBoost-style second-order boosting, voting and stacking (each module adds its public names
below, one import a line)."""

from jaxclassic.ensemble._api import decision_function
from jaxclassic.ensemble._api import feature_importances
from jaxclassic.ensemble._api import predict
from jaxclassic.ensemble._api import predict_proba
from jaxclassic.ensemble.xgboost import XGBoostClassifierParams
from jaxclassic.ensemble.xgboost import XGBoostParams
from jaxclassic.ensemble.xgboost import fit_xgboost
