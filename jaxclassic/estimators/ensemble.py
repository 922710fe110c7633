"""scikit-learn-compatible bagging and random forests (voting and stacking:
:mod:`jaxclassic.estimators.voting`).

Bagging and forests are thin wrappers over :mod:`jaxclassic.ensemble`
(:func:`~jaxclassic.ensemble.fit_random_forest`, :func:`~jaxclassic.ensemble.fit_bagging`,
:func:`~jaxclassic.ensemble.oob_score`): they validate and encode the input, pad the rows to a
shape bucket with zero weights (a zero-weight row is never drawn and never binned), call the
functional fit in the input's dtype (every tree in one ``vmap``) and store its params.

Members of bagging. ``BaggingClassifier`` / ``BaggingRegressor`` take as ``estimator``

* ``None`` (default) or one of our :class:`~jaxclassic.estimators.tree.DecisionTreeClassifier` /
  ``DecisionTreeRegressor`` instances: bagged CART trees, whose hyperparameters are read from
  the instance. A bag of CART trees is a random forest that draws every feature at each node
  (the tree's ``max_features``, default all), so it is fitted by ``fit_random_forest``
  (binned once, all trees one ``vmap``);
* or a functional fit ``fit(X, y, *, sample_weight) -> params`` of the package (hyperparameters
  through ``functools.partial``), bagged by ``fit_bagging`` (one ``vmap`` over the bootstrap
  weights: the fit must accept traced weights, as the package's fits do; classifiers get the
  class codes ``0..C-1``).

Other estimator objects are refused: the bag is one vmapped functional fit, and an estimator
object's functional core is not reachable from its instance without a table of every class.

Departures, documented on each class: trees split on ``n_bins`` histogram bins (exact when a
feature has at most ``n_bins`` distinct values); no ``estimators_`` of tree objects (the
stacked trees are ``params_.trees``), ``warm_start``, ``class_weight="balanced_subsample"``,
``max_leaf_nodes``, ``monotonic_cst``, ``ccp_alpha``; bagging has no ``max_features`` /
``bootstrap_features``; the out-of-bag decision function is NaN on rows no tree left out
(scikit-learn: 0 with a warning) and the out-of-bag score skips them.
"""

from __future__ import annotations

import jax
import numpy as np

from jaxclassic import _cores, _progress
from jaxclassic import ensemble as E
from jaxclassic.estimators._parity import apply_class_weight
from jaxclassic.estimators._base import (
    TREE_MIN_BUCKET,
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    dtype_scope,
    prepare_fit,
    prepare_predict,
    to_host,
    tree_bins,
)
from jaxclassic.estimators.boosting import _check_int, _key, _log
from jaxclassic.estimators.tree import (
    categorical_bins,
    categorical_fit_input,
    categorical_predict_input,
    _CLASSIFICATION_CRITERIA,
    _REGRESSION_CRITERIA,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    _check_choice,
    _check_max_depth,
    _count_or_fraction,
)
from jaxclassic.validation import check_bool

__all__ = [
    "BaggingClassifier",
    "BaggingRegressor",
    "RandomForestClassifier",
    "RandomForestRegressor",
]


# --------------------------------------------------------------------------- shared
def _max_samples(max_samples, n_positive):
    """scikit-learn's ``max_samples`` (None, an int count, a float share) as the core's share."""
    if max_samples is None:
        return 1.0
    if isinstance(max_samples, (int, np.integer)) and not isinstance(max_samples, bool):
        if not 1 <= max_samples <= n_positive:
            raise ValueError(f"max_samples must be in [1, {n_positive}] (an int), got {max_samples}")
        return max_samples / n_positive
    if isinstance(max_samples, (float, np.floating)) and 0.0 < max_samples <= 1.0:
        return float(max_samples)
    raise ValueError(f"max_samples must be None, an int >= 1 or a float in (0, 1], got {max_samples!r}")


