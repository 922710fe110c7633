"""Splits, vmapped cross-validation and grid search, bootstrap, bias-variance, curves."""
# each module adds its public names below, one import a line
from jaxclassic.model_selection.split import train_test_split
from jaxclassic.model_selection.split import kfold_weights
from jaxclassic.model_selection.split import stratified_kfold_weights
from jaxclassic.model_selection.split import fold_indices
from jaxclassic.model_selection.bootstrap import bootstrap_weights
from jaxclassic.model_selection.cross_validation import cross_validate
from jaxclassic.model_selection.search import grid_search
from jaxclassic.model_selection.tuning import tune_hyperparameters
from jaxclassic.model_selection.bias_variance import bias_variance_decomposition
from jaxclassic.model_selection.curves import learning_curve
from jaxclassic.model_selection.curves import validation_curve
from jaxclassic.model_selection.curves import early_stopping
from jaxclassic.model_selection.curves import early_stopping_init
from jaxclassic.model_selection.curves import early_stopping_update
from jaxclassic.model_selection.threshold import choose_threshold
from jaxclassic.model_selection.scoring import make_scorer
from jaxclassic.model_selection.scoring import neg_mse_scorer
from jaxclassic.model_selection.scoring import r2_scorer
from jaxclassic.model_selection.scoring import accuracy_scorer
from jaxclassic.model_selection.scoring import log_loss_scorer
from jaxclassic.model_selection.scoring import roc_auc_scorer
from jaxclassic.model_selection.scoring import neg_hinge_scorer
