"""scikit-learn-compatible decision trees: CART (classification, regression), ID3 and C4.5.

Thin wrappers over :mod:`jaxclassic.tree`: they validate and encode the input, pad the rows to
a shape bucket with zero weights (refits of nearby sizes reuse one compiled program), call the
functional fit and store its params (``params_``) and scikit-learn's fitted attributes. The
maths lives in the core.

Missing values: the CART estimators and ``C45Classifier`` accept NaN in ``X`` (scikit-learn's
``ensure_all_finite="allow-nan"``, tag ``allow_nan``), as scikit-learn's trees do since 1.3:
CART sends NaN to the learned side of each split (``missing_left``), C4.5 down every branch
with its training fractions (Quinlan). ``inf`` is an error. ``ID3Classifier`` takes
non-negative integer category codes (cast to int like ``CategoricalNB``, so floats are
truncated) and no NaN.

Differences from scikit-learn, documented on the classes:

* CART splits are searched over histogram bins (``n_bins``, default 255): with at most
  ``n_bins`` distinct values per feature the binning is exact and the tree equals
  scikit-learn's (up to ties in the gain), thresholds included (the midpoints of the node's
  adjacent values; in float32 the float32 just below scikit-learn's float64 number), so new
  rows are predicted alike; with more, the splits are on quantile bins
  (:mod:`jaxclassic.tree.cart`, "Split points"). ``criterion="log_loss"`` is ``"entropy"``;
  ``"misclassification"`` is extra; the regressor has ``"squared_error"`` only. No
  ``splitter``, ``max_leaf_nodes``, ``monotonic_cst``, multi-output ``y`` or sparse ``X``.
  ``max_features`` draws per node without scikit-learn's redraw of constant features. ``params_`` (a
  :class:`~jaxclassic.tree.ClassificationTree` / ``RegressionTree``) replaces ``tree_``;
  ``apply`` returns its node slots.
* ``y`` with a single class is an error (scikit-learn fits a one-leaf tree).
* ``ID3Classifier`` and ``C45Classifier`` have no scikit-learn counterpart; their
  ``feature_importances_`` are the normalised total weighted information gain of their splits
  per feature (:func:`jaxclassic.tree.feature_importances`).
"""

from __future__ import annotations

import numpy as np

from jaxclassic.estimators._parity import apply_class_weight
from jaxclassic.estimators._base import (
    TREE_MIN_BUCKET,
    BaseEstimator,
    tree_bins,
    ClassifierMixin,
    RegressorMixin,
    bucket_size,
    check_is_fitted,
    compute_dtype,
    dtype_scope,
    encode_labels,
    enter_dtype,
    fit_sample_weight,
    fitted_dtype,
    pad_rows,
    prepare_fit,
    prepare_predict,
    start_fit,
    to_host,
    validate_data,
)
from jaxclassic.tree import _api
from jaxclassic.tree.c45 import apply_c45, fit_c45, predict_proba_c45
from jaxclassic.tree.cart import feature_importances_host, fit_cart
from jaxclassic.tree.id3 import apply_id3, fit_id3, predict_proba_id3
from jaxclassic.tree.pruning import cost_complexity_path, prune
from jaxclassic.validation import check_bool, key_from_seed

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "ID3Classifier", "C45Classifier"]

_CLASSIFICATION_CRITERIA = {"gini": "gini", "entropy": "entropy", "log_loss": "entropy",
                            "misclassification": "misclassification"}
_REGRESSION_CRITERIA = {"squared_error": "squared_error"}


# --------------------------------------------------------------------------- input
def _check_choice(value, name, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}, got {value!r}")
    return value


def _check_max_depth(max_depth, low):
    if max_depth is None:
        return None
    if isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) or max_depth < low:
        raise ValueError(f"max_depth must be None or an int >= {low}, got {max_depth!r}")
    return int(max_depth)