class _BaseBootstrap(BaseEstimator):
    """Fit, prediction and out-of-bag attributes shared by forests and bagging."""

    _min_bucket = TREE_MIN_BUCKET  # rows: every data set of up to 512 rows shares one program

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _core_fit(self, Xj, yj, swj, n, classifier):  # returns the core's params
        raise NotImplementedError

    def _fit(self, X, y, sample_weight, classifier):
        _check_int(self.n_estimators, "n_estimators", 1)
        check_bool(self.bootstrap, "bootstrap")
        check_bool(self.oob_score, "oob_score")
        _cores.check_n_jobs(self.n_jobs)
        _progress.check_verbose(self.verbose)
        if self.oob_score and not self.bootstrap:
            raise ValueError("Out of bag estimation only available if bootstrap=True")
        X = categorical_fit_input(self, X)
        Xj, yj, swj, n = prepare_fit(self, X, y, sample_weight, classifier=classifier, allow_nan=True)
        if classifier and getattr(self, "class_weight", None) is not None:
            if self.class_weight == "balanced_subsample":
                raise ValueError("class_weight='balanced_subsample' is not implemented (the bootstrap "
                                 "weights are drawn inside the vmapped fit); use 'balanced'")
            swj = jax.device_put(apply_class_weight(self.class_weight, self.classes_, yj, swj))
        if classifier:
            self.n_classes_ = len(self.classes_)
        with _cores.limit_devices(self.n_jobs):
            params = self._core_fit(Xj, yj, swj, n, classifier)
        self.params_ = to_host(params)
        _progress.done(self.verbose, type(self).__name__,
                       f"{int(self.n_estimators)} members fitted as one vmapped program")
        self.n_outputs_ = 1
        if self.oob_score:
            self.oob_score_ = float(E.oob_score(params, Xj, yj))
            oob = np.asarray(E.oob_decision_function(params, Xj))[:n]
            if classifier:
                self.oob_decision_function_ = oob
            else:
                self.oob_prediction_ = oob
        return self

    @dtype_scope
    def _core(self, fn, X):
        Xp, n = prepare_predict(self, categorical_predict_input(self, X), allow_nan=True)
        return np.asarray(fn(self.params_, Xp))[:n]


class _BootstrapClassifier(ClassifierMixin, _BaseBootstrap):
    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Fit the ensemble on ``(X, y)`` (rows weighted by ``sample_weight``); returns ``self``."""
        return self._fit(X, y, sample_weight, classifier=True)

    def predict_proba(self, X):
        """Mean class probabilities of the members ``(n, n_classes)`` in ``classes_`` order."""
        return self._core(E.predict_proba, X)

    def predict_log_proba(self, X):
        """``log(predict_proba(X))``."""
        return _log(self.predict_proba(X))

    def predict(self, X):
        """The class of largest mean probability (first on ties, as scikit-learn)."""
        proba = self.predict_proba(X)  # checks fitted before classes_ is read
        return self.classes_[np.argmax(proba, axis=1)]


class _BootstrapRegressor(RegressorMixin, _BaseBootstrap):
    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Fit the ensemble on ``(X, y)`` (rows weighted by ``sample_weight``); returns ``self``."""
        return self._fit(X, y, sample_weight, classifier=False)

    def predict(self, X):
        """The members' mean prediction ``(n,)``."""
        return self._core(E.predict, X)


# --------------------------------------------------------------------------- random forest
def _forest_kwargs(est, n, n_positive, classifier, n_bins):
    """The core's hyperparameters from a forest (or a CART tree's) scikit-learn names
    (``n_bins``: the bins the fit uses, :func:`~jaxclassic.estimators._base.tree_bins`)."""
    criteria = _CLASSIFICATION_CRITERIA if classifier else _REGRESSION_CRITERIA
    return dict(
        task="classification" if classifier else "regression",
        criterion=criteria[_check_choice(est.criterion, "criterion", criteria)],
        max_depth=_check_max_depth(est.max_depth, 1),
        min_samples_split=_count_or_fraction(est.min_samples_split, "min_samples_split", n, 2),
        min_samples_leaf=_count_or_fraction(est.min_samples_leaf, "min_samples_leaf", n, 1),
        min_weight_fraction_leaf=float(est.min_weight_fraction_leaf),
        min_impurity_decrease=float(est.min_impurity_decrease),
        max_features=est.max_features, n_bins=n_bins)


