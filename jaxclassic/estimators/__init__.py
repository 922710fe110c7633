"""scikit-learn-compatible estimators over the functional core (needs ``jaxclassic[sklearn]``).

dtype, as in scikit-learn: float64 input is fitted and predicted in float64 (no need to switch
on ``jax_enable_x64``: each method enters JAX's x64 mode for its own computation and leaves it
on return), float32 input in float32, integer input in float64. Predictions come in the dtype
of the fit; fitted attributes (and ``params_``) are numpy arrays of that dtype. One switch
forces float32 for speed and memory::

    jaxclassic.estimators.set_config(dtype="float32")      # for the process
    with jaxclassic.estimators.config_context(dtype="float32"):
        ...                                                # for a block

The classes load on first use (PEP 562): ``import jaxclassic.estimators`` imports only the
configuration functions, and ``from jaxclassic.estimators import SVC`` imports the SVM family's
module and what it needs, not the other families' (nor, for instance, ``sklearn.ensemble``, which
only the voting and stacking classes use). Each family adds its classes to ``_CLASSES`` below,
one a line.
"""

from typing import TYPE_CHECKING

from jaxclassic.estimators._config import config_context
from jaxclassic.estimators._config import get_config
from jaxclassic.estimators._config import set_config

#: public class -> the module of this package that defines it (imported on first access)
_CLASSES: dict[str, str] = {
    "BernoulliNB": "naive_bayes",
    "CategoricalNB": "discriminant",
    "ComplementNB": "naive_bayes",
    "MultinomialNB": "naive_bayes",
    "GaussianNB": "discriminant",
    "LinearDiscriminantAnalysis": "discriminant",
    "QuadraticDiscriminantAnalysis": "discriminant",
    "Lasso": "lasso",
    "ElasticNet": "lasso",
    "BayesianRidge": "linear_regression",
    "LinearRegression": "linear_regression",
    "Ridge": "linear_regression",
    "SGDRegressor": "linear_regression",
    "SGDClassifier": "linear_sgd",
    "LogisticRegression": "linear_classification",
    "PerceptronClassifier": "linear_classification",
    "SoftmaxRegression": "linear_classification",
    "C45Classifier": "tree",
    "DecisionTreeClassifier": "tree",
    "DecisionTreeRegressor": "tree",
    "ID3Classifier": "tree",
    "AdaBoostClassifier": "boosting",
    "GradientBoostingClassifier": "boosting",
    "GradientBoostingRegressor": "boosting",
    "XGBoostClassifier": "boosting",
    "XGBoostRegressor": "boosting",
    "BaggingClassifier": "ensemble",
    "BaggingRegressor": "ensemble",
    "RandomForestClassifier": "ensemble",
    "RandomForestRegressor": "ensemble",
    "StackingClassifier": "voting",
    "StackingRegressor": "voting",
    "VotingClassifier": "voting",
    "VotingRegressor": "voting",
    "KNeighborsClassifier": "neighbors",
    "KNeighborsRegressor": "neighbors",
    "KernelDensity": "neighbors",
    "GaussianMixture": "mixture",
    "GaussianProcessRegressor": "gaussian_process",
    "AgglomerativeClustering": "cluster",
    "KMeans": "cluster",
    "MiniBatchKMeans": "cluster",
    "LinearSVC": "linear_svm",
    "SVC": "svm",
    "SVR": "svm",
    "CategoricalHMM": "hmm",
    "GaussianHMM": "hmm",
    "ChainCRF": "crf",
}

if TYPE_CHECKING:  # for type checkers and editors: the same names, imported eagerly
    from jaxclassic.estimators.naive_bayes import BernoulliNB
    from jaxclassic.estimators.discriminant import CategoricalNB
    from jaxclassic.estimators.naive_bayes import ComplementNB
    from jaxclassic.estimators.naive_bayes import MultinomialNB
    from jaxclassic.estimators.discriminant import GaussianNB
    from jaxclassic.estimators.discriminant import LinearDiscriminantAnalysis
    from jaxclassic.estimators.discriminant import QuadraticDiscriminantAnalysis
    from jaxclassic.estimators.lasso import Lasso
    from jaxclassic.estimators.lasso import ElasticNet
    from jaxclassic.estimators.linear_regression import BayesianRidge
    from jaxclassic.estimators.linear_regression import LinearRegression
    from jaxclassic.estimators.linear_regression import Ridge
    from jaxclassic.estimators.linear_regression import SGDRegressor
    from jaxclassic.estimators.linear_sgd import SGDClassifier
    from jaxclassic.estimators.linear_classification import LogisticRegression
    from jaxclassic.estimators.linear_classification import PerceptronClassifier
    from jaxclassic.estimators.linear_classification import SoftmaxRegression
    from jaxclassic.estimators.tree import C45Classifier
    from jaxclassic.estimators.tree import DecisionTreeClassifier
    from jaxclassic.estimators.tree import DecisionTreeRegressor
    from jaxclassic.estimators.tree import ID3Classifier
    from jaxclassic.estimators.boosting import AdaBoostClassifier
    from jaxclassic.estimators.boosting import GradientBoostingClassifier
    from jaxclassic.estimators.boosting import GradientBoostingRegressor
    from jaxclassic.estimators.boosting import XGBoostClassifier
    from jaxclassic.estimators.boosting import XGBoostRegressor
    from jaxclassic.estimators.ensemble import BaggingClassifier
    from jaxclassic.estimators.ensemble import BaggingRegressor
    from jaxclassic.estimators.ensemble import RandomForestClassifier
    from jaxclassic.estimators.ensemble import RandomForestRegressor
    from jaxclassic.estimators.voting import StackingClassifier
    from jaxclassic.estimators.voting import StackingRegressor
    from jaxclassic.estimators.voting import VotingClassifier
    from jaxclassic.estimators.voting import VotingRegressor
    from jaxclassic.estimators.neighbors import KNeighborsClassifier
    from jaxclassic.estimators.neighbors import KNeighborsRegressor
    from jaxclassic.estimators.neighbors import KernelDensity
    from jaxclassic.estimators.mixture import GaussianMixture
    from jaxclassic.estimators.gaussian_process import GaussianProcessRegressor
    from jaxclassic.estimators.cluster import AgglomerativeClustering
    from jaxclassic.estimators.cluster import KMeans
    from jaxclassic.estimators.cluster import MiniBatchKMeans
    from jaxclassic.estimators.linear_svm import LinearSVC
    from jaxclassic.estimators.svm import SVC
    from jaxclassic.estimators.svm import SVR
    from jaxclassic.estimators.hmm import CategoricalHMM
    from jaxclassic.estimators.hmm import GaussianHMM
    from jaxclassic.estimators.crf import ChainCRF


def __getattr__(name: str):
    """Import the module that defines the class ``name`` on first access (PEP 562)."""
    module = _CLASSES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups do not come here
    return value


def __dir__():
    return sorted(set(globals()) | set(_CLASSES))


__all__ = ["config_context", "get_config", "set_config", *_CLASSES]
