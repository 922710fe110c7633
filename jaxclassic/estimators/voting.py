"""scikit-learn-compatible voting and stacking of any estimators.

``VotingClassifier`` / ``VotingRegressor`` / ``StackingClassifier`` / ``StackingRegressor`` take
``estimators=[(name, estimator)]`` of any scikit-learn-compatible estimators (ours, typically), fitted on the host through their own
``fit`` (each member converts its input, pads to its own buckets and compiles its own program)
and combined on the host with the rules of :func:`~jaxclassic.ensemble.fit_voting` and
:func:`~jaxclassic.ensemble.fit_stacking` (weighted vote counts / mean probabilities / mean
predictions; out-of-fold predictions by ``cross_val_predict`` on scikit-learn's ``cv``,
``StratifiedKFold(5)`` for classifiers, the positive column of binary probabilities,
``passthrough``). The functional ``fit_voting`` / ``fit_stacking`` take functional fits, not
estimator objects; fitting the members through their own ``fit`` needs no table mapping a class
to its core and gives scikit-learn's results by construction (same folds, same combination).

Departures: the members are estimator objects fitted on the host (above), not a vmapped
functional fit; ``StackingRegressor``'s default final estimator is our ``Ridge`` (scikit-learn:
``RidgeCV``); no ``n_jobs``, ``verbose`` or ``flatten_transform``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import TransformerMixin
from sklearn.ensemble._base import _BaseHeterogeneousEnsemble  # names, 'drop', nested get/set_params
from sklearn.utils.metaestimators import available_if

from jaxclassic import _cores, _progress
from jaxclassic.estimators._base import (
    ClassifierMixin,
    RegressorMixin,
    SaveLoadMixin,
    check_is_fitted,
    encode_labels,
    validate_data,
)
from jaxclassic.estimators.tree import _check_choice
from jaxclassic.validation import check_bool

__all__ = [
    "VotingClassifier",
    "VotingRegressor",
    "StackingClassifier",
    "StackingRegressor",
]


# --------------------------------------------------------------------------- members
class _BaseMembers(SaveLoadMixin, _BaseHeterogeneousEnsemble):
    """Named members fitted on the host through their own ``fit`` (module docstring)."""

    def _members(self):
        names, members = self._validate_estimators()  # scikit-learn's checks of names and 'drop'
        return names, members

    def _validate(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=[np.float64, np.float32], reset=False)

    def _validate_fit(self, X, y, classifier=False):
        X, y = validate_data(self, X, y, dtype=[np.float64, np.float32], y_numeric=not classifier, reset=True)
        return X, (encode_labels(self, y) if classifier else y)

    def _fit_members(self, members, X, y, sample_weight):
        """The members fitted one after another, each on at most ``n_jobs`` CPU devices; a line
        per member when ``verbose``."""
        import sys

        verbose = _progress.check_verbose(self.verbose)
        fitted = []
        with _cores.limit_devices(self.n_jobs):
            for i, member in enumerate(members):
                fitted.append(self._fit_member(member, X, y, sample_weight))
                if verbose:
                    print(f"[{type(self).__name__}] ({i + 1} of {len(members)}) fitted "
                          f"{type(member).__name__}", file=sys.stderr, flush=True)
        return fitted

    @staticmethod
    def _fit_member(member, X, y, sample_weight):
        from sklearn.base import clone

        if sample_weight is None:
            return clone(member).fit(X, y)
        return clone(member).fit(X, y, sample_weight=sample_weight)


class VotingClassifier(ClassifierMixin, _BaseMembers):
    """Weighted hard or soft voting of classifiers (the rule of
    :func:`jaxclassic.ensemble.fit_voting`; scikit-learn's ``VotingClassifier``).

    Members are fitted on the class codes ``0..C-1`` through their own ``fit`` (module
    docstring); hard voting takes the class of largest weighted vote count (lowest on ties),
    soft voting the class of largest weighted mean probability.

    Parameters
    ----------
    estimators : list of (str, estimator)
        Classifiers (``"drop"`` removes one).
    voting : {"hard", "soft"}, default="hard"
    weights : array-like of shape (n_estimators,), optional
    n_jobs : int or None, default=None
        CPU cores (as CPU devices, :mod:`jaxclassic._cores`) each member's fit may use; the
        members are fitted one after another on the host. ``-1`` all present; None no cap.
        Only fits with a multi-device path use them (boosting, forests; see
        :func:`jaxclassic.distributed.use_cpu_cores`, which must run before JAX starts).
    verbose : int >= 0, default=0
        Above 0: one line on ``stderr`` as each member is fitted.

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_, estimators_ (the fitted members),
    named_estimators_

    Examples
    --------
    >>> import numpy as np
    >>> from jaxclassic.estimators.tree import DecisionTreeClassifier
    >>> from jaxclassic.estimators.boosting import AdaBoostClassifier
    >>> X = np.arange(8.0)[:, None]; y = np.array(["a"] * 4 + ["b"] * 4)
    >>> vote = VotingClassifier([("tree", DecisionTreeClassifier()), ("ada", AdaBoostClassifier(n_estimators=3))],
    ...                         voting="soft").fit(X, y)
    >>> vote.predict([[1.0], [6.0]]).tolist()
    ['a', 'b']
    """

    def __init__(self, estimators, *, voting="hard", weights=None, n_jobs=None, verbose=0):
        super().__init__(estimators=estimators)
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.voting = voting
        self.weights = weights

    def fit(self, X, y, sample_weight=None):
        """Fit every member on ``(X, y)``; returns ``self``."""
        _check_choice(self.voting, "voting", {"hard", "soft"})
        X, codes = self._validate_fit(X, y, classifier=True)
        names, members = self._members()
        if self.weights is not None and len(self.weights) != len(self.estimators):
            raise ValueError(f"Number of `estimators` and weights must be equal; got {len(self.weights)} weights, "
                             f"{len(self.estimators)} estimators")
        fitted = self._fit_members(members, X, codes, sample_weight)
        self.estimators_ = fitted
        from sklearn.utils import Bunch

        self.named_estimators_ = Bunch()
        it = iter(fitted)
        for name, est in self.estimators:
            self.named_estimators_[name] = est if est == "drop" else next(it)
        return self

    def _weights(self):
        if self.weights is None:
            return None
        return np.asarray([w for (_, est), w in zip(self.estimators, self.weights) if est != "drop"], float)

    @available_if(lambda self: self.voting == "soft")
    def predict_proba(self, X):
        """Weighted mean of the members' probabilities ``(n, n_classes)`` (soft voting only)."""
        X = self._validate(X)
        proba = np.stack([m.predict_proba(X) for m in self.estimators_])
        return np.average(proba, axis=0, weights=self._weights())

    def predict(self, X):
        """The class of largest weighted vote (hard) or mean probability (soft)."""
        if self.voting == "soft":
            return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
        X = self._validate(X)
        votes = np.stack([np.asarray(m.predict(X)).astype(int) for m in self.estimators_], axis=1)
        w = self._weights()
        counts = np.stack([np.bincount(row, weights=w, minlength=len(self.classes_)) for row in votes])
        return self.classes_[np.argmax(counts, axis=1)]


class VotingRegressor(RegressorMixin, _BaseMembers):
    """Weighted mean of regressors' predictions (the rule of
    :func:`jaxclassic.ensemble.fit_voting` with ``task="regression"``; scikit-learn's ``VotingRegressor``).

    Parameters
    ----------
    estimators : list of (str, estimator)
    weights : array-like of shape (n_estimators,), optional
    n_jobs : int or None, default=None
        CPU cores (as CPU devices, :mod:`jaxclassic._cores`) each member's fit may use; the
        members are fitted one after another on the host. ``-1`` all present; None no cap.
        Only fits with a multi-device path use them (boosting, forests; see
        :func:`jaxclassic.distributed.use_cpu_cores`, which must run before JAX starts).
    verbose : int >= 0, default=0
        Above 0: one line on ``stderr`` as each member is fitted.

    Attributes
    ----------
    n_features_in_, feature_names_in_, estimators_, named_estimators_

    Examples
    --------
    >>> import numpy as np
    >>> from jaxclassic.estimators.tree import DecisionTreeRegressor
    >>> X = np.arange(6.0)[:, None]; y = np.array([1.0, 1.0, 1.0, 5.0, 5.0, 5.0])
    >>> vote = VotingRegressor([("a", DecisionTreeRegressor(max_depth=1)), ("b", DecisionTreeRegressor())]).fit(X, y)
    >>> vote.predict([[0.2], [4.8]]).tolist()
    [1.0, 5.0]
    """

    def __init__(self, estimators, *, weights=None, n_jobs=None, verbose=0):
        super().__init__(estimators=estimators)
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.weights = weights

    def fit(self, X, y, sample_weight=None):
        """Fit every member on ``(X, y)``; returns ``self``."""
        X, y = self._validate_fit(X, y)
        names, members = self._members()
        if self.weights is not None and len(self.weights) != len(self.estimators):
            raise ValueError(f"Number of `estimators` and weights must be equal; got {len(self.weights)} weights, "
                             f"{len(self.estimators)} estimators")
        self.estimators_ = self._fit_members(members, X, y, sample_weight)
        from sklearn.utils import Bunch

        self.named_estimators_ = Bunch(**{n: e for n, e in zip(names, self.estimators_)})
        return self

    def predict(self, X):
        """The weighted mean of the members' predictions ``(n,)``."""
        X = self._validate(X)
        preds = np.stack([m.predict(X) for m in self.estimators_])
        w = None if self.weights is None else np.asarray(
            [w for (_, est), w in zip(self.estimators, self.weights) if est != "drop"], float)
        return np.average(preds, axis=0, weights=w)


_STACK_METHODS = {"auto", "predict_proba", "decision_function", "predict"}


class _BaseStacking(TransformerMixin, _BaseMembers):
    def _fit_stack(self, X, y, sample_weight, classifier):
        from sklearn.base import clone
        from sklearn.model_selection import check_cv, cross_val_predict
        from sklearn.utils import Bunch

        X, y = self._validate_fit(X, y, classifier=classifier)
        _check_choice(self.stack_method, "stack_method", _STACK_METHODS)
        check_bool(self.passthrough, "passthrough")
        names, members = self._members()
        self.estimators_ = self._fit_members(members, X, y, sample_weight)
        self.named_estimators_ = Bunch(**{n: e for n, e in zip(names, self.estimators_)})
        self.stack_method_ = [self._method(m) for m in self.estimators_]
        cv = check_cv(self.cv, y, classifier=classifier)
        params = {} if sample_weight is None else {"sample_weight": sample_weight}
        preds = [cross_val_predict(clone(m), X, y, cv=cv, method=meth, params=params)
                 for m, meth in zip(members, self.stack_method_)]
        Z = self._concatenate(X, preds)
        final = self.final_estimator if self.final_estimator is not None else self._default_final()
        self.final_estimator_ = self._fit_member(final, Z, y, sample_weight)
        return self

    def _method(self, member):
        if not isinstance(self, ClassifierMixin):
            return "predict"
        methods = ("predict_proba", "decision_function", "predict") if self.stack_method == "auto" else (
            self.stack_method,)
        for meth in methods:
            if hasattr(member, meth):
                return meth
        raise ValueError(f"{type(member).__name__} has none of the methods {methods} (stack_method="
                         f"{self.stack_method!r})")

    def _concatenate(self, X, preds):
        cols = []
        for p, meth in zip(preds, self.stack_method_):
            p = np.asarray(p, dtype=float)
            if p.ndim == 1:
                p = p[:, None]
            elif meth == "predict_proba" and len(getattr(self, "classes_", ())) == 2:
                p = p[:, 1:]  # the two columns are collinear (scikit-learn drops the first)
            cols.append(p)
        if self.passthrough:
            cols.append(np.asarray(X, dtype=float))
        return np.concatenate(cols, axis=1)

    def transform(self, X):
        """The meta-features of ``X``: the fitted members' outputs (then ``X`` with passthrough)."""
        X = self._validate(X)
        return self._concatenate(X, [getattr(m, meth)(X) for m, meth in zip(self.estimators_, self.stack_method_)])


_STACKING_DOC = """estimators : list of (str, estimator)
    cv : int, cross-validation generator or iterable, default=None
        scikit-learn's ``cv`` (None: 5 folds, stratified for a classifier).
    passthrough : bool, default=False
        Append ``X`` to the meta-features.
    n_jobs : int or None, default=None
        CPU cores (as CPU devices, :mod:`jaxclassic._cores`) each member's fit may use (the out-of-fold refits of scikit-learn's ``cross_val_predict`` are not capped); the
        members are fitted one after another on the host. ``-1`` all present; None no cap.
        Only fits with a multi-device path use them (boosting, forests; see
        :func:`jaxclassic.distributed.use_cpu_cores`, which must run before JAX starts).
    verbose : int >= 0, default=0
        Above 0: one line on ``stderr`` as each member is fitted."""


class StackingClassifier(ClassifierMixin, _BaseStacking):
    __doc__ = """Stacked generalisation of classifiers (the rule of :func:`jaxclassic.ensemble.fit_stacking`;
    scikit-learn's ``StackingClassifier``).

    The members are refitted on all rows; the final estimator is fitted on their out-of-fold
    outputs (module docstring), on the class codes ``0..C-1``.

    Parameters
    ----------
    """ + _STACKING_DOC + """
    final_estimator : estimator, default=None
        None: our :class:`~jaxclassic.estimators.LogisticRegression` (scikit-learn's default).
    stack_method : {"auto", "predict_proba", "decision_function", "predict"}, default="auto"

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_, estimators_, named_estimators_,
    final_estimator_, stack_method_

    Examples
    --------
    >>> import numpy as np
    >>> from jaxclassic.estimators.tree import DecisionTreeClassifier
    >>> X = np.arange(20.0)[:, None]; y = np.array(["a"] * 10 + ["b"] * 10)
    >>> stack = StackingClassifier([("tree", DecisionTreeClassifier(max_depth=1))], cv=2).fit(X, y)
    >>> stack.predict([[1.0], [18.0]]).tolist()
    ['a', 'b']
    """

    def __init__(self, estimators, final_estimator=None, *, cv=None, stack_method="auto", passthrough=False,
                 n_jobs=None, verbose=0):
        super().__init__(estimators=estimators)
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.final_estimator = final_estimator
        self.cv = cv
        self.stack_method = stack_method
        self.passthrough = passthrough

    @staticmethod
    def _default_final():
        from jaxclassic.estimators.linear_classification import LogisticRegression

        return LogisticRegression()

    def fit(self, X, y, sample_weight=None):
        """Fit the members, the out-of-fold meta-features and the final estimator; returns ``self``."""
        return self._fit_stack(X, y, sample_weight, classifier=True)

    def predict(self, X):
        """The final estimator's class on the meta-features of ``X``."""
        Z = self.transform(X)  # checks fitted first
        return self.classes_[np.asarray(self.final_estimator_.predict(Z)).astype(int)]

    def predict_proba(self, X):
        """The final estimator's probabilities ``(n, n_classes)``."""
        Z = self.transform(X)
        return self.final_estimator_.predict_proba(Z)

    def decision_function(self, X):
        """The final estimator's decision function."""
        Z = self.transform(X)
        return self.final_estimator_.decision_function(Z)


class StackingRegressor(RegressorMixin, _BaseStacking):
    __doc__ = """Stacked generalisation of regressors (the rule of :func:`jaxclassic.ensemble.fit_stacking`,
    ``task="regression"``; scikit-learn's ``StackingRegressor``).

    Parameters
    ----------
    """ + _STACKING_DOC + """
    final_estimator : estimator, default=None
        None: our :class:`~jaxclassic.estimators.Ridge` (scikit-learn's default is ``RidgeCV``).

    Attributes
    ----------
    n_features_in_, feature_names_in_, estimators_, named_estimators_, final_estimator_

    Examples
    --------
    >>> import numpy as np
    >>> from jaxclassic.estimators.tree import DecisionTreeRegressor
    >>> X = (np.arange(20.0) % 10)[:, None]; y = np.where(X[:, 0] < 5, 1.0, 5.0)
    >>> stack = StackingRegressor([("tree", DecisionTreeRegressor(max_depth=1))]).fit(X, y)
    >>> np.round(stack.predict([[1.0], [8.0]]), 1).tolist()
    [1.0, 5.0]
    """

    stack_method = "predict"

    def __init__(self, estimators, final_estimator=None, *, cv=None, passthrough=False, n_jobs=None, verbose=0):
        super().__init__(estimators=estimators)
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.final_estimator = final_estimator
        self.cv = cv
        self.passthrough = passthrough

    @staticmethod
    def _default_final():
        from jaxclassic.estimators.linear_regression import Ridge

        return Ridge()

    def fit(self, X, y, sample_weight=None):
        """Fit the members, the out-of-fold meta-features and the final estimator; returns ``self``."""
        return self._fit_stack(X, y, sample_weight, classifier=False)

    def predict(self, X):
        """The final estimator's prediction on the meta-features of ``X``."""
        Z = self.transform(X)
        return self.final_estimator_.predict(Z)
