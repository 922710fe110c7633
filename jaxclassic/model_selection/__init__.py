"""Splits, vmapped cross-validation and grid search, bootstrap, bias-variance, curves."""
# each module adds its public names below, one import a line
from jaxclassic.model_selection.split import TrainTestSplit
from jaxclassic.model_selection.split import train_test_split
from jaxclassic.model_selection.split import train_test_indices
from jaxclassic.model_selection.split import kfold_weights
from jaxclassic.model_selection.split import stratified_kfold_weights
from jaxclassic.model_selection.split import fold_indices
from jaxclassic.model_selection.bootstrap import bootstrap_weights
from jaxclassic.model_selection.cross_validation import CrossValidationResult
from jaxclassic.model_selection.cross_validation import cross_validate
from jaxclassic.model_selection.search import GridSearchResult
from jaxclassic.model_selection.search import grid_search
from jaxclassic.model_selection.tuning import TuningResult
from jaxclassic.model_selection.tuning import tune_hyperparameters
from jaxclassic.model_selection.bias_variance import BiasVarianceResult
from jaxclassic.model_selection.bias_variance import bias_variance_decomposition
from jaxclassic.model_selection.curves import LearningCurveResult
from jaxclassic.model_selection.curves import ValidationCurveResult
from jaxclassic.model_selection.curves import learning_curve
from jaxclassic.model_selection.curves import validation_curve
from jaxclassic.model_selection.curves import EarlyStopping
from jaxclassic.model_selection.curves import EarlyStoppingState
from jaxclassic.model_selection.curves import early_stopping
from jaxclassic.model_selection.curves import early_stopping_init
from jaxclassic.model_selection.curves import early_stopping_update
from jaxclassic.model_selection.threshold import ThresholdResult
from jaxclassic.model_selection.threshold import choose_threshold
from jaxclassic.model_selection.scoring import Scorer
from jaxclassic.model_selection.scoring import make_scorer
from jaxclassic.model_selection.scoring import neg_mse_scorer
from jaxclassic.model_selection.scoring import r2_scorer
from jaxclassic.model_selection.scoring import accuracy_scorer
from jaxclassic.model_selection.scoring import log_loss_scorer
from jaxclassic.model_selection.scoring import roc_auc_scorer
from jaxclassic.model_selection.scoring import neg_hinge_scorer

__all__ = [
    "TrainTestSplit",
    "train_test_split",
    "train_test_indices",
    "kfold_weights",
    "stratified_kfold_weights",
    "fold_indices",
    "bootstrap_weights",
    "CrossValidationResult",
    "cross_validate",
    "GridSearchResult",
    "grid_search",
    "TuningResult",
    "tune_hyperparameters",
    "BiasVarianceResult",
    "bias_variance_decomposition",
    "LearningCurveResult",
    "ValidationCurveResult",
    "learning_curve",
    "validation_curve",
    "EarlyStopping",
    "EarlyStoppingState",
    "early_stopping",
    "early_stopping_init",
    "early_stopping_update",
    "ThresholdResult",
    "choose_threshold",
    "Scorer",
    "make_scorer",
    "neg_mse_scorer",
    "r2_scorer",
    "accuracy_scorer",
    "log_loss_scorer",
    "roc_auc_scorer",
    "neg_hinge_scorer",
]
