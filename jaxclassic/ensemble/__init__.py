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
from jaxclassic.ensemble.bagging import BaggingParams
from jaxclassic.ensemble.bagging import ClassificationBagging
from jaxclassic.ensemble.bagging import RegressionBagging
from jaxclassic.ensemble.bagging import bootstrap_counts
from jaxclassic.ensemble.bagging import fit_bagging
from jaxclassic.ensemble.bagging import oob_decision_function
from jaxclassic.ensemble.bagging import oob_predict
from jaxclassic.ensemble.bagging import oob_score
from jaxclassic.ensemble.forest import ClassificationForest
from jaxclassic.ensemble.forest import ForestParams
from jaxclassic.ensemble.forest import RegressionForest
from jaxclassic.ensemble.forest import fit_random_forest
from jaxclassic.ensemble.gradient_boosting import GradientBoostingClassifierParams
from jaxclassic.ensemble.gradient_boosting import GradientBoostingParams
from jaxclassic.ensemble.gradient_boosting import fit_gradient_boosting
from jaxclassic.ensemble.adaboost import AdaBoostParams
from jaxclassic.ensemble.adaboost import fit_adaboost
from jaxclassic.ensemble.adaboost import staged_decision_function
from jaxclassic.ensemble.adaboost import staged_predict
from jaxclassic.ensemble.adaboost import training_error_bound
from jaxclassic.ensemble.voting import ClassificationVoting
from jaxclassic.ensemble.voting import RegressionVoting
from jaxclassic.ensemble.voting import VotingParams
from jaxclassic.ensemble.voting import fit_voting
from jaxclassic.ensemble.stacking import ClassificationStacking
from jaxclassic.ensemble.stacking import RegressionStacking
from jaxclassic.ensemble.stacking import StackingParams
from jaxclassic.ensemble.stacking import fit_stacking
from jaxclassic.ensemble.stacking import meta_features

__all__ = [
    "decision_function",
    "feature_importances",
    "predict",
    "predict_proba",
    "XGBoostClassifierParams",
    "XGBoostParams",
    "fit_xgboost",
    "BaggingParams",
    "ClassificationBagging",
    "RegressionBagging",
    "bootstrap_counts",
    "fit_bagging",
    "oob_decision_function",
    "oob_predict",
    "oob_score",
    "ClassificationForest",
    "ForestParams",
    "RegressionForest",
    "fit_random_forest",
    "GradientBoostingClassifierParams",
    "GradientBoostingParams",
    "fit_gradient_boosting",
    "AdaBoostParams",
    "fit_adaboost",
    "staged_decision_function",
    "staged_predict",
    "training_error_bound",
    "ClassificationVoting",
    "RegressionVoting",
    "VotingParams",
    "fit_voting",
    "ClassificationStacking",
    "RegressionStacking",
    "StackingParams",
    "fit_stacking",
    "meta_features",
]

# deprecated (issue 27): importable for one minor version, not listed in __all__
from jaxclassic.ensemble.voting import fit_voting_regressor  # noqa: E402,F401
