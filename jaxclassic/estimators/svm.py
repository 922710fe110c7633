"""scikit-learn-compatible kernel SVMs: ``SVC`` and ``SVR``.

Thin wrappers over :func:`jaxclassic.svm.fit_kernel_svm` (SMO with LIBSVM's working-set
selection): they validate and encode the input, pad the rows to a shape bucket with zero
weights (a weight-0 row has upper bound 0 and never enters the working set, so refits of nearby
sizes reuse one compiled program), fit one binary problem or, for more classes, one-vs-one over
all pairs in one ``vmap`` (:func:`jaxclassic.multiclass.fit_one_vs_one`, what LIBSVM does), and
lay the result out as scikit-learn does on the host (``support_`` grouped by class,
``dual_coef_`` of shape ``(n_classes - 1, n_SV)`` in LIBSVM's layout, ``intercept_`` per pair).
Prediction evaluates all pairs from one kernel block against the union of the support vectors
(:func:`jaxclassic.svm.kernel.decision_values`), padded to a shape bucket with coefficient-0
copies of the first vector (the number of support vectors changes from fit to fit; without the
padding every refit recompiled the prediction).

Differences from scikit-learn's ``SVC``:

* ``class_weight`` rescales ``C`` row by row, as LIBSVM (the class weights of ``"balanced"``
  from the weighted class counts; scikit-learn counts rows, the same without
  ``sample_weight``); it does not enter ``gamma="scale"``;
* no ``kernel="precomputed"``, ``shrinking`` (no shrinking heuristic: the
  result is the same up to ``tol``), ``verbose``; a callable ``kernel`` must be written with
  ``jax.numpy`` (it is traced) and gets no hyperparameters (as scikit-learn's);
* ``cache_size`` (MB) is the memory budget of the kernel rows: the full Gram matrix when it
  fits (and ``n <= 4096``), else rows on demand, cached when the features are many;
* ``gamma="scale"`` uses the variance of ``X`` weighted by ``sample_weight`` (scikit-learn
  ignores the weights), so weight ``k`` equals ``k`` repeated rows: scikit-learn's own ``SVC``
  fails that check, this one passes it;
* ``probability=True``: LIBSVM's procedure (5-fold out-of-fold decision values, Platt's
  sigmoid per pair, pairwise coupling for more classes), with contiguous folds unless
  ``random_state`` is given (scikit-learn shuffles with its ``random_state``); the coupling
  system is solved exactly where LIBSVM iterates to 0.005/K
  (:mod:`jaxclassic.svm.coupling`);
* multiclass fits see all ``n`` rows per pair (the other classes at weight 0, shape-static),
  so each SMO step costs O(n) rather than O(n_a + n_b), and ``params_`` holds one copy of the
  training rows per pair.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from sklearn.utils._available_if import available_if
from sklearn.utils.multiclass import _ovr_decision_function

from jaxclassic import _jit
from jaxclassic.estimators._parity import apply_class_weight
from jaxclassic.estimators._base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    bucket_size,
    dtype_scope,
    prepare_fit,
    prepare_predict,
    to_host,
)
from jaxclassic.multiclass import fit_one_vs_one
from jaxclassic.svm import coupling, platt
from jaxclassic.svm import kernel as _kernel
from jaxclassic.svm.kernel import fit_kernel_svm
from jaxclassic.svm.svr import fit_kernel_svr
from jaxclassic.validation import as_operand, check_bool, check_scalar

__all__ = ["SVC", "SVR"]

_ovo_probabilities = _jit.jit(coupling.ovo_probabilities, static_argnames=("n_classes",))


def _bucketed_support(support_vectors, coef, dtype):
    """The support vectors and their coefficients (rows) padded to ``bucket_size(n_SV)`` rows
    with copies of the first vector of coefficient 0 (each adds ``0 * K(x, sv_0)``, a finite
    kernel value, so the decision values are unchanged), as device arrays of ``dtype``."""
    n_sv = support_vectors.shape[0]
    extra = bucket_size(n_sv) - n_sv
    filler = support_vectors[:1] if n_sv else np.zeros((1, support_vectors.shape[1]))
    sv = np.concatenate([support_vectors, np.repeat(filler, extra, axis=0)])
    coef = np.concatenate([coef, np.zeros((extra,) + coef.shape[1:], coef.dtype)])
    return jnp.asarray(sv, dtype), jnp.asarray(coef, dtype)


def _max_iter(max_iter) -> int | None:
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)):
        raise TypeError(f"max_iter must be an int (-1: no limit), got {type(max_iter).__name__}")
    if max_iter == -1:
        return None
    if max_iter < 1:
        raise ValueError(f"max_iter must be -1 (no limit) or >= 1, got {max_iter}")
    return int(max_iter)


def _check_kernel(kernel):
    if isinstance(kernel, str) and kernel == "precomputed":
        raise ValueError("kernel='precomputed' is not supported; pass the kernel as a callable "
                         "(written with jax.numpy) or one of 'linear', 'poly', 'rbf', 'sigmoid', 'laplace'")


def _solver_options(X, cache_size, n_fits):
    """Storage for the fits: the Gram matrix (shared by the vmapped pairs) when it fits the
    whole budget, else the budget split between the pairs' row caches."""
    if isinstance(cache_size, bool) or not isinstance(cache_size, (int, float, np.number)) or cache_size <= 0:
        raise ValueError(f"cache_size must be a number of MB > 0, got {cache_size!r}")
    budget = int(cache_size * 2**20)
    n, itemsize = X.shape[0], jnp.dtype(X.dtype).itemsize
    storage, _ = _kernel.choose_storage("auto", n, X.shape[1], itemsize, budget)
    if storage == "gram":
        return dict(storage="gram", memory_budget=budget)
    return dict(storage=storage, memory_budget=max(budget // n_fits, 1))


class SVC(ClassifierMixin, BaseEstimator):
    """C-support vector classification (:func:`jaxclassic.svm.fit_kernel_svm`; one-vs-one for
    more than two classes).

    Solves :math:`\\min_\\alpha \\tfrac12\\alpha^\\top Q\\alpha - e^\\top\\alpha`,
    :math:`y^\\top\\alpha = 0`, :math:`0 \\le \\alpha_i \\le C s_i` by SMO (LIBSVM's WSS2), stopping
    when the maximal violating pair gap is ``<= tol``.

    Parameters
    ----------
    C : float, default=1.0
        Box bound (> 0; ``np.inf``: hard margin).
    kernel : {"rbf", "linear", "poly", "sigmoid", "laplace"} or callable, default="rbf"
    degree : int, default=3
    gamma : {"scale", "auto"} or float, default="scale"
        ``"scale"``: ``1 / (n_features * X.var())`` (weighted by ``sample_weight``);
        ``"auto"``: ``1 / n_features``.
    coef0 : float, default=0.0
    probability : bool, default=False
        Fit Platt's sigmoid(s) on 5-fold out-of-fold decision values (``predict_proba``).
    tol : float, default=1e-3
    cache_size : float, default=200
        Memory budget of the kernel matrix / row cache, in MB.
    max_iter : int, default=-1
        SMO steps per binary problem; -1: LIBSVM's 10,000,000.
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
    break_ties : bool, default=False
        With ``"ovr"`` and more than two classes, predict by ``argmax(decision_function)``
        instead of the votes (ties to the lowest class).
    random_state : int, default=None
        Shuffles the probability folds (contiguous folds when None).
    class_weight : dict, "balanced" or None, default=None
        Weight of each class, multiplying ``C`` for its rows (scikit-learn's meaning;
        :func:`jaxclassic.estimators._parity.apply_class_weight`).
    verbose : int >= 0, default=0
        Above 0: a tqdm bar of the SMO steps and a line ``[t]\tgap:<value>`` of the maximal
        violating pair's gap, every 1,000 steps of pair SMO (every step of batched SMO) and
        after the last, sent from inside the compiled solver (:mod:`jaxclassic._progress`).
        Several classes: the pairs are one vmapped fit, and each step is reported once.

    Attributes
    ----------
    classes_, support_ (indices, grouped by class), support_vectors_, n_support_,
    dual_coef_ (n_classes - 1, n_SV), intercept_ (n_pairs,), n_iter_ (n_pairs,),
    probA_, probB_ (n_pairs,; ``probability=True``), shape_fit_, fit_status_, n_features_in_,
    params_ (the core's params: ``KernelSVMParams`` or ``OneVsOneParams``)

    Notes
    -----
    ``probA_``/``probB_`` follow this package's sign convention (the sigmoid of the decision
    value whose positive side is the pair's second class); scikit-learn's are for the opposite
    side.
    """

    def __init__(self, C=1.0, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, probability=False,
                 tol=1e-3, cache_size=200, max_iter=-1, decision_function_shape="ovr", break_ties=False,
                 random_state=None, class_weight=None, verbose=0):
        self.verbose = verbose
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state
        self.class_weight = class_weight

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Fit the model; returns ``self``."""
        check_bool(self.probability, "probability")
        check_bool(self.break_ties, "break_ties")
        _check_kernel(self.kernel)
        if self.decision_function_shape not in ("ovr", "ovo"):
            raise ValueError("decision_function_shape must be 'ovr' or 'ovo', got "
                             f"{self.decision_function_shape!r}")
        max_iter = _max_iter(self.max_iter)
        # C and tol before gamma="scale" computes on the data, so that bad input compiles nothing
        _kernel.check_C(self.C)
        check_scalar(self.tol, "tol", low=0.0)
        Xj, yj, sw, n = prepare_fit(self, X, y, sample_weight, classifier=True)
        _kernel.check_kernel_args(self.kernel, self.degree, self.gamma, self.coef0)
        gamma = float(_kernel.resolve_gamma(self.gamma, Xj, sw))
        if self.class_weight is not None:  # after gamma: class weights rescale C, not the data
            sw = jax.device_put(apply_class_weight(self.class_weight, self.classes_, yj, sw))
        n_classes = len(self.classes_)
        n_pairs = n_classes * (n_classes - 1) // 2
        key = None if self.random_state is None else jax.random.key(int(self.random_state))
        kwargs = dict(C=self.C, kernel=self.kernel, gamma=gamma, coef0=self.coef0, degree=self.degree,
                      tol=self.tol, max_iter=max_iter, probability=bool(self.probability), key=key,
                      verbose=self.verbose, **_solver_options(Xj, self.cache_size, n_pairs))
        if n_classes == 2:
            params = fit_kernel_svm(Xj, yj, sample_weight=sw, **kwargs)
            self.params_ = to_host(params)
            # stacked on the host: a device slice per leaf cost ~0.2 ms in all
            stacked = jax.tree.map(lambda a: a[None], self.params_)
            pairs = np.array([[0, 1]])
        else:
            params = fit_one_vs_one(fit_kernel_svm, Xj, yj, n_classes=n_classes, sample_weight=sw, **kwargs)
            stacked, pairs = params.estimators, np.asarray(params.pairs)
            _kernel.warn_not_converged(stacked, "SVC", max_iter or _kernel.DEFAULT_MAX_ITER)
            self.params_ = to_host(params)
        self._layout(stacked, pairs, np.asarray(yj)[:n], np.asarray(Xj)[:n])
        self.shape_fit_ = (n, Xj.shape[1])
        self.fit_status_ = 0
        return self

    def _layout(self, stacked, pairs, codes, X):
        """scikit-learn's attributes from the stacked full-length params (host side)."""
        n_classes = len(self.classes_)
        n = codes.shape[0]
        alpha = np.asarray(stacked.alpha)[:, :n]
        coef = np.asarray(stacked.dual_coef)[:, :n]  # (P, n): positive for each pair's second class
        is_sv = (alpha > 0).any(axis=0)
        support = np.concatenate([np.flatnonzero(is_sv & (codes == c)) for c in range(n_classes)])
        self.support_ = support.astype(np.int32)
        self.support_vectors_ = X[support]
        self.n_support_ = np.array([np.sum(is_sv & (codes == c)) for c in range(n_classes)], np.int32)
        intercept = np.asarray(stacked.intercept).reshape(-1)
        sv_class = codes[support]
        if n_classes == 2:
            self.dual_coef_ = coef[0, support][None, :]
            self.intercept_ = intercept.copy()
        else:
            # LIBSVM's layout: the coefficient of a class-c vector in pair (a, b) (a < b) sits in
            # row b - 1 when c == a and in row a when c == b; LIBSVM's pair decision is positive
            # for a (ours for b), hence the sign
            dual = np.zeros((n_classes - 1, support.size), coef.dtype)
            for p, (a, b) in enumerate(pairs):
                in_a, in_b = sv_class == a, sv_class == b
                dual[b - 1, in_a] = -coef[p, support[in_a]]
                dual[a, in_b] = -coef[p, support[in_b]]
            self.dual_coef_ = dual
            self.intercept_ = -intercept
        self.n_iter_ = np.asarray(stacked.n_iter).reshape(-1).astype(np.int32)
        if self.probability:
            self.probA_ = np.asarray(stacked.probA).reshape(-1)
            self.probB_ = np.asarray(stacked.probB).reshape(-1)
        self._pairs = np.asarray(pairs, np.int32)
        self._sv_coef = np.ascontiguousarray(coef[:, support].T)  # (n_SV, P), our signs
        self._pair_intercept = intercept
        self._spec = stacked.kernel
        self._gamma = np.asarray(stacked.gamma).reshape(-1)[0]
        self._coef0 = np.asarray(stacked.coef0).reshape(-1)[0]

    def _pair_decisions(self, X):
        """``(n, n_pairs)`` decision values, positive for each pair's second class."""
        Xp, n = prepare_predict(self, X)
        dtype = Xp.dtype
        sv, coef = _bucketed_support(self.support_vectors_, self._sv_coef, dtype)
        out = _kernel.decision_values(
            sv, coef, as_operand(self._pair_intercept, dtype), as_operand(self._gamma, dtype),
            as_operand(self._coef0, dtype), Xp, spec=self._spec)
        return np.asarray(out)[:n]

    @dtype_scope
    def decision_function(self, X):
        """Binary: ``(n,)``, positive for ``classes_[1]``. More classes: ``"ovr"`` gives
        scikit-learn's ``(n, n_classes)`` votes plus confidences; ``"ovo"`` the ``(n, n_pairs)``
        pair decisions (positive for the pair's first class, as LIBSVM)."""
        f = self._pair_decisions(X)
        if len(self.classes_) == 2:
            return f[:, 0]
        if self.decision_function_shape == "ovo":
            return -f
        return _ovr_decision_function(f > 0, f, len(self.classes_))  # scikit-learn: (dec < 0, -dec)

    def predict(self, X):
        """The class of each row: the sign (two classes) or LIBSVM's one-vs-one votes (ties to
        the lowest class; ``break_ties`` uses the ``"ovr"`` decision function instead)."""
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
        if self.break_ties and len(self.classes_) > 2:
            return self.classes_[np.argmax(self.decision_function(X), axis=1)]
        f = self._decision_pairs_scoped(X)
        if len(self.classes_) == 2:
            return self.classes_[(f[:, 0] >= 0).astype(int)]
        votes = np.zeros((f.shape[0], len(self.classes_)), np.int64)
        for p, (a, b) in enumerate(self._pairs):
            second = f[:, p] >= 0
            votes[:, b] += second
            votes[:, a] += ~second
        return self.classes_[np.argmax(votes, axis=1)]

    @dtype_scope
    def _decision_pairs_scoped(self, X):
        return self._pair_decisions(X)

    def _check_proba(self):
        if not self.probability:
            raise AttributeError("predict_proba is not available when probability=False")
        return True

    @available_if(_check_proba)
    @dtype_scope
    def predict_proba(self, X):
        """Class probabilities ``(n, n_classes)``: Platt's sigmoid (two classes) or the pairwise
        coupling of the pairs' sigmoids."""
        f = self._pair_decisions(X)
        dtype = f.dtype
        if len(self.classes_) == 2:
            return np.asarray(platt.sigmoid_proba(jnp.asarray(f[:, 0]), jnp.asarray(self.probA_[0], dtype),
                                                  jnp.asarray(self.probB_[0], dtype)))
        return np.asarray(_ovo_probabilities(jnp.asarray(f), jnp.asarray(self.probA_, dtype),
                                             jnp.asarray(self.probB_, dtype), jnp.asarray(self._pairs),
                                             n_classes=len(self.classes_)))

    @available_if(_check_proba)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))