def _count_or_fraction(value, name, n_samples, low):
    """scikit-learn's int-or-fraction rule: an int ``>= low`` as is, a float in (0, 1] as
    ``ceil(value * n_samples)`` (at least ``low``)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if value < low:
            raise ValueError(f"{name} must be an int >= {low} or a float in (0, 1], got {value!r}")
        return int(value)
    if isinstance(value, (float, np.floating)) and 0.0 < value <= 1.0:
        return max(low, int(np.ceil(value * n_samples)))
    raise ValueError(f"{name} must be an int >= {low} or a float in (0, 1], got {value!r}")


def _max_features(max_features, n_features):
    """scikit-learn's ``max_features_``: the number of features drawn per node."""
    if max_features is None:
        return n_features
    if max_features in ("sqrt", "log2"):
        f = np.sqrt if max_features == "sqrt" else np.log2
        return max(1, int(f(n_features)))
    if isinstance(max_features, (int, np.integer)) and not isinstance(max_features, bool):
        if not 1 <= max_features <= n_features:
            raise ValueError(f"max_features must be in [1, n_features={n_features}], got {max_features}")
        return int(max_features)
    if isinstance(max_features, (float, np.floating)) and 0.0 < max_features <= 1.0:
        return max(1, int(max_features * n_features))
    raise ValueError("max_features must be None, an int, a float in (0, 1], 'sqrt' or 'log2', "
                     f"got {max_features!r}")


def _depth(children) -> int:
    """Depth of a tree from its child table ``(M, K)`` (parents numbered before children)."""
    children = np.asarray(children)
    depth = np.zeros(children.shape[0], np.int64)
    for t in range(children.shape[0]):
        kids = children[t][children[t] >= 0]
        depth[kids] = depth[t] + 1
    return int(depth.max()) if depth.size else 0


# --------------------------------------------------------------------------- categories
def _is_frame(X) -> bool:
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


def categorical_fit_input(estimator, X):
    """``X`` with its categorical columns as category codes, and the estimator's
    ``is_categorical_`` (``(n_features,)`` bool, or None when no feature is categorical).

    ``estimator.categorical_features`` as scikit-learn's ``HistGradientBoosting*``: None, a
    bool mask, column indices, feature names (a DataFrame's columns) or ``"from_dtype"`` (the
    pandas ``category`` columns of a DataFrame; none of an array). A pandas ``category``
    column becomes its integer codes (NaN for a missing value) and its categories are kept
    (``_categories``) to code new data alike; another categorical column must hold integer
    codes ``0..n_bins - 1`` already (:func:`jaxclassic.tree.binning.categorical_codes`).
    """
    spec = getattr(estimator, "categorical_features", None)
    estimator._categories = {}
    estimator.is_categorical_ = None
    if spec is None:  # nothing read from X: scikit-learn's validation reports bad input
        return X
    frame = _is_frame(X)
    n_features = X.shape[1] if hasattr(X, "shape") and len(np.shape(X)) == 2 else None
    if n_features is None:
        return X
    if isinstance(spec, str):
        if spec != "from_dtype":
            raise ValueError(f"categorical_features must be None, 'from_dtype', a bool mask, column indices or "
                             f"feature names, got {spec!r}")
        if not frame:
            estimator.is_categorical_ = None
            return X
        import pandas as pd

        mask = np.array([isinstance(d, pd.CategoricalDtype) for d in X.dtypes])
    else:
        named = frame and np.asarray(spec).dtype.kind in "USO"
        if named:
            estimator.feature_names_in_ = np.asarray(X.columns, dtype=object)
        mask = _categorical_mask(spec, estimator, n_features)
        if named:
            del estimator.feature_names_in_
    if not mask.any():
        estimator.is_categorical_ = None
        return X
    estimator.is_categorical_ = mask
    if not frame:
        return X
    X = X.copy()
    for j in np.flatnonzero(mask):
        col = X.iloc[:, j]
        if hasattr(col, "cat"):
            estimator._categories[int(j)] = col.cat.categories.tolist()  # plain values: a model file holds them
            X.isetitem(int(j), _codes(col.cat.codes))
    return X


def _codes(codes):
    codes = np.asarray(codes, np.float64)
    return np.where(codes < 0, np.nan, codes)


def categorical_predict_input(estimator, X):
    """New ``X`` with the fit's ``category`` columns coded by the categories seen at fit time;
    a category unseen then becomes NaN (missing: routed where each node sends missing values,
    as scikit-learn's ``HistGradientBoosting``)."""
    categories = getattr(estimator, "_categories", None)
    if not categories or not _is_frame(X):
        return X
    import pandas as pd

    X = X.copy()
    for j, cats in categories.items():
        cats = pd.Index(cats)
        col = X.iloc[:, j]
        values = col.astype(object) if hasattr(col, "cat") else col
        X.isetitem(j, _codes(cats.get_indexer(values)))  # -1: unseen or missing
    return X


