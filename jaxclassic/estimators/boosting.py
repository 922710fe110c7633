"""scikit-learn-compatible boosting: AdaBoost, gradient boosting and XGBoost-style boosting.

Thin wrappers over :mod:`jaxclassic.ensemble` (:func:`~jaxclassic.ensemble.fit_adaboost`,
:func:`~jaxclassic.ensemble.fit_gradient_boosting`, :func:`~jaxclassic.ensemble.fit_xgboost`):
they validate and encode the input, pad the rows to a shape bucket with zero weights (every
boosting fit gives a zero-weight row no influence: bins, trees, intercept), call the functional
fit in the input's dtype and store its params (``params_``) and scikit-learn's (or xgboost's)
fitted attributes. The maths lives in the core.

Departures, documented on each class:

* Trees are grown on histogram bins (``n_bins`` / ``max_bin``): exact, and scikit-learn's
  splits, when a feature has at most that many distinct values; quantile bins otherwise.
* ``AdaBoostClassifier`` takes ``max_depth`` (depth of its gini trees; 1 = stumps, scikit-learn's
  default base) instead of an ``estimator`` object; SAMME only. No NaN.
* Gradient boosting has no ``max_features``, ``warm_start``, ``huber`` / ``quantile``
  losses, or ``init`` estimators (``None`` or ``"zero"``). Early stopping
  (``n_iter_no_change``, ``validation_fraction``, ``tol``) is scikit-learn's: the same
  held-out rows (its ``train_test_split``), held out as weight 0; all ``n_estimators`` rounds
  are boosted (one compiled scan) and the model is cut after the round where scikit-learn's
  rule stops.
* ``XGBoostClassifier`` / ``XGBoostRegressor`` follow xgboost's scikit-learn API names;
  ``eval_set`` holds one ``(X, y)`` pair (the core monitors one set); no ``base_margin``,
  callbacks or custom metrics.
"""

from __future__ import annotations

import numpy as np

import jax
import jax.numpy as jnp

from jaxclassic import _cores
from jaxclassic import ensemble as E
from jaxclassic import losses
from jaxclassic.ensemble import _boosting as B
from jaxclassic.ensemble import adaboost as _adaboost
from jaxclassic.ensemble import gradient_boosting as _gb
from jaxclassic.estimators._base import (
    TREE_MIN_BUCKET,
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    _n_padded,
    check_is_fitted,
    dtype_scope,
    fitted_dtype,
    pad_rows,
    prepare_fit,
    prepare_predict,
    to_core,
    tree_bins,
    to_host,
    validate_data,
)
from jaxclassic.estimators.tree import (
    _check_choice,
    _count_or_fraction,
    categorical_bins,
    categorical_fit_input,
    categorical_predict_input,
)
from jaxclassic.validation import key_from_seed

__all__ = [
    "AdaBoostClassifier",
    "GradientBoostingClassifier",
    "GradientBoostingRegressor",
    "XGBoostClassifier",
    "XGBoostRegressor",
]