class _BaseForest(_BaseBootstrap):
    def _core_fit(self, Xj, yj, swj, n, classifier):
        n_positive = int(np.count_nonzero(np.asarray(swj) > 0))  # numpy: no eager program
        self.n_bins_ = categorical_bins(tree_bins(Xj, n, self.n_bins), self.n_bins, Xj, self.is_categorical_)
        kwargs = _forest_kwargs(self, n, n_positive, classifier, self.n_bins_)
        if self.is_categorical_ is not None:
            kwargs["categorical_features"] = self.is_categorical_
        params = E.fit_random_forest(
            Xj, yj, n_estimators=int(self.n_estimators), bootstrap=bool(self.bootstrap),
            max_samples=_max_samples(self.max_samples, n_positive) if self.bootstrap else None,
            sample_weight=swj, key=_key(self.random_state),
            n_classes=self.n_classes_ if classifier else None, **kwargs)
        self.feature_importances_ = np.asarray(E.feature_importances(params))
        return params


_FOREST_DOC = """n_estimators : int >= 1, default=100
        Refits with any value of one bucket (1..16, 17..32, 33..64, ...:
        ``jaxclassic.ensemble.bagging.estimator_capacity``) reuse the compiled programs.
    criterion : str
        Classifier: {"gini", "entropy", "log_loss"} ("log_loss" is "entropy"); regressor:
        {"squared_error"}.
    max_depth : int >= 1 or None, default=None
        None: grown until pure, within the core's budget (``forest_budget``: at most 8191
        node slots and 64 splits per level).
    min_samples_split : int >= 2 or float in (0, 1], default=2
    min_samples_leaf : int >= 1 or float in (0, 1], default=1
    min_weight_fraction_leaf : float, default=0.0
    max_features : "sqrt", "log2", int, float or None
        Features drawn per node (classifier default "sqrt", regressor 1.0: all).
    min_impurity_decrease : float >= 0, default=0.0
    bootstrap : bool, default=True
    oob_score : bool, default=False
        Out-of-bag accuracy / R^2 (``oob_score_``) and decision function / prediction.
    random_state : int, RandomState or None, default=None
        Seeds the ``jax.random`` key of the bootstrap and feature draws.
    max_samples : None, int or float in (0, 1], default=None
        Rows drawn per tree (a count, or a share of the positive-weight rows).
    n_bins : int in 2..256, default=255
        At most this many histogram bins per feature (exact when a feature has at most
        ``n_bins`` values): where every feature repeats at most
        31, 63 or 127 distinct values (each at least twice on average), the fit bins at 32,
        64 or 128 instead (``n_bins_``): the same exact binning and trees, several times
        faster (``jaxclassic.tree.binning.fewest_bins``).
    n_jobs : int or None, default=None
        CPU cores the fit may use, as CPU devices (:mod:`jaxclassic._cores`): tree members
        are grown in equal blocks, one block per device (from ``MIN_ROWS / 16`` rows, when the
        devices divide the members' bucket), at most ``min(n_jobs, devices present)``; ``-1``
        all present; None no cap. JAX has one CPU device unless
        :func:`jaxclassic.distributed.use_cpu_cores` was called before its first computation;
        asking for more than are present warns and uses those. A functional ``estimator``'s
        bag is one vmapped program on one device (``n_jobs`` has no effect there).
    verbose : int >= 0, default=0
        The members are one vmapped program, with no steps to report between: above 0, one
        line on ``stderr`` when it has run (:func:`jaxclassic._progress.done`)."""


class RandomForestClassifier(_BaseForest, _BootstrapClassifier):
    __doc__ = """Random forest of CART classification trees (:func:`jaxclassic.ensemble.fit_random_forest`).

    Every tree grows on a bootstrap count-weight vector with ``max_features`` features drawn
    per node; all trees are one ``vmap``. Probabilities are the trees' mean class fractions.
    NaN in ``X`` goes to the learned side of each split.

    Parameters
    ----------
    """ + _FOREST_DOC + """
    class_weight : dict, "balanced" or None, default=None
        (``"balanced_subsample"`` is not implemented.)
        Weight of each class, multiplying ``sample_weight`` row by row (scikit-learn's meaning;
        :func:`jaxclassic.estimators._parity.apply_class_weight`: ``"balanced"`` from the
        weighted class counts, scikit-learn's from the unweighted ones, the same without
        ``sample_weight``).
    categorical_features : None, "from_dtype", bool mask, column indices or feature names, default=None
        Features split by sets of categories in every tree
        (:class:`~jaxclassic.estimators.DecisionTreeClassifier`'s ``categorical_features``:
        ``"from_dtype"`` takes a DataFrame's pandas ``category`` columns). None: all numeric.

    Attributes
    ----------
    classes_, n_classes_, n_features_in_, feature_names_in_, n_outputs_, feature_importances_,
    oob_score_, oob_decision_function_ (NaN on rows no tree left out), params_
    (:class:`~jaxclassic.ensemble.ClassificationForest`: ``params_.trees`` holds the trees
    stacked, ``params_.counts`` the bootstrap counts; there is no ``estimators_`` list of
    tree objects)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]]); y = np.array(["a", "a", "a", "b", "b", "b"])
    >>> RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y).predict([[0.5], [4.5]]).tolist()
    ['a', 'b']
    """

    def __init__(self, n_estimators=100, *, criterion="gini", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0, max_features="sqrt",
                 min_impurity_decrease=0.0, bootstrap=True, oob_score=False, random_state=None,
                 max_samples=None, n_bins=255, class_weight=None, n_jobs=None, verbose=0,
                 categorical_features=None):
        self.categorical_features = categorical_features
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.min_impurity_decrease = min_impurity_decrease
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.random_state = random_state
        self.max_samples = max_samples
        self.n_bins = n_bins
        self.class_weight = class_weight