class SVR(RegressorMixin, BaseEstimator):
    """Epsilon-support vector regression (:func:`jaxclassic.svm.fit_kernel_svr`: the same SMO on
    the ``2n``-variable dual).

    Parameters
    ----------
    kernel, degree, gamma, coef0, tol, cache_size, max_iter
        As :class:`SVC`.
    C : float, default=1.0
    epsilon : float, default=0.1
        Half-width of the tube within which errors cost nothing.
    verbose : int >= 0, default=0
        As :class:`SVC`.

    Attributes
    ----------
    support_, support_vectors_, dual_coef_ (1, n_SV): alpha - alpha*, intercept_ (1,),
    n_support_, n_iter_, shape_fit_, fit_status_, n_features_in_, params_

    Differences from scikit-learn's ``SVR``: as :class:`SVC` (no ``"precomputed"`` kernel or
    shrinking; ``gamma="scale"`` weighted by ``sample_weight``).
    """

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3, C=1.0, epsilon=0.1,
                 cache_size=200, max_iter=-1, verbose=0):
        self.verbose = verbose
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.C = C
        self.epsilon = epsilon
        self.cache_size = cache_size
        self.max_iter = max_iter

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Fit the model; returns ``self``."""
        _check_kernel(self.kernel)
        max_iter = _max_iter(self.max_iter)
        Xj, yj, sw, n = prepare_fit(self, X, y, sample_weight)
        params = fit_kernel_svr(Xj, yj, C=self.C, epsilon=self.epsilon, kernel=self.kernel, gamma=self.gamma,
                                coef0=self.coef0, degree=self.degree, tol=self.tol, max_iter=max_iter,
                                sample_weight=sw, verbose=self.verbose, **_solver_options(Xj, self.cache_size, 1))
        self.params_ = to_host(params)
        coef = np.asarray(params.dual_coef)[:n]
        support = np.flatnonzero(coef != 0)
        self.support_ = support.astype(np.int32)
        self.support_vectors_ = np.asarray(Xj)[:n][support]
        self.dual_coef_ = coef[support][None, :]
        self.intercept_ = np.asarray(params.intercept).reshape(1)
        self.n_support_ = np.array([support.size], np.int32)
        self.n_iter_ = int(params.n_iter)
        self.shape_fit_ = (n, Xj.shape[1])
        self.fit_status_ = 0
        return self

    @dtype_scope
    def predict(self, X):
        """:math:`f(x) = \\sum_i (\\alpha_i - \\alpha_i^*) K(x_i, x) + b` for each row."""
        Xp, n = prepare_predict(self, X)
        dtype = Xp.dtype
        params = self.params_
        sv, coef = _bucketed_support(self.support_vectors_, self.dual_coef_[0], dtype)
        out = _kernel.decision_values(
            sv, coef, jnp.asarray(self.intercept_[0], dtype), jnp.asarray(params.gamma, dtype),
            jnp.asarray(params.coef0, dtype), Xp, spec=params.kernel)
        return np.asarray(out)[:n]