def categorical_bins(n_bins_data: int, n_bins: int, Xj, mask) -> int:
    """The bins of a fit with categorical features: the data's bucket (``tree_bins``), raised
    to the smallest of 32, 64, 128, ``n_bins`` above the largest category code (a code must
    be below the bin count; a code too large for ``n_bins`` is reported by the core)."""
    if mask is None:
        return n_bins_data
    cols = np.asarray(Xj)[:, np.flatnonzero(mask)]
    top = int(np.nanmax(np.where(cols >= 0, cols, -1), initial=-1)) + 1 if cols.size else 0
    for b in (32, 64, 128, n_bins):
        if b >= max(top, n_bins_data) and b <= n_bins:
            return b
    return n_bins


# --------------------------------------------------------------------------- CART
class _BaseCART(BaseEstimator):
    """Shared fit / apply / pruning of the CART estimators."""

    _min_bucket = TREE_MIN_BUCKET  # rows: every data set of up to 512 rows shares one program
    _task: str
    _criteria: dict

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _fit(self, X, y, sample_weight, classifier):
        criterion = _CLASSIFICATION_CRITERIA if classifier else _REGRESSION_CRITERIA
        criterion = criterion[_check_choice(self.criterion, "criterion", criterion)]
        max_depth = _check_max_depth(self.max_depth, 1)
        if not float(self.ccp_alpha) >= 0:
            raise ValueError(f"ccp_alpha must be >= 0, got {self.ccp_alpha!r}")
        X = categorical_fit_input(self, X)
        Xj, yj, swj, n = prepare_fit(self, X, y, sample_weight, classifier=classifier, allow_nan=True)
        if classifier and self.class_weight is not None:
            import jax

            swj = jax.device_put(apply_class_weight(self.class_weight, self.classes_, yj, swj))
        n_features = Xj.shape[1]
        min_samples_split = _count_or_fraction(self.min_samples_split, "min_samples_split", n, 2)
        min_samples_leaf = _count_or_fraction(self.min_samples_leaf, "min_samples_leaf", n, 1)
        self.max_features_ = _max_features(self.max_features, n_features)
        key = None
        if self.max_features_ < n_features:
            import jax
            from sklearn.utils import check_random_state

            seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
            key = key_from_seed(seed)
        self.n_bins_ = categorical_bins(tree_bins(Xj, n, self.n_bins), self.n_bins, Xj, self.is_categorical_)
        params = fit_cart(
            Xj, yj, task="classification" if classifier else "regression", criterion=criterion,
            max_depth=max_depth, min_samples_split=min_samples_split,
            min_samples_leaf=min(min_samples_leaf, Xj.shape[0]),
            min_weight_fraction_leaf=float(self.min_weight_fraction_leaf),
            min_impurity_decrease=float(self.min_impurity_decrease),
            max_features=None if key is None else self.max_features_, n_bins=self.n_bins_,
            sample_weight=swj, key=key,
            n_classes=len(self.classes_) if classifier else None, categorical_features=self.is_categorical_,
        )
        if float(self.ccp_alpha) > 0:
            params = prune(params, float(self.ccp_alpha))
        self.params_ = to_host(params)
        self.feature_importances_ = feature_importances_host(self.params_)
        self.n_outputs_ = 1
        return self

    @dtype_scope
    def apply(self, X):
        """Index of the leaf (node slot of ``params_``) each row ends in, ``(n,)``."""
        Xp, n = prepare_predict(self, categorical_predict_input(self, X), allow_nan=True)
        return np.asarray(_api.apply(self.params_, Xp))[:n].astype(np.intp)

    @dtype_scope
    def _leaf_values(self, X):
        Xp, n = prepare_predict(self, categorical_predict_input(self, X), allow_nan=True)
        leaves = np.asarray(_api.apply(self.params_, Xp))[:n]
        return self.params_.value[leaves]

    def get_depth(self):
        """Depth of the tree (a single leaf: 0)."""
        check_is_fitted(self)
        p = self.params_
        return _depth(np.stack([p.children_left, p.children_right], axis=1))

    def get_n_leaves(self):
        """Number of leaves of the tree."""
        check_is_fitted(self)
        return int(np.asarray(self.params_.is_leaf).sum())

    @dtype_scope
    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """The minimal cost-complexity pruning path of the tree grown on ``(X, y)``
        (:func:`jaxclassic.tree.pruning.cost_complexity_path`).

        Returns a ``Bunch`` with ``ccp_alphas`` and ``impurities`` (numpy, the fit's dtype),
        as scikit-learn's.
        """
        from sklearn.base import clone
        from sklearn.utils import Bunch

        full = clone(self).set_params(ccp_alpha=0.0).fit(X, y, sample_weight)
        enter_dtype(fitted_dtype(full))
        path = cost_complexity_path(full.params_)
        return Bunch(ccp_alphas=np.asarray(path.ccp_alphas), impurities=np.asarray(path.impurities))