class RandomForestRegressor(_BaseForest, _BootstrapRegressor):
    __doc__ = """Random forest of CART regression trees (:func:`jaxclassic.ensemble.fit_random_forest`).

    Parameters
    ----------
    """ + _FOREST_DOC + """
    categorical_features : None, "from_dtype", bool mask, column indices or feature names, default=None
        Features split by sets of categories in every tree
        (:class:`~jaxclassic.estimators.DecisionTreeClassifier`'s ``categorical_features``:
        ``"from_dtype"`` takes a DataFrame's pandas ``category`` columns). None: all numeric.

    Attributes
    ----------
    n_features_in_, feature_names_in_, n_outputs_, feature_importances_, oob_score_ (R^2),
    oob_prediction_ (NaN on rows no tree left out), params_
    (:class:`~jaxclassic.ensemble.RegressionForest`)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(6.0)[:, None]; y = np.array([1.0, 1.0, 1.0, 5.0, 5.0, 5.0])
    >>> RandomForestRegressor(n_estimators=5, bootstrap=False).fit(X, y).predict([[0.2], [4.8]]).tolist()
    [1.0, 5.0]
    """

    def __init__(self, n_estimators=100, *, criterion="squared_error", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0, max_features=1.0,
                 min_impurity_decrease=0.0, bootstrap=True, oob_score=False, random_state=None,
                 max_samples=None, n_bins=255, n_jobs=None, verbose=0, categorical_features=None):
        self.categorical_features = categorical_features
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.min_impurity_decrease = min_impurity_decrease
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.random_state = random_state
        self.max_samples = max_samples
        self.n_bins = n_bins


# --------------------------------------------------------------------------- bagging
class _BaseBagging(_BaseBootstrap):
    def _core_fit(self, Xj, yj, swj, n, classifier):
        n_positive = int(np.count_nonzero(np.asarray(swj) > 0))  # numpy: no eager program
        base = self.estimator
        tree_class = DecisionTreeClassifier if classifier else DecisionTreeRegressor
        if base is None:
            base = tree_class()
        max_samples = _max_samples(self.max_samples, n_positive)
        key = _key(self.random_state)
        if isinstance(base, tree_class):
            # bagged CART = a forest drawing the tree's max_features (default all) per node
            if not self.bootstrap and max_samples < 1.0:
                raise ValueError("bootstrap=False draws no rows: max_samples must be 1.0 with it")
            self.n_bins_ = tree_bins(Xj, n, base.n_bins)
            kwargs = _forest_kwargs(base, n, n_positive, classifier, self.n_bins_)
            return E.fit_random_forest(
                Xj, yj, n_estimators=int(self.n_estimators), bootstrap=bool(self.bootstrap),
                max_samples=max_samples, sample_weight=swj, key=key,
                n_classes=self.n_classes_ if classifier else None, **kwargs)
        if callable(base) and not isinstance(base, BaseEstimator):
            if not self.bootstrap:
                raise ValueError("bootstrap=False is supported only for tree members")
            return E.fit_bagging(base, Xj, yj, n_estimators=int(self.n_estimators), key=key,
                                 sample_weight=swj, max_samples=max_samples)
        raise ValueError(f"estimator must be None, a jaxclassic {tree_class.__name__} or a functional fit "
                         f"fit(X, y, *, sample_weight) of the package, got {type(base).__name__} (see "
                         "jaxclassic.estimators.ensemble)")