def _key(random_state):
    """A ``jax.random`` key drawn from scikit-learn's ``random_state``."""
    from sklearn.utils import check_random_state

    return key_from_seed(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def _check_int(value, name, low):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    return int(value)


def _check_positive(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not value > 0:
        raise ValueError(f"{name} must be a float > 0, got {value!r}")
    return float(value)


def _predict_classes(estimator, codes):
    return estimator.classes_[np.asarray(codes)]


def _log(p):
    with np.errstate(divide="ignore"):
        return np.log(p)


# --------------------------------------------------------------------------- AdaBoost
class AdaBoostClassifier(ClassifierMixin, BaseEstimator):
    """AdaBoost (SAMME; discrete AdaBoost for two classes) of weighted gini trees
    (:func:`jaxclassic.ensemble.fit_adaboost`).

    Equal to scikit-learn's ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=max_depth))``
    (float64, up to ties in the split gains) when every feature has at most ``n_bins``
    distinct values; otherwise the trees split on ``n_bins`` quantile bins.

    Parameters
    ----------
    n_estimators : int >= 1, default=50
        Boosting rounds (fewer are kept after scikit-learn's stop rules).
        Refits with any value of one bucket (1..16, 17..32, 33..64, ...:
        ``jaxclassic.ensemble.bagging.estimator_capacity``) reuse the compiled programs.
    learning_rate : float > 0, default=1.0
    max_depth : int >= 1, default=1
        Depth of each tree; 1 = stumps, scikit-learn's default ``estimator``. Replaces
        scikit-learn's ``estimator`` object (the core boosts its own gini trees).
    n_bins : int in 2..256, default=255
        At most this many histogram bins per feature: where every feature repeats at most
        31, 63 or 127 distinct values (each at least twice on average), the fit bins at 32,
        64 or 128 instead (``n_bins_``): the same exact binning and trees, several times
        faster (``jaxclassic.tree.binning.fewest_bins``).
    random_state : None
        Unused (the fit is deterministic); accepted for scikit-learn's signature.

    Attributes
    ----------
    classes_, n_classes_, n_features_in_, feature_names_in_, estimator_weights_,
    estimator_errors_ (length ``n_estimators``: 0 / 1 for rounds not kept, as scikit-learn),
    n_estimators_ (rounds kept), feature_importances_, params_
    (:class:`~jaxclassic.ensemble.AdaBoostParams`)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]]); y = np.array([0, 0, 1, 1, 0, 0])
    >>> AdaBoostClassifier(n_estimators=3).fit(X, y).predict(X).tolist()
    [0, 0, 1, 1, 0, 0]
    """

    _min_bucket = TREE_MIN_BUCKET  # rows: every data set of up to 512 rows shares one program

    def __init__(self, *, n_estimators=50, learning_rate=1.0, max_depth=1, n_bins=255, random_state=None):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.n_bins = n_bins
        self.random_state = random_state

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Boost ``n_estimators`` trees on ``(X, y)``; returns ``self``."""
        n_estimators = _check_int(self.n_estimators, "n_estimators", 1)
        max_depth = _check_int(self.max_depth, "max_depth", 1)
        learning_rate = _check_positive(self.learning_rate, "learning_rate")
        Xj, yj, swj, n = prepare_fit(self, X, y, sample_weight, classifier=True)
        self.n_bins_ = tree_bins(Xj, n, self.n_bins)
        params = E.fit_adaboost(Xj, yj, n_estimators=n_estimators, max_depth=max_depth,
                                learning_rate=learning_rate, n_classes=len(self.classes_),
                                n_bins=self.n_bins_, sample_weight=swj)
        self.params_ = to_host(params)
        self.n_classes_ = len(self.classes_)
        self.estimator_weights_ = np.asarray(params.estimator_weights)
        self.estimator_errors_ = np.asarray(params.estimator_errors)
        self.n_estimators_ = int(params.n_estimators_used)
        self.feature_importances_ = np.asarray(E.feature_importances(params))
        return self

    @dtype_scope
    def decision_function(self, X):
        """scikit-learn's SAMME decision function: ``(n,)`` for two classes, else ``(n, K)``."""
        Xp, n = prepare_predict(self, X)
        return np.asarray(E.decision_function(self.params_, Xp))[:n]

    @dtype_scope
    def predict_proba(self, X):
        """``softmax(f / (K - 1))`` ``(n, K)`` (scikit-learn's)."""
        Xp, n = prepare_predict(self, X)
        return np.asarray(E.predict_proba(self.params_, Xp))[:n]

    def predict_log_proba(self, X):
        """``log(predict_proba(X))``."""
        return _log(self.predict_proba(X))

    @dtype_scope
    def predict(self, X):
        """The class of largest decision value."""
        Xp, n = prepare_predict(self, X)
        return _predict_classes(self, np.asarray(E.predict(self.params_, Xp))[:n])

    @dtype_scope
    def _staged(self, X):
        Xp, n = prepare_predict(self, X)
        return np.asarray(_adaboost.staged_decision_function(self.params_, Xp))[: self.n_estimators_, :n]

    def staged_decision_function(self, X):
        """The decision function after each kept round (a generator, as scikit-learn)."""
        yield from self._staged(X)

    def staged_predict(self, X):
        """Predicted classes after each kept round (a generator, as scikit-learn)."""
        for d in self._staged(X):
            codes = (d > 0).astype(int) if d.ndim == 1 else np.argmax(d, axis=1)
            yield self.classes_[codes]


# --------------------------------------------------------------------------- gradient boosting
_GB_LOSSES = {"squared_error": "squared", "absolute_error": "absolute"}


class _BaseGradientBoosting(BaseEstimator):
    """Shared arguments of the gradient-boosting estimators."""

    _min_bucket = TREE_MIN_BUCKET  # rows: every data set of up to 512 rows shares one program

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _check_hyper(self):
        """The hyperparameters that need no data, checked before the data reach the device
        (nothing is traced or compiled before a bad value raises)."""
        _check_choice(self.criterion, "criterion", {"friedman_mse", "squared_error"})
        if self.init not in (None, "zero"):
            raise ValueError(f"init must be None or 'zero', got {self.init!r}")
        subsample = float(self.subsample)
        if not 0.0 < subsample <= 1.0:
            raise ValueError(f"subsample must be in (0, 1], got {self.subsample!r}")
        return dict(n_estimators=_check_int(self.n_estimators, "n_estimators", 1),
                    learning_rate=_check_positive(self.learning_rate, "learning_rate"),
                    max_depth=_check_int(self.max_depth, "max_depth", 1), subsample=subsample)

    def _core_kwargs(self, n, Xj, hyper):
        """The core fit's keyword arguments: ``hyper`` (:meth:`_check_hyper`, checked before
        the data reached the device) and the rules that need the row count."""
        self.n_bins_ = categorical_bins(tree_bins(Xj, n, self.n_bins), self.n_bins, Xj, self.is_categorical_)
        return dict(
            categorical_features=self.is_categorical_,
            **hyper,
            min_samples_split=_count_or_fraction(self.min_samples_split, "min_samples_split", n, 2),
            min_samples_leaf=_count_or_fraction(self.min_samples_leaf, "min_samples_leaf", n, 1),
            min_weight_fraction_leaf=float(self.min_weight_fraction_leaf),
            min_impurity_decrease=float(self.min_impurity_decrease),
            n_bins=self.n_bins_, init=0.0 if self.init == "zero" else None,
            key=_key(self.random_state) if hyper["subsample"] < 1.0 else None,
        )

    def _validation_rows(self, y, n, classifier):
        """scikit-learn's early-stopping split of the first ``n`` rows: a boolean mask of the
        held-out rows over the padded rows, or None without early stopping."""
        if self.n_iter_no_change is None:
            return None
        _check_int(self.n_iter_no_change, "n_iter_no_change", 1)
        fraction = float(self.validation_fraction)
        if not 0.0 < fraction < 1.0:
            raise ValueError(f"validation_fraction must be in (0, 1), got {self.validation_fraction!r}")
        if not float(self.tol) >= 0:
            raise ValueError(f"tol must be >= 0, got {self.tol!r}")
        from sklearn.model_selection import train_test_split

        codes = np.asarray(y)[:n]
        # the indices scikit-learn's fit draws (it splits X, y, sample_weight the same way)
        train, held_out = train_test_split(np.arange(n), random_state=self.random_state,
                                           test_size=fraction, stratify=codes if classifier else None)
        if classifier and np.unique(codes[train]).shape[0] != len(self.classes_):
            raise ValueError("The training data after the early stopping split is missing some "
                             "classes. Try using another random seed.")
        mask = np.zeros(np.shape(y)[0], bool)
        mask[held_out] = True
        return mask

    def _stop_early(self, params, X, y, sample_weight, held_out, score):
        """Cut ``params`` after the round where scikit-learn's rule stops: the validation score
        must beat one of the last ``n_iter_no_change`` ones by more than ``tol``."""
        rows = np.flatnonzero(held_out)
        stages = np.asarray(_gb.staged_decision_function(params, X))[:, rows]
        w = np.asarray(sample_weight)[rows]
        scores = np.asarray(score(np.asarray(y)[rows], stages, w))  # one per round
        history = np.full(int(self.n_iter_no_change), np.inf)
        n_rounds = len(scores)
        for i, value in enumerate(scores):
            if np.any(value + float(self.tol) < history):
                history[i % len(history)] = value
            else:
                n_rounds = i + 1
                break
        # cut on the host: an eager a[:n_rounds] would lower a program for every n_rounds
        trees, train_loss = B.first_rounds((params.trees, params.train_loss), n_rounds)
        return params._replace(trees=trees, train_loss=train_loss)


def _mean(values, w):
    return jnp.sum(values * w, axis=-1) / jnp.sum(w)


#: scikit-learn's validation scores (its loss times its backward-compatibility factor) of the
#: rounds: raw scores ``(T, n)`` or ``(T, n, K)``, one score per round
_VALIDATION_SCORES = {
    "squared": lambda y, f, w: 2 * _mean(losses.squared(y, f), w),
    "absolute": lambda y, f, w: _mean(losses.absolute(y, f), w),
    "binary": lambda y, f, w: 2 * _mean(losses.log_loss(y, f), w),
    "multinomial": lambda y, f, w: _mean(losses.softmax_cross_entropy(y, f), w),
}


_GB_DOC_PARAMS = """learning_rate : float > 0, default=0.1
    n_estimators : int >= 1, default=100
        Refits with any value of one bucket (1..16, 17..32, 33..64, ...:
        ``jaxclassic.ensemble.bagging.estimator_capacity``) reuse the compiled programs.
    subsample : float in (0, 1], default=1.0
        Share of the rows per round (Bernoulli draws from ``random_state``).
    criterion : {"friedman_mse", "squared_error"}, default="friedman_mse"
        Both give the same splits (the engine's squared-error decrease).
    min_samples_split : int >= 2 or float in (0, 1], default=2
    min_samples_leaf : int >= 1 or float in (0, 1], default=1
    min_weight_fraction_leaf : float, default=0.0
    max_depth : int >= 1, default=3
    min_impurity_decrease : float >= 0, default=0.0
    init : None or "zero", default=None
        None: the loss's constant minimiser; ``"zero"``: raw scores start at 0.
    random_state : int, RandomState or None, default=None
    n_bins : int in 2..256, default=255
        At most this many histogram bins per feature: where every feature repeats at most
        31, 63 or 127 distinct values (each at least twice on average), the fit bins at 32,
        64 or 128 instead (``n_bins_``): the same exact binning and trees, several times
        faster (``jaxclassic.tree.binning.fewest_bins``).
    n_iter_no_change : int >= 1 or None, default=None
        Early stopping, as scikit-learn: hold out ``validation_fraction`` of the rows
        (stratified for the classifier; scikit-learn's ``train_test_split`` with
        ``random_state``) and stop at the first round whose validation score does not beat
        one of the last ``n_iter_no_change`` ones by more than ``tol`` (that round is kept).
    validation_fraction : float in (0, 1), default=0.1
    tol : float >= 0, default=1e-4
    verbose : int >= 0, default=0
        0: silent. ``k > 0``: a tqdm bar of the rounds and a line ``[t]\ttrain-<metric>:<value>``
        every ``k`` rounds and after the last (the mean training loss: rmse, mae, logloss,
        mlogloss), sent from inside the compiled rounds (:mod:`jaxclassic._progress`).
    categorical_features : None, "from_dtype", bool mask, column indices or feature names, default=None
        Features split by sets of categories (the core's ``categorical_features``), as
        scikit-learn's ``HistGradientBoosting*``: ``"from_dtype"`` takes a DataFrame's pandas
        ``category`` columns (a category unseen at fit time is a missing value at prediction);
        other categorical columns hold integer codes below the bin count. None: all numeric."""


class GradientBoostingRegressor(RegressorMixin, _BaseGradientBoosting):
    __doc__ = """Friedman's gradient boosting of regression trees (:func:`jaxclassic.ensemble.fit_gradient_boosting`).

    Equal to scikit-learn's ``GradientBoostingRegressor`` (float64) when every feature has at
    most ``n_bins`` distinct values. NaN in ``X`` goes to the learned side of each split.

    Parameters
    ----------
    loss : {"squared_error", "absolute_error"}, default="squared_error"
    """ + _GB_DOC_PARAMS + """

    Attributes
    ----------
    n_features_in_, feature_names_in_, n_estimators_, init_ (the constant :math:`F_0`),
    train_score_ (scikit-learn's: the mean squared error, or mean absolute error, after each
    round, on all rows), feature_importances_ (scikit-learn's impurity-based ones),
    params_ (:class:`~jaxclassic.ensemble.GradientBoostingParams`)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(6.0)[:, None]; y = np.array([0.0, 0, 0, 2, 2, 2])
    >>> GradientBoostingRegressor(n_estimators=1, learning_rate=1.0, max_depth=1).fit(X, y).predict(X).tolist()
    [0.0, 0.0, 0.0, 2.0, 2.0, 2.0]
    """

    def __init__(self, *, loss="squared_error", learning_rate=0.1, n_estimators=100, subsample=1.0,
                 criterion="friedman_mse", min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, max_depth=3, min_impurity_decrease=0.0, init=None,
                 random_state=None, n_bins=255, n_iter_no_change=None, validation_fraction=0.1,
                 tol=1e-4, verbose=0, categorical_features=None):
        self.categorical_features = categorical_features
        self.verbose = verbose
        self.n_iter_no_change = n_iter_no_change
        self.validation_fraction = validation_fraction
        self.tol = tol
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.subsample = subsample
        self.criterion = criterion
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_depth = max_depth
        self.min_impurity_decrease = min_impurity_decrease
        self.init = init
        self.random_state = random_state
        self.n_bins = n_bins

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Boost ``n_estimators`` trees on ``(X, y)``; returns ``self``."""
        loss = _GB_LOSSES[_check_choice(self.loss, "loss", _GB_LOSSES)]
        hyper = self._check_hyper()
        X = categorical_fit_input(self, X)
        Xj, yj, swj, n = prepare_fit(self, X, y, sample_weight, allow_nan=True)
        kwargs = self._core_kwargs(n, Xj, hyper)
        held_out = self._validation_rows(yj, n, classifier=False)
        fit_weight = swj if held_out is None else jnp.where(jnp.asarray(held_out), 0, swj)
        params = E.fit_gradient_boosting(Xj, yj, loss=loss, sample_weight=fit_weight, verbose=self.verbose,
                                         **kwargs)
        if held_out is not None:
            params = self._stop_early(params, Xj, yj, swj, held_out, _VALIDATION_SCORES[loss])
        self.params_ = to_host(params)
        self.n_estimators_ = int(params.trees.feature.shape[0])
        self.init_ = float(params.init[0])
        # the core's mean loss: 1/2 squared error (scikit-learn reports the squared error)
        self.train_score_ = np.asarray(params.train_loss) * (2 if loss == "squared" else 1)
        self.feature_importances_ = np.asarray(E.feature_importances(params))
        return self

    @dtype_scope
    def predict(self, X):
        """:math:`F_0 + \\eta \\sum_m \\text{tree}_m(x)` ``(n,)``."""
        Xp, n = prepare_predict(self, categorical_predict_input(self, X), allow_nan=True)
        return np.asarray(E.predict(self.params_, Xp))[:n]


class GradientBoostingClassifier(ClassifierMixin, _BaseGradientBoosting):
    __doc__ = """Gradient boosting on the log-loss (:func:`jaxclassic.ensemble.fit_gradient_boosting`,
    ``loss="log_loss"``).

    Two classes: the binomial deviance (one tree a round); more: the multinomial deviance
    (one tree per class a round, Friedman's :math:`(K-1)/K` line search), as scikit-learn's
    ``GradientBoostingClassifier``, equal to it in float64 when every feature has at most
    ``n_bins`` distinct values (up to exactly tied split gains). NaN in ``X`` goes to the
    learned side of each split.

    Parameters
    ----------
    loss : {"log_loss"}, default="log_loss"
    """ + _GB_DOC_PARAMS + """

    Attributes
    ----------
    classes_, n_classes_, n_features_in_, feature_names_in_, n_estimators_, train_score_
    (scikit-learn's, after each round: twice the mean log-loss for two classes, the mean
    cross-entropy for more), feature_importances_ (scikit-learn's impurity-based ones),
    params_ (:class:`~jaxclassic.ensemble.GradientBoostingClassifierParams`)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(8.0)[:, None]; y = np.array(["a"] * 4 + ["b"] * 4)
    >>> GradientBoostingClassifier(n_estimators=5).fit(X, y).predict([[1.0], [6.0]]).tolist()
    ['a', 'b']
    """

    def __init__(self, *, loss="log_loss", learning_rate=0.1, n_estimators=100, subsample=1.0,
                 criterion="friedman_mse", min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, max_depth=3, min_impurity_decrease=0.0, init=None,
                 random_state=None, n_bins=255, n_iter_no_change=None, validation_fraction=0.1,
                 tol=1e-4, verbose=0, categorical_features=None):
        self.categorical_features = categorical_features
        self.verbose = verbose
        self.n_iter_no_change = n_iter_no_change
        self.validation_fraction = validation_fraction
        self.tol = tol
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.subsample = subsample
        self.criterion = criterion
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_depth = max_depth
        self.min_impurity_decrease = min_impurity_decrease
        self.init = init
        self.random_state = random_state
        self.n_bins = n_bins

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Boost on ``(X, y)`` (``K`` trees a round for ``K > 2`` classes); returns ``self``."""
        _check_choice(self.loss, "loss", {"log_loss"})
        hyper = self._check_hyper()
        X = categorical_fit_input(self, X)
        Xj, yj, swj, n = prepare_fit(self, X, y, sample_weight, classifier=True, allow_nan=True)
        kwargs = self._core_kwargs(n, Xj, hyper)
        self.n_classes_ = len(self.classes_)
        held_out = self._validation_rows(yj, n, classifier=True)
        fit_weight = swj if held_out is None else jnp.where(jnp.asarray(held_out), 0, swj)
        params = E.fit_gradient_boosting(Xj, yj, loss="log_loss", n_classes=self.n_classes_,
                                         sample_weight=fit_weight, verbose=self.verbose, **kwargs)
        if held_out is not None:
            score = _VALIDATION_SCORES["binary" if self.n_classes_ == 2 else "multinomial"]
            params = self._stop_early(params, Xj, yj, swj, held_out, score)
        self.params_ = to_host(params)
        self.n_estimators_ = int(params.trees.feature.shape[0])
        # scikit-learn's train_score_: the deviance (2 x mean log-loss) for two classes, the
        # mean cross-entropy for more
        self.train_score_ = np.asarray(params.train_loss) * (2 if self.n_classes_ == 2 else 1)
        self.feature_importances_ = np.asarray(E.feature_importances(params))
        return self

    @dtype_scope
    def decision_function(self, X):
        """Raw scores: the log-odds ``(n,)`` (two classes) or one per class ``(n, K)``."""
        Xp, n = prepare_predict(self, categorical_predict_input(self, X), allow_nan=True)
        return np.asarray(E.decision_function(self.params_, Xp))[:n]

    @dtype_scope
    def predict_proba(self, X):
        """``[1 - σ(F), σ(F)]``, or ``softmax(F)`` for more than two classes."""
        Xp, n = prepare_predict(self, categorical_predict_input(self, X), allow_nan=True)
        return np.asarray(E.predict_proba(self.params_, Xp))[:n]

    def predict_log_proba(self, X):
        """``log(predict_proba(X))``."""
        return _log(self.predict_proba(X))

    def predict(self, X):
        """The class of largest raw score."""
        d = self.decision_function(X)
        codes = (d > 0).astype(int) if d.ndim == 1 else np.argmax(d, axis=1)
        return self.classes_[codes]


# --------------------------------------------------------------------------- XGBoost
_XGB_DOC_PARAMS = """n_estimators : int >= 1, default=100
        Refits with any value of one bucket (1..16, 17..32, 33..64, ...:
        ``jaxclassic.ensemble.bagging.estimator_capacity``) reuse the compiled programs.
    learning_rate : float > 0, default=0.3
    max_depth : int >= 1, default=6
    reg_lambda, reg_alpha : float >= 0, default=1.0, 0.0
        L2 and L1 penalties of the leaf weights.
    gamma : float >= 0, default=0.0
        ``min_split_loss``.
    min_child_weight : float >= 0, default=1.0
    subsample, colsample_bytree : float in (0, 1], default=1.0
        Rows per round, features per tree (drawn from ``random_state``).
    max_bin : int in 2..256, default=256
        xgboost's ``max_bin``: the features are binned at xgboost's own cut points (its
        weighted quantile sketch, :mod:`jaxclassic.ensemble._xgb_cuts`), so splits and the
        routing of new rows are xgboost's. An upper bound: where every feature repeats at
        most 31, 63 or 127 distinct values (each at least twice on average), the fit uses 32,
        64 or 128 (``max_bin_``), where xgboost's cuts are every value all the same.
    base_score : float, optional
        Intercept (a probability for a binary classifier); None: estimated from the data.
    early_stopping_rounds : int >= 1, optional
        Patience on the loss of ``eval_set`` (passed to ``fit``).
    importance_type : {"gain", "weight", "cover", "total_gain", "total_cover"}, default="gain"
        What ``feature_importances_`` reports (normalised to sum 1).
    random_state : int, RandomState or None, default=None
    n_jobs : int or None, default=None
        CPU cores the fit may use, as CPU devices (:mod:`jaxclassic._cores`: each builds the
        histograms of a block of the rows, from ``jaxclassic._cores.MIN_ROWS`` rows): at most
        ``min(n_jobs, devices present)``; ``-1`` all present; None no cap. JAX has one CPU
        device unless :func:`jaxclassic.distributed.use_cpu_cores` was called before its first
        computation; asking for more than are present warns and uses those.
    categorical_features : None, "from_dtype", bool mask, column indices or feature names, default=None
        Features split by sets of categories (the core's ``categorical_features``), as
        scikit-learn's ``HistGradientBoosting*``: ``"from_dtype"`` takes a DataFrame's pandas
        ``category`` columns (a category unseen at fit time is a missing value at prediction);
        other categorical columns hold integer codes below the bin count. None: all numeric.

    ``fit(..., verbose=...)``, as xgboost's: ``True`` or ``k``: a tqdm bar of the rounds and a
    line ``[t]\ttrain-<metric>:<value>\tvalid-<metric>:<value>`` (rmse, logloss, mlogloss;
    ``valid-`` with an ``eval_set``) every round or every ``k`` rounds and after the last, sent
    from inside the compiled rounds (:mod:`jaxclassic._progress`)."""


class _BaseXGBoost(BaseEstimator):
    """Shared fit of the XGBoost estimators."""

    _min_bucket = TREE_MIN_BUCKET  # rows: every data set of up to 512 rows shares one program
    _metric: str

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _eval_data(self, eval_set, sample_weight_eval_set, classifier):
        if eval_set is None:
            return None
        if isinstance(eval_set, tuple):
            eval_set = [eval_set]
        if len(eval_set) != 1:
            raise ValueError(f"eval_set must hold one (X, y) pair (the core monitors one set), got {len(eval_set)}")
        Xe, ye = eval_set[0]
        Xe = validate_data(self, categorical_predict_input(self, Xe), dtype=[np.float64, np.float32],
                           ensure_all_finite="allow-nan", reset=False).astype(fitted_dtype(self), copy=False)
        ye = np.asarray(ye).reshape(-1)
        if classifier:
            codes = np.searchsorted(self.classes_, ye)
            if (codes >= len(self.classes_)).any() or (self.classes_[np.minimum(codes, len(self.classes_) - 1)]
                                                       != ye).any():
                raise ValueError("eval_set y holds labels not seen in y")
            ye = codes.astype(np.int32)
        else:
            ye = ye.astype(fitted_dtype(self))
        we = None if sample_weight_eval_set is None else sample_weight_eval_set[0]
        we = np.ones(len(ye), fitted_dtype(self)) if we is None else np.asarray(we, fitted_dtype(self))
        Xe, ye, we = pad_rows(Xe, ye, we, _n_padded(Xe, self._min_bucket))
        return to_core(Xe, ye, we)

    def _fit(self, X, y, sample_weight, eval_set, sample_weight_eval_set, classifier, verbose=False):
        _cores.check_n_jobs(self.n_jobs)  # before the data reach the device
        X = categorical_fit_input(self, X)
        Xj, yj, swj, n = prepare_fit(self, X, y, sample_weight, classifier=classifier, allow_nan=True)
        if self.early_stopping_rounds is not None and eval_set is None:
            raise ValueError("early_stopping_rounds needs an eval_set passed to fit")
        if classifier:
            self.n_classes_ = len(self.classes_)
            loss = "log_loss" if self.n_classes_ == 2 else "softmax"
            self._metric = "logloss" if self.n_classes_ == 2 else "mlogloss"
        else:
            loss = "squared"
            self._metric = "rmse"
        evals = self._eval_data(eval_set, sample_weight_eval_set, classifier)
        subsample, colsample = float(self.subsample), float(self.colsample_bytree)
        self.max_bin_ = categorical_bins(tree_bins(Xj, n, self.max_bin), self.max_bin, Xj, self.is_categorical_)
        with _cores.limit_devices(self.n_jobs):
            params = E.fit_xgboost(
                Xj, yj, loss=loss, n_estimators=_check_int(self.n_estimators, "n_estimators", 1),
                learning_rate=_check_positive(self.learning_rate, "learning_rate"),
                max_depth=_check_int(self.max_depth, "max_depth", 1), reg_lambda=float(self.reg_lambda),
                reg_alpha=float(self.reg_alpha), gamma=float(self.gamma),
                min_child_weight=float(self.min_child_weight), subsample=subsample, colsample_bytree=colsample,
                max_bin=self.max_bin_, base_score=self.base_score,
                n_classes=self.n_classes_ if classifier and self.n_classes_ > 2 else None,
                eval_set=evals, early_stopping_rounds=self.early_stopping_rounds, sample_weight=swj,
                key=_key(self.random_state) if subsample < 1 or colsample < 1 else None, verbose=verbose,
                categorical_features=self.is_categorical_)
        self.params_ = to_host(params)
        self.n_iter_ = int(params.n_iter)
        self.best_iteration_ = int(params.best_iteration)
        self.feature_importances_ = np.asarray(E.feature_importances(params, importance_type=self.importance_type))
        self._evals = None
        if evals is not None:
            loss_values = np.asarray(params.eval_loss)[: self.n_iter_]
            # the core's mean loss: 1/2 squared error (rmse = sqrt(2 loss)), the log-loss as is
            metric = np.sqrt(2 * loss_values) if self._metric == "rmse" else loss_values
            self._evals = {"validation_0": {self._metric: metric.tolist()}}
            self.best_score_ = float(metric[self.best_iteration_])
        return self

    @property
    def best_iteration(self):
        """Last round used by predictions (xgboost's name; ``best_iteration_``)."""
        check_is_fitted(self)
        return self.best_iteration_

    def evals_result(self):
        """xgboost's ``{"validation_0": {metric: [per round]}}`` of the ``eval_set`` (rmse, logloss
        or mlogloss, for the rounds run)."""
        check_is_fitted(self)
        if self._evals is None:
            raise ValueError("No evaluation result, `eval_set` is not used during training.")
        return {k: {m: list(v) for m, v in d.items()} for k, d in self._evals.items()}

    @dtype_scope
    def _core(self, fn, X):
        Xp, n = prepare_predict(self, categorical_predict_input(self, X), allow_nan=True)
        return np.asarray(fn(self.params_, Xp))[:n]


class XGBoostRegressor(RegressorMixin, _BaseXGBoost):
    __doc__ = """XGBoost regression (squared error, :func:`jaxclassic.ensemble.fit_xgboost`) with
    xgboost's scikit-learn API names (``XGBRegressor``).

    Second-order boosting of level-wise histogram trees, binned at xgboost's cut points; NaN in
    ``X`` goes to the learned side of each split. Predictions equal ``XGBRegressor``'s
    (``tree_method="hist"``, same hyperparameters) to float32 rounding, new rows included,
    except where two splits' gains tie within it (:mod:`jaxclassic.ensemble.xgboost`, "Parity").

    Parameters
    ----------
    """ + _XGB_DOC_PARAMS + """

    Attributes
    ----------
    n_features_in_, feature_names_in_, n_iter_ (rounds run), best_iteration_ (also
    ``best_iteration``), best_score_ (with an ``eval_set``), feature_importances_, params_
    (:class:`~jaxclassic.ensemble.XGBoostParams`); ``evals_result()``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(8.0)[:, None]; y = np.array([0.0, 0, 0, 0, 1, 1, 1, 1])
    >>> model = XGBoostRegressor(n_estimators=1, learning_rate=1.0, max_depth=1, reg_lambda=0.0,
    ...                          min_child_weight=0.0, base_score=0.5).fit(X, y)
    >>> model.predict(X).tolist()
    [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    """

    def __init__(self, *, n_estimators=100, learning_rate=0.3, max_depth=6, reg_lambda=1.0, reg_alpha=0.0,
                 gamma=0.0, min_child_weight=1.0, subsample=1.0, colsample_bytree=1.0, max_bin=256,
                 base_score=None, early_stopping_rounds=None, importance_type="gain", random_state=None,
                 n_jobs=None, categorical_features=None):
        self.categorical_features = categorical_features
        self.n_jobs = n_jobs
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.reg_lambda = reg_lambda
        self.reg_alpha = reg_alpha
        self.gamma = gamma
        self.min_child_weight = min_child_weight
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.max_bin = max_bin
        self.base_score = base_score
        self.early_stopping_rounds = early_stopping_rounds
        self.importance_type = importance_type
        self.random_state = random_state

    @dtype_scope
    def fit(self, X, y, *, sample_weight=None, eval_set=None, sample_weight_eval_set=None, verbose=False):
        """Boost on ``(X, y)``; ``eval_set=[(X_val, y_val)]`` is monitored (``evals_result()``)
        and drives ``early_stopping_rounds``; ``verbose`` (``True`` or ``k``) prints xgboost's eval lines
        (class docstring). Returns ``self``."""
        return self._fit(X, y, sample_weight, eval_set, sample_weight_eval_set, classifier=False, verbose=verbose)

    def predict(self, X):
        """The raw score (trees up to ``best_iteration``), ``(n,)``."""
        return self._core(E.predict, X)


class XGBoostClassifier(ClassifierMixin, _BaseXGBoost):
    __doc__ = """XGBoost classification (:func:`jaxclassic.ensemble.fit_xgboost`: ``binary:logistic``
    for two classes, ``multi:softprob`` for more) with xgboost's scikit-learn API names
    (``XGBClassifier``); labels of any type (``classes_``).

    Parameters
    ----------
    """ + _XGB_DOC_PARAMS + """

    Attributes
    ----------
    classes_, n_classes_, n_features_in_, feature_names_in_, n_iter_, best_iteration_,
    best_score_, feature_importances_, params_ (:class:`~jaxclassic.ensemble.XGBoostClassifierParams`);
    ``evals_result()``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(8.0)[:, None]; y = np.array(["a"] * 4 + ["b"] * 4)
    >>> XGBoostClassifier(n_estimators=3).fit(X, y).predict([[1.0], [6.0]]).tolist()
    ['a', 'b']
    """

    def __init__(self, *, n_estimators=100, learning_rate=0.3, max_depth=6, reg_lambda=1.0, reg_alpha=0.0,
                 gamma=0.0, min_child_weight=1.0, subsample=1.0, colsample_bytree=1.0, max_bin=256,
                 base_score=None, early_stopping_rounds=None, importance_type="gain", random_state=None,
                 n_jobs=None, categorical_features=None):
        self.categorical_features = categorical_features
        self.n_jobs = n_jobs
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.reg_lambda = reg_lambda
        self.reg_alpha = reg_alpha
        self.gamma = gamma
        self.min_child_weight = min_child_weight
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.max_bin = max_bin
        self.base_score = base_score
        self.early_stopping_rounds = early_stopping_rounds
        self.importance_type = importance_type
        self.random_state = random_state

    @dtype_scope
    def fit(self, X, y, *, sample_weight=None, eval_set=None, sample_weight_eval_set=None, verbose=False):
        """Boost on ``(X, y)`` (``eval_set`` as :meth:`XGBoostRegressor.fit`); returns ``self``."""
        return self._fit(X, y, sample_weight, eval_set, sample_weight_eval_set, classifier=True, verbose=verbose)

    def predict_proba(self, X):
        """Class probabilities ``(n, n_classes)`` in ``classes_`` order."""
        return self._core(E.predict_proba, X)

    def predict_log_proba(self, X):
        """``log(predict_proba(X))``."""
        return _log(self.predict_proba(X))

    def predict(self, X):
        """The class of largest probability."""
        proba = self.predict_proba(X)  # checks fitted before classes_ is read
        return self.classes_[np.argmax(proba, axis=1)]