class DecisionTreeClassifier(ClassifierMixin, _BaseCART):
    """CART classification tree (:func:`jaxclassic.tree.fit_cart`, ``task="classification"``).

    Splits of largest weighted impurity decrease, searched over ``n_bins`` histogram bins per
    feature (exact, and scikit-learn's tree, when a feature has at most ``n_bins`` distinct
    values). NaN in ``X`` goes to the learned side of each split.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss", "misclassification"}, default="gini"
        ``"log_loss"`` is ``"entropy"`` (scikit-learn's alias).
    max_depth : int >= 1 or None, default=None
    min_samples_split : int >= 2 or float in (0, 1], default=2
    min_samples_leaf : int >= 1 or float in (0, 1], default=1
    min_weight_fraction_leaf : float in [0, 0.5], default=0.0
    max_features : int, float, "sqrt", "log2" or None, default=None
        Features drawn at random per node (from ``random_state``).
    random_state : int, RandomState or None, default=None
        Used only when ``max_features`` draws fewer than all features.
    min_impurity_decrease : float >= 0, default=0.0
    ccp_alpha : float >= 0, default=0.0
        Minimal cost-complexity pruning after growth (:func:`jaxclassic.tree.pruning.prune`).
    n_bins : int in 2..256, default=255
        Histogram bins of non-missing values per feature.
        At most this many histogram bins per feature: where every feature repeats at most
        31, 63 or 127 distinct values (each at least twice on average), the fit bins at 32,
        64 or 128 instead (``n_bins_``): the same exact binning and trees, several times
        faster (``jaxclassic.tree.binning.fewest_bins``).
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying ``sample_weight`` row by row (scikit-learn's meaning;
        :func:`jaxclassic.estimators._parity.apply_class_weight`: ``"balanced"`` from the
        weighted class counts, scikit-learn's from the unweighted ones, the same without
        ``sample_weight``).
    categorical_features : None, "from_dtype", bool mask, column indices or feature names, default=None
        Features split by sets of categories (:func:`jaxclassic.tree.fit_cart`), as
        scikit-learn's ``HistGradientBoostingClassifier``: ``"from_dtype"`` takes a
        DataFrame's pandas ``category`` columns (coded by their categories; a category unseen
        at fit time is a missing value at prediction); other categorical columns hold integer
        codes ``0..n_bins - 1``. None (scikit-learn's trees have no such parameter): all numeric.

    Attributes
    ----------
    classes_, n_classes_, n_features_in_, feature_names_in_, max_features_, n_outputs_,
    feature_importances_, params_ (:class:`~jaxclassic.tree.ClassificationTree`),
    is_categorical_ ((n_features,) bool or None)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array(["a", "a", "b", "b"])
    >>> tree = DecisionTreeClassifier().fit(X, y)
    >>> tree.predict([[0.5], [2.5]]).tolist(), tree.get_depth(), tree.get_n_leaves()
    (['a', 'b'], 1, 2)
    """

    def __init__(self, *, criterion="gini", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0, max_features=None,
                 random_state=None, min_impurity_decrease=0.0, ccp_alpha=0.0, n_bins=255,
                 class_weight=None, categorical_features=None):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.n_bins = n_bins
        self.class_weight = class_weight
        self.categorical_features = categorical_features

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Grow the tree on ``(X, y)`` (rows weighted by ``sample_weight``); returns ``self``."""
        self._fit(X, y, sample_weight, classifier=True)
        self.n_classes_ = len(self.classes_)
        return self

    def predict_proba(self, X):
        """Class fractions of each row's leaf, ``(n, n_classes)`` in ``classes_`` order."""
        return self._leaf_values(X)

    def predict_log_proba(self, X):
        """``log(predict_proba(X))`` (``-inf`` for a class absent from the leaf)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """The class of largest fraction in each row's leaf (first on ties, as scikit-learn)."""
        proba = self.predict_proba(X)  # checks fitted before classes_ is read
        return self.classes_[np.argmax(proba, axis=1)]