_BAGGING_DOC = """n_estimators : int >= 1, default=10
        Refits with any value of one bucket (1..16, 17..32, 33..64, ...:
        ``jaxclassic.ensemble.bagging.estimator_capacity``) reuse the compiled programs (tree
        members; a functional ``estimator`` builds its programs for each value).
    max_samples : int or float in (0, 1], default=1.0
        Rows drawn (with replacement) per member: a count, or a share of the positive-weight rows.
    bootstrap : bool, default=True
        False (tree members only): every member sees every row.
    oob_score : bool, default=False
    random_state : int, RandomState or None, default=None
    n_jobs : int or None, default=None
        CPU cores the fit may use, as CPU devices (:mod:`jaxclassic._cores`): tree members
        are grown in equal blocks, one block per device (from ``MIN_ROWS / 16`` rows, when the
        devices divide the members' bucket), at most ``min(n_jobs, devices present)``; ``-1``
        all present; None no cap. JAX has one CPU device unless
        :func:`jaxclassic.distributed.use_cpu_cores` was called before its first computation;
        asking for more than are present warns and uses those. A functional ``estimator``'s
        bag is one vmapped program on one device (``n_jobs`` has no effect there).
    verbose : int >= 0, default=0
        The members are one vmapped program, with no steps to report between: above 0, one
        line on ``stderr`` when it has run (:func:`jaxclassic._progress.done`)."""


class BaggingClassifier(_BaseBagging, _BootstrapClassifier):
    __doc__ = """Bagging (bootstrap aggregating) of CART trees or of a functional fit
    (:func:`jaxclassic.ensemble.fit_random_forest` / :func:`~jaxclassic.ensemble.fit_bagging`).

    Members are fitted on bootstrap count weights (scikit-learn's bagging with a base that
    takes ``sample_weight``), all in one ``vmap``; probabilities are their mean.

    Parameters
    ----------
    estimator : None, DecisionTreeClassifier or callable, default=None
        None: ``DecisionTreeClassifier()``; one of our trees: its hyperparameters; a
        functional fit ``fit(X, y, *, sample_weight)`` (module docstring).
    """ + _BAGGING_DOC + """

    Attributes
    ----------
    classes_, n_classes_, n_features_in_, feature_names_in_, n_outputs_, oob_score_,
    oob_decision_function_, params_ (a :class:`~jaxclassic.ensemble.ClassificationForest` for
    tree members, else a :class:`~jaxclassic.ensemble.ClassificationBagging`)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(6.0)[:, None]; y = np.array(["a", "a", "a", "b", "b", "b"])
    >>> BaggingClassifier(n_estimators=5, random_state=0).fit(X, y).predict([[0.5], [4.5]]).tolist()
    ['a', 'b']
    """

    def __init__(self, estimator=None, n_estimators=10, *, max_samples=1.0, bootstrap=True, oob_score=False,
                 random_state=None, n_jobs=None, verbose=0):
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.random_state = random_state


class BaggingRegressor(_BaseBagging, _BootstrapRegressor):
    __doc__ = """Bagging of CART regression trees or of a functional fit (the members' mean).

    Parameters
    ----------
    estimator : None, DecisionTreeRegressor or callable, default=None
        None: ``DecisionTreeRegressor()``; one of our trees: its hyperparameters; a functional
        fit such as ``functools.partial(jaxclassic.linear.fit_ridge, alpha=1.0)``.
    """ + _BAGGING_DOC + """

    Attributes
    ----------
    n_features_in_, feature_names_in_, n_outputs_, oob_score_, oob_prediction_, params_

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(6.0)[:, None]; y = np.array([1.0, 1.0, 1.0, 5.0, 5.0, 5.0])
    >>> BaggingRegressor(n_estimators=5, bootstrap=False).fit(X, y).predict([[0.2], [4.8]]).tolist()
    [1.0, 5.0]
    """

    def __init__(self, estimator=None, n_estimators=10, *, max_samples=1.0, bootstrap=True, oob_score=False,
                 random_state=None, n_jobs=None, verbose=0):
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.random_state = random_state