class DecisionTreeRegressor(RegressorMixin, _BaseCART):
    """CART regression tree (:func:`jaxclassic.tree.fit_cart`, ``task="regression"``).

    Splits of largest decrease of the weighted squared error, searched over ``n_bins``
    histogram bins per feature; leaves predict the weighted mean. NaN in ``X`` goes to the
    learned side of each split.

    Parameters
    ----------
    criterion : {"squared_error"}, default="squared_error"
    max_depth, min_samples_split, min_samples_leaf, min_weight_fraction_leaf, max_features,
    random_state, min_impurity_decrease, ccp_alpha, n_bins, categorical_features
        As :class:`DecisionTreeClassifier`.

    Attributes
    ----------
    n_features_in_, feature_names_in_, max_features_, n_outputs_, feature_importances_,
    params_ (:class:`~jaxclassic.tree.RegressionTree`)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([1.0, 1.0, 5.0, 5.0])
    >>> DecisionTreeRegressor(max_depth=1).fit(X, y).predict([[0.2], [2.8]]).tolist()
    [1.0, 5.0]
    """

    def __init__(self, *, criterion="squared_error", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0, max_features=None,
                 random_state=None, min_impurity_decrease=0.0, ccp_alpha=0.0, n_bins=255,
                 categorical_features=None):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.n_bins = n_bins
        self.categorical_features = categorical_features

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Grow the tree on ``(X, y)`` (rows weighted by ``sample_weight``); returns ``self``."""
        return self._fit(X, y, sample_weight, classifier=False)

    def predict(self, X):
        """The weighted mean target of each row's leaf, ``(n,)``."""
        return self._leaf_values(X)[:, 0]


# --------------------------------------------------------------------------- ID3
class ID3Classifier(ClassifierMixin, BaseEstimator):
    """ID3: multiway tree on categorical features by information gain (:func:`jaxclassic.tree.fit_id3`).

    ``X`` holds non-negative integer category codes ``0..255`` (cast to int like
    ``CategoricalNB``: floats are truncated; no NaN). Categories per feature: ``max + 1`` of
    the training codes. A split has one branch per category; a branch no training row
    reaches predicts its parent's class fractions, and a category unseen in training stops the
    row at the node that tests it (that node's class fractions).

    Parameters
    ----------
    max_depth : int >= 0 or None, default=None
        Deepest level of a split's children (root depth 0); None: unlimited.
    min_samples_split : int >= 2, default=2
        A node with fewer rows of positive weight is a leaf.

    Attributes
    ----------
    classes_, n_classes_, n_categories_, n_features_in_, feature_importances_ (normalised
    total weighted information gain per feature), params_ (:class:`~jaxclassic.tree.ID3Params`)

    Examples
    --------
    >>> from jaxclassic.datasets import load_play_tennis
    >>> tennis = load_play_tennis()
    >>> X, y, names = tennis.data, tennis.target, tennis.feature_names
    >>> tree = ID3Classifier().fit(X, y)
    >>> names[int(tree.params_.feature[0])], tree.get_depth(), tree.get_n_leaves()
    ('outlook', 2, 5)
    """

    _min_bucket = TREE_MIN_BUCKET  # rows: every data set of up to 512 rows shares one program

    def __init__(self, *, max_depth=None, min_samples_split=2):
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.positive_only = True
        return tags

    @staticmethod
    def _check_codes(X):
        if X.size and X.min() < 0:
            raise ValueError("Negative values in data passed to ID3Classifier (input X): category "
                             f"codes must be >= 0, got {X.min()}")

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Grow the tree on the category codes ``X`` (rows weighted by ``sample_weight``)."""
        max_depth = _check_max_depth(self.max_depth, 0)
        try:
            X, y = validate_data(self, X, y, dtype="int", reset=True)
        except ValueError as exc:  # numpy's int() of a word names the word, not X
            if "invalid literal for int()" not in str(exc):
                raise
            raise ValueError(f"X must hold integer category codes for ID3Classifier: {exc}") from None
        self._check_codes(X)
        codes = encode_labels(self, y)
        dtype = start_fit(self, compute_dtype(np.float64))  # counts: float64 unless forced
        sw = fit_sample_weight(sample_weight, X, dtype)
        n = X.shape[0]
        Xp, yp, swp = pad_rows(X.astype(np.int32), codes, sw, bucket_size(n, self._min_bucket))
        params = fit_id3(Xp, yp, n_classes=len(self.classes_), sample_weight=swp,
                         max_depth=max_depth, min_samples_split=self.min_samples_split)
        self.params_ = to_host(params)
        self.feature_importances_ = np.asarray(_api.feature_importances(params))
        self.n_classes_ = len(self.classes_)
        self.n_categories_ = np.asarray(params.n_categories, dtype=np.int64)
        return self

    @dtype_scope
    def _node_of(self, X, proba):
        check_is_fitted(self)
        X = validate_data(self, X, dtype="int", reset=False)
        self._check_codes(X)
        enter_dtype(fitted_dtype(self))
        n = X.shape[0]
        Xp, _, _ = pad_rows(X.astype(np.int32), None, np.ones(n), bucket_size(n, self._min_bucket))
        fn = predict_proba_id3 if proba else apply_id3
        return np.asarray(fn(self.params_, Xp))[:n]

    def apply(self, X):
        """Node index where each row stops (its leaf, or the node of an unseen category)."""
        return self._node_of(X, proba=False).astype(np.intp)

    def predict_proba(self, X):
        """Class fractions of the node where each row stops, ``(n, n_classes)``."""
        return self._node_of(X, proba=True)

    def predict_log_proba(self, X):
        """``log(predict_proba(X))``."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """The class of largest fraction (first on ties)."""
        proba = self.predict_proba(X)  # checks fitted before classes_ is read
        return self.classes_[np.argmax(proba, axis=1)]

    def get_depth(self):
        """Depth of the tree (a single leaf: 0)."""
        check_is_fitted(self)
        return int(np.asarray(self.params_.depth).max())

    def get_n_leaves(self):
        """Number of leaves (empty branches included)."""
        check_is_fitted(self)
        return int(np.asarray(self.params_.is_leaf).sum())


# --------------------------------------------------------------------------- C4.5
def _categorical_mask(categorical_features, estimator, n_features):
    """A bool mask of the columns from None, a bool mask, column indices or feature names."""
    if categorical_features is None:
        return np.zeros(n_features, bool)
    spec = np.asarray(categorical_features)
    if spec.dtype == bool:
        if spec.shape != (n_features,):
            raise ValueError(f"categorical_features as a mask must have shape ({n_features},), "
                             f"got {spec.shape}")
        return spec
    mask = np.zeros(n_features, bool)
    if spec.dtype.kind in "USO":
        names = getattr(estimator, "feature_names_in_", None)
        if names is None:
            raise ValueError("categorical_features holds names but X has no feature names "
                             "(fit on a DataFrame)")
        index = {name: i for i, name in enumerate(names)}
        unknown = [s for s in spec.ravel().tolist() if s not in index]
        if unknown:
            raise ValueError(f"categorical_features names {unknown} are not columns of X")
        mask[[index[s] for s in spec.ravel().tolist()]] = True
        return mask
    if spec.dtype.kind not in "iu":
        raise ValueError("categorical_features must be None, a bool mask, column indices or "
                         f"feature names, got {categorical_features!r}")
    if spec.size and (spec.min() < -n_features or spec.max() >= n_features):
        raise ValueError(f"categorical_features indices must be in [0, {n_features}), got "
                         f"{spec.tolist()}")
    mask[spec.ravel()] = True
    return mask


class C45Classifier(ClassifierMixin, BaseEstimator):
    """C4.5: gain-ratio tree with thresholds, missing values and pessimistic pruning
    (:func:`jaxclassic.tree.fit_c45`).

    Continuous columns are split in two at a data value (``x <= t``), categorical columns
    (``categorical_features``, integer codes ``0..255``) one branch per category. NaN is a
    missing value: in training a row goes down every branch with the branch's known weight
    fraction, at prediction the leaves' class fractions are mixed with those fractions.

    Parameters
    ----------
    confidence_factor : float in (0, 1), default=0.25
        CF of the pessimistic error bound; smaller prunes more.
    min_samples_leaf : float >= 0, default=2
        Quinlan's MINOBJS: weight needed in at least two branches of a split.
    categorical_features : None, bool mask, column indices or feature names, default=None
        Categorical columns (multiway splits); None: all continuous.
    prune : bool, default=True
        Pessimistic subtree replacement after growth.
    collapse : bool, default=True
        Collapse subtrees that do not lower the training error (J48's default).
    max_depth : int >= 0 or None, default=None

    Attributes
    ----------
    classes_, n_classes_, n_features_in_, feature_names_in_, categorical_ (bool mask),
    feature_importances_ (normalised total weighted gain of the kept splits per feature),
    params_ (:class:`~jaxclassic.tree.C45Params`)

    Examples
    --------
    >>> from jaxclassic.datasets import load_play_tennis
    >>> tennis = load_play_tennis()
    >>> X, y, names = tennis.data, tennis.target, tennis.feature_names
    >>> tree = C45Classifier(categorical_features=[0, 1, 2, 3]).fit(X, y)
    >>> names[int(tree.params_.feature[0])], tree.get_n_leaves()
    ('outlook', 5)
    """

    _min_bucket = TREE_MIN_BUCKET  # rows: every data set of up to 512 rows shares one program

    def __init__(self, *, confidence_factor=0.25, min_samples_leaf=2, categorical_features=None,
                 prune=True, collapse=True, max_depth=None):
        self.confidence_factor = confidence_factor
        self.min_samples_leaf = min_samples_leaf
        self.categorical_features = categorical_features
        self.prune = prune
        self.collapse = collapse
        self.max_depth = max_depth

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Grow and prune the tree on ``(X, y)`` (rows weighted by ``sample_weight``)."""
        check_bool(self.prune, "prune")
        check_bool(self.collapse, "collapse")
        max_depth = _check_max_depth(self.max_depth, 0)
        X, y, sw, _ = prepare_fit(self, X, y, sample_weight, classifier=True, allow_nan=True)
        self.categorical_ = _categorical_mask(self.categorical_features, self, X.shape[1])
        params = fit_c45(X, y, categorical=self.categorical_,
                         confidence_factor=float(self.confidence_factor),
                         min_samples_leaf=self.min_samples_leaf, prune=bool(self.prune),
                         collapse=bool(self.collapse), sample_weight=sw,
                         n_classes=len(self.classes_), max_depth=max_depth)
        self.params_ = to_host(params)
        self.feature_importances_ = np.asarray(_api.feature_importances(params))
        self.n_classes_ = len(self.classes_)
        return self

    @dtype_scope
    def _run(self, fn, X):
        Xp, n = prepare_predict(self, X, allow_nan=True)
        return np.asarray(fn(self.params_, Xp))[:n]

    def apply(self, X):
        """Node index of each row's most probable leaf (a row with missing values reaches
        several; see :func:`jaxclassic.tree.c45.apply_c45`)."""
        return self._run(apply_c45, X).astype(np.intp)

    def predict_proba(self, X):
        """Class probabilities ``(n, n_classes)``: leaves' class fractions, mixed by the
        branch fractions where a tested value is missing."""
        return self._run(predict_proba_c45, X)

    def predict_log_proba(self, X):
        """``log(predict_proba(X))``."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """The most probable class (first on ties)."""
        proba = self.predict_proba(X)  # checks fitted before classes_ is read
        return self.classes_[np.argmax(proba, axis=1)]

    def get_depth(self):
        """Depth of the tree (a single leaf: 0)."""
        check_is_fitted(self)
        return int(np.asarray(self.params_.depth).max())

    def get_n_leaves(self):
        """Number of leaves."""
        check_is_fitted(self)
        return int(np.asarray(self.params_.is_leaf).sum())
