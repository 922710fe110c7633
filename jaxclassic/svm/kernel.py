r"""Kernel support vector classification (C-SVC) by SMO: :func:`fit_kernel_svm`.

With labels :math:`y_i \in \{-1, +1\}` (class codes 1 / 0), sample weights :math:`s_i \ge 0`
and a kernel :math:`K`, the soft-margin SVM

.. math::

    \min_{w, b, \xi}\ \tfrac12\lVert w\rVert^2 + C\sum_i s_i \xi_i
    \quad\text{s.t.}\quad y_i(w^\top\phi(x_i) + b) \ge 1 - \xi_i,\ \xi_i \ge 0

is solved through its dual (Cortes & Vapnik 1995)

.. math::

    \min_\alpha\ \tfrac12\alpha^\top Q\alpha - e^\top\alpha
    \quad\text{s.t.}\quad y^\top\alpha = 0,\ \ 0 \le \alpha_i \le C s_i,
    \qquad Q_{ij} = y_i y_j K(x_i, x_j),

by SMO with LIBSVM's second-order working-set selection (:mod:`jaxclassic.svm._smo`, inside
:func:`jaxclassic._solver.iterate`). The decision function is
:math:`f(x) = \sum_i \alpha_i y_i K(x_i, x) + b`, :math:`b = -\rho` from the free support
vectors (LIBSVM's rule, also when none is free); class 1 where :math:`f(x) \ge 0`.

* **Hard margin**: ``C=inf`` (the box has no upper side). Only meaningful on separable data;
  on non-separable data the dual is unbounded and the fit stops at ``max_iter`` unconverged.
* **Weights**: the upper bound is :math:`C s_i`, so a row of weight 0 has bound 0, is never
  selected and has no influence (equal to fitting without it), and weight ``k`` equals ``k``
  repeated rows (same primal problem).
* **Kernel rows** (:func:`choose_storage`): the full Gram matrix when ``n <= 4096`` and its
  :math:`n^2` entries fit ``memory_budget`` bytes (default :data:`jaxclassic._tiling.MEMORY_BUDGET`;
  under ``vmap`` over folds, pairs or ``C`` the one matrix serves every fit); above, rows on
  demand, through an LRU cache of as many rows as fit the budget when rows are costly (64
  features or more), directly otherwise (measured: at 10,000 x 20 the cache gained nothing,
  at 8,000 x 200 it was 2.2x faster). ``storage`` forces one. All give the same optimum
  (tested), the paths may differ by rounding ties.
* **Working set** (:func:`choose_working_set`): pairs (WSS2, two kernel rows per step) or
  ThunderSVM's batched variant (``working_set="batch"``: ``batch_size`` violators per outer
  step, one ``(q, n)`` kernel block and one product). On the CPU the pairs were 2-4x faster
  at every batch size tried (the batched variant computes ~25x more kernel rows), so
  ``"auto"`` picks pairs there, and the batched variant on accelerators above
  :data:`BATCH_ABOVE` variables (not measured here).
* **Non-PSD kernels**: the sigmoid kernel is accepted (LIBSVM's τ keeps each step bounded);
  a user's callable kernel is checked with :func:`jaxclassic.kernels.check_mercer` on up to
  100 training rows first (``check_kernel=False`` skips it).
* ``gamma="scale"`` is :math:`1/(d\,\mathrm{Var}(X))` (scikit-learn's default) with the variance
  of all entries of ``X`` weighted by the rows' weights (scikit-learn ignores the weights),
  ``"auto"`` is :math:`1/d`.

**Derivatives** (issue 14): ``alpha``, ``dual_coef`` and ``intercept`` are differentiable in
``X``, ``sample_weight``, ``C``, ``gamma`` and ``coef0`` by the implicit function theorem at the
dual's optimum: the KKT system on the free support vectors (:math:`0 < \alpha_i < Cs_i`),
:math:`(Q\alpha)_i + y_i b = 1` with :math:`y^\top\alpha = 0`, the bound ones held
(:func:`jaxclassic.svm._optimality.dual_qp`); SMO's loop is never differentiated and its values
are returned unchanged. It needs at least one free support vector (else :math:`b` is not
determined by the KKT conditions); ``probA``/``probB`` carry no derivative.

Params keep full-length arrays (``alpha``, ``dual_coef`` over all ``n`` training rows, the rows
themselves in ``X_fit``): shapes never depend on the data, so fits ``vmap`` over ``C``,
``gamma``, folds and one-vs-one pairs. :func:`support`, ``svm.support_vectors`` and :func:`restrict_to_support`
give scikit-learn's compact layout on the host.

Precision: LIBSVM keeps α and G in double precision; here they have the input's dtype. In
float32 the incremental gradient accumulates rounding over the steps, and ``tol`` is raised to
the gradient's rounding floor (:func:`jaxclassic.svm._smo.effective_tol`: ~1.2e-5 for float32
C-SVC, far below the default ``tol=1e-3``); a step that rounds to no change stops the solver
with ``converged=False`` and a warning.

References
----------
Cortes & Vapnik, "Support-vector networks", Machine Learning 20 (1995).
Platt, "Sequential minimal optimization", MSR-TR-98-14 (1998).
Fan, Chen & Lin, "Working set selection using second order information for training support
vector machines", JMLR 6 (2005).
Chang & Lin, "LIBSVM: a library for support vector machines", ACM TIST 2 (2011).
"""

from __future__ import annotations

import dataclasses
import warnings
from functools import partial
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit, _progress
from jaxclassic._deprecation import renamed_arguments
from jaxclassic import _precision, _tiling, kernels
from jaxclassic._implicit import with_implicit_derivatives
from jaxclassic.exceptions import ConvergenceWarning
from jaxclassic.svm import _optimality, _smo, platt
from jaxclassic.svm._api import decision_function, predict, predict_proba, support_vectors
from jaxclassic.validation import (
    as_operand,
    check_bool,
    check_choice,
    check_classifier_data,
    check_int,
    check_key,
    check_predict_X,
    check_scalar,
    is_traced,
)

__all__ = [
    "KernelSpec",
    "KernelSVMParams",
    "fit_kernel_svm",
    "resolve_gamma",
    "decision_values",
    "restrict_to_support",
    "support",
    "BATCH_ABOVE",
]

#: canonical names of the built-in kernels (aliases of :data:`jaxclassic.kernels.KERNELS`)
_CANONICAL = {"linear": "linear", "poly": "poly", "polynomial": "poly", "rbf": "rbf",
              "gaussian": "rbf", "laplace": "laplace", "laplacian": "laplace", "sigmoid": "sigmoid"}
STORAGES = ("auto", "gram", "cache", "rows")
WORKING_SETS = ("auto", "pair", "batch")
#: LIBSVM's default bound on the number of iterations
DEFAULT_MAX_ITER = 10_000_000
#: ``storage="auto"`` holds the full Gram matrix up to this many rows (if it fits the budget)
GRAM_MAX_ROWS = 4096
#: ``storage="auto"`` caches kernel rows (above GRAM_MAX_ROWS) from this many features on
CACHE_MIN_FEATURES = 64
#: ``working_set="auto"`` uses the batched variant above this many training rows
BATCH_ABOVE = 20_000
#: default size of the batched working set
DEFAULT_BATCH_SIZE = 256
#: rows of the training set used to check a callable kernel with ``check_mercer``
MERCER_SAMPLE = 100


@jax.tree_util.register_static
@dataclasses.dataclass(frozen=True)
class KernelSpec:
    """The static part of a kernel: its name (or callable) and the polynomial degree.

    A pytree node without leaves: it rides along in the params through ``jit`` / ``vmap``.
    """

    kernel: str | Callable
    degree: int = 3

    @property
    def name(self) -> str:
        return self.kernel if isinstance(self.kernel, str) else getattr(self.kernel, "__name__", "callable")


def make_kernel(spec: KernelSpec, gamma, coef0) -> Callable:
    """The block kernel ``(A, B) -> (len(A), len(B))`` of ``spec`` with its hyperparameters."""
    if callable(spec.kernel):
        return spec.kernel
    name = spec.kernel
    if name == "linear":
        return kernels.linear
    if name == "poly":
        return partial(kernels.polynomial, gamma=gamma, coef0=coef0, degree=spec.degree)
    if name == "rbf":
        return partial(kernels.gaussian, gamma=gamma)
    if name == "laplace":
        return partial(kernels.laplace, gamma=gamma)
    return partial(kernels.sigmoid, gamma=gamma, coef0=coef0)


class KernelSVMParams(NamedTuple):
    r"""A fitted binary kernel SVM, :math:`f(x) = \sum_i` ``dual_coef[i]`` :math:`K(x_i, x)` + ``intercept``.

    Attributes
    ----------
    X_fit : (n, d) array
        The training rows (the support vectors are those with ``alpha > 0``).
    alpha : (n,) array
        Dual variables :math:`0 \le \alpha_i \le C s_i`.
    dual_coef : (n,) array
        :math:`\alpha_i y_i` (:math:`y_i = \pm 1`), 0 off the support (scikit-learn's
        ``dual_coef_`` over all rows).
    intercept : scalar array
        :math:`b = -\rho`.
    gamma, coef0 : scalar arrays
        The kernel's hyperparameters (unused by some kernels).
    dual_objective : scalar array
        :math:`\tfrac12\alpha^\top Q\alpha - e^\top\alpha` at the solution.
    n_iter : int32 scalar
        SMO steps (outer steps of the batched variant).
    converged : bool scalar
        Whether the maximal violating pair gap reached ``tol``.
    error : scalar array
        The maximal violating pair gap :math:`m(\alpha) - M(\alpha)` at exit.
    probA, probB : scalar arrays
        Platt's sigmoid :math:`P(y=1\mid f) = 1/(1 + e^{Af + B})` from cross-validated decision
        values (:mod:`jaxclassic.svm.platt`); NaN unless fitted with ``probability=True``.
    kernel : KernelSpec
        Static: the kernel's name (or callable) and degree.
    """

    X_fit: jax.Array
    alpha: jax.Array
    dual_coef: jax.Array
    intercept: jax.Array
    gamma: jax.Array
    coef0: jax.Array
    dual_objective: jax.Array
    n_iter: jax.Array
    converged: jax.Array
    error: jax.Array
    probA: jax.Array
    probB: jax.Array
    kernel: KernelSpec

    @property
    def n_classes(self) -> int:
        """2: a binary classifier (a Python int; not a pytree leaf)."""
        return 2



# --------------------------------------------------------------------------- validation
def check_kernel_args(kernel, degree, gamma, coef0) -> KernelSpec:
    """Validate the kernel arguments (before tracing) and return the static spec."""
    if callable(kernel):
        spec_kernel = kernel
    elif isinstance(kernel, str):
        if kernel not in _CANONICAL:
            raise ValueError(f"kernel must be one of {sorted(_CANONICAL)} or a callable, got {kernel!r}")
        spec_kernel = _CANONICAL[kernel]
    else:
        raise TypeError(f"kernel must be a string or a callable (X, Z) -> (n, m), got {type(kernel).__name__}")
    degree = check_int(degree, "degree", low=1)
    if not (isinstance(gamma, str) and gamma in ("scale", "auto")):
        if isinstance(gamma, str):
            raise ValueError(f"gamma must be 'scale', 'auto' or a float > 0, got {gamma!r}")
        check_scalar(gamma, "gamma", low=0.0, include_low=False)
    check_scalar(coef0, "coef0")
    return KernelSpec(spec_kernel, degree)


def check_C(C):
    """``C > 0``; ``inf`` (hard margin) allowed."""
    if not is_traced(C) and isinstance(C, (int, float, np.floating, np.integer)) and np.isposinf(C):
        return C
    return check_scalar(C, "C", low=0.0, include_low=False)


def resolve_gamma(gamma, X, sample_weight=None):
    r"""The numeric ``gamma``: ``"scale"`` → :math:`1/(d\,\mathrm{Var}_s(X))` (the weighted
    variance of all entries; 1 when it is 0, as scikit-learn), ``"auto"`` → :math:`1/d`, a
    number unchanged. Works on traced weights."""
    X = jnp.asarray(X)
    d = X.shape[1]
    if isinstance(gamma, str) and gamma == "auto":
        return jnp.asarray(1.0 / d, X.dtype)
    if not (isinstance(gamma, str) and gamma == "scale"):
        return jnp.asarray(gamma, X.dtype)
    sw = jnp.ones(X.shape[0], X.dtype) if sample_weight is None else jnp.asarray(sample_weight, X.dtype)
    return _scale_gamma(X, sw)


@_jit.jit
def _scale_gamma(X, sw):
    # one program (eagerly, each of these steps compiled on its own per shape)
    d = X.shape[1]
    total = jnp.sum(sw) * d
    mean = jnp.sum(sw * jnp.sum(X, axis=1)) / total
    var = jnp.sum(sw * jnp.sum(jnp.square(X - mean), axis=1)) / total
    return jnp.where(var > 0, 1.0 / (d * jnp.where(var > 0, var, 1.0)), 1.0).astype(X.dtype)


def check_callable_kernel(spec: KernelSpec, X, sample_weight) -> None:
    """A user's callable kernel must give a symmetric PSD Gram matrix on a sample of rows."""
    if not callable(spec.kernel) or is_traced(X):
        return
    Xn = np.asarray(X)
    if sample_weight is not None and not is_traced(sample_weight):
        Xn = Xn[np.asarray(sample_weight) > 0]
    sample = jnp.asarray(Xn[:MERCER_SAMPLE])
    K = np.asarray(spec.kernel(sample, sample))
    if K.shape != (sample.shape[0], sample.shape[0]):
        raise ValueError(f"kernel {spec.name} must return an (n, m) block for (n, d) and (m, d) "
                         f"inputs, got shape {K.shape} for {sample.shape[0]} rows")
    kernels.check_mercer(K, name=f"kernel {spec.name}")


def choose_storage(storage: str, n: int, n_features: int, itemsize: int, memory_budget) -> tuple[str, int]:
    """``(storage, cache_rows)`` for ``storage="auto"`` (module docstring, measured on this CPU):

    * ``"gram"`` when ``n <= GRAM_MAX_ROWS`` and the ``n x n`` matrix fits the budget: one
      matrix product beats thousands of row computations, and under ``vmap`` (folds, pairs, a
      grid of ``C``) the one matrix serves every fit;
    * above, SMO touches a fraction of the rows (3,113 of 10,000 on the benchmark's data), so
      rows are computed on demand: through an LRU cache of as many rows as fit the budget
      when rows are costly (``n_features >= CACHE_MIN_FEATURES``: 2.2x faster than no cache at
      8,000 x 200), directly otherwise (at 10,000 x 20 a row costs about what a cache lookup
      and the cache's allocation do, and the cache gained nothing).
    """
    budget = _tiling.MEMORY_BUDGET if memory_budget is None else int(memory_budget)
    cache_rows = int(min(n, budget // max(n * itemsize, 1)))
    if storage == "auto":
        if cache_rows >= n and n <= GRAM_MAX_ROWS:
            storage = "gram"
        elif cache_rows >= 2 and n_features >= CACHE_MIN_FEATURES:
            storage = "cache"
        else:
            storage = "rows"
    if storage == "cache":
        cache_rows = max(cache_rows, 2)
    return storage, cache_rows


def warn_not_converged(params, name: str, max_iter: int) -> None:
    """A ``ConvergenceWarning`` when concrete params did not reach ``tol`` (any of a batch):
    ``max_iter`` steps ran out, or a step stopped moving (rounding; see ``_smo``)."""
    if is_traced(params.converged):
        return
    converged = np.asarray(params.converged)
    if bool(np.all(converged)):
        return
    gap = float(np.max(np.asarray(params.error)[~converged]))
    if bool(np.any(np.asarray(params.n_iter)[~converged] >= max_iter)):
        why = (f"did not converge within max_iter={max_iter} steps (maximal violating pair gap {gap:.3g} > tol); "
               "increase max_iter, or check that C=inf (hard margin) is used on separable data")
    else:
        why = (f"stopped at a maximal violating pair gap of {gap:.3g} > tol: the last step moved no "
               "variable (rounding: tol is below what this dtype resolves); use a larger tol or float64")
    warnings.warn(f"{name}: the SMO solver {why}", ConvergenceWarning, stacklevel=3)


def row_block(spec: KernelSpec, gamma, coef0, X) -> Callable:
    r"""``A (k, d) -> (k, n)``: the kernel block of rows ``A`` against all of ``X``.

    For the dot-product kernels (linear, poly, sigmoid, rbf) the block is a function of
    :math:`A X^\top` and, for rbf, of the squared norms :math:`\|x\|^2` computed once
    (:math:`\exp(-\gamma\max(\|a\|^2 + \|x\|^2 - 2a\cdot x, 0))`, the form of
    :func:`jaxclassic._tiling.squared_euclidean`): SMO asks for thousands of single rows, and
    recomputing ``X``'s norms for each (what ``kernels.gaussian(a, X)`` does) tripled the cost
    of a row. The values are those of :mod:`jaxclassic.kernels` (tested). The laplace and
    callable kernels call the kernel itself.
    """
    name = spec.kernel
    if callable(name) or name == "laplace":
        fn = make_kernel(spec, gamma, coef0)
        return lambda A: fn(A, X)
    # rbf distances from X's first row (exact: distances do not change under a shift; float32
    # data far from the origin would lose its spread to the rounding of ||x||^2 otherwise)
    shift = X[:1] if name == "rbf" else jnp.zeros_like(X[:1])
    Xs = X - shift
    XT = Xs.T
    norms = jnp.sum(Xs * Xs, axis=1)

    def block(A):
        A = A - shift
        dot = _precision.matmul(A, XT)
        if name == "linear":
            return dot
        if name == "poly":
            return jax.lax.integer_pow(gamma * dot + coef0, spec.degree)
        if name == "sigmoid":
            return jnp.tanh(gamma * dot + coef0)
        sq = jnp.sum(A * A, axis=1)[:, None] + norms[None, :] - 2.0 * dot
        return jnp.exp(-gamma * jnp.maximum(sq, 0.0))

    return block


def build_oracle(spec, X, gamma, coef0, storage, cache_rows, memory_budget):
    """The kernel-row oracle and the kernel diagonal (inside the jitted fit)."""
    block = row_block(spec, gamma, coef0, X)
    n, itemsize = X.shape[0], jnp.dtype(X.dtype).itemsize
    if storage == "gram":
        # the full matrix in row tiles whose intermediates fit the budget
        factor = X.shape[1] if spec.kernel == "laplace" else 3
        tile = _tiling.tile_size(n, n * itemsize * factor, budget=memory_budget)
        K = _tiling.map_row_tiles(block, X, tile=tile).astype(X.dtype)
        return _smo.RowOracle("gram", n=n, dtype=X.dtype, K=K), jnp.diagonal(K)
    QD = kernels.gram_diagonal(X, make_kernel(spec, gamma, coef0)).astype(X.dtype)
    return _smo.RowOracle(storage, n=n, dtype=X.dtype, block=lambda rows: block(X[rows]),
                          cache_rows=cache_rows), QD


def choose_working_set(working_set: str, n_variables: int, spec: KernelSpec) -> str:
    """``"pair"`` or ``"batch"`` for ``working_set="auto"``.

    On the CPU, pairs: the batched variant computes many more kernel rows (q per outer step,
    302 x 256 = 77,000 rows against the pair solver's 3,113 distinct rows at 10,000 x 20) and a
    row costs as much in a block as alone there (memory-bound), so it was 2-4x slower at every
    ``q`` tried (64-1024). On an accelerator the block is one large product and the pair
    solver's thousands of small steps are latency-bound: the batched variant is chosen above
    :data:`BATCH_ABOVE` variables (not measured in this package's CPU-only tests). Never for
    the sigmoid or a callable kernel: with a non-PSD kernel the dual is not convex and the two
    solvers can stop at different stationary points (LIBSVM's is the pair solver's).
    """
    working_set = check_choice(working_set, "working_set", WORKING_SETS)
    if working_set == "auto":
        psd = isinstance(spec.kernel, str) and spec.kernel != "sigmoid"
        big = n_variables > BATCH_ABOVE and jax.default_backend() != "cpu"
        return "batch" if (psd and big) else "pair"
    return working_set


# --------------------------------------------------------------------------- fit
@partial(_jit.jit, static_argnames=("spec", "storage", "cache_rows", "memory_budget", "working_set",
                                   "batch_size", "probability", "n_folds", "progress"))
def _fit(X, y, sw, C, gamma, coef0, tol, max_iter, key, *, spec, storage, cache_rows, memory_budget,
         working_set, batch_size, probability, n_folds, progress=None):
    signs = jnp.where(y == 1, 1.0, -1.0).astype(X.dtype)
    # the solver sees no tangent; (alpha, b) get the implicit derivatives of the dual's KKT
    # system on the free support vectors in X, the weights, C, gamma and coef0 (_optimality)
    hyper = (X, sw, C, gamma, coef0)
    X, sw, C, gamma, coef0 = jax.lax.stop_gradient(hyper)
    oracle, QD = build_oracle(spec, X, gamma, coef0, storage, cache_rows, memory_budget)

    def solve(weight, progress=None):
        upper = jnp.where(weight > 0, C * weight, 0.0).astype(X.dtype)
        problem = _smo.DualProblem(signs, -jnp.ones_like(signs), upper)
        return _smo.solve(problem, oracle, QD, tol=tol, max_iter=max_iter, working_set=working_set,
                          batch_size=batch_size, progress=progress)

    res = solve(sw, progress)  # the model's solve reports; Platt's folds do not
    alpha, intercept = with_implicit_derivatives(partial(_svc_optimality, spec=spec, signs=signs),
                                                 (res.alpha, -res.rho), *hyper)
    prob_a = prob_b = jnp.asarray(jnp.nan, X.dtype)
    if probability:
        def fold_decision(train_weight):
            fold = solve(train_weight)
            coef = fold.alpha * signs
            if storage == "gram":
                return _precision.matmul(oracle.K, coef) - fold.rho
            return kernel_expansion(X, coef, spec, gamma, coef0, X) - fold.rho

        prob_a, prob_b = platt.cross_validated_platt(fold_decision, signs, sw, key=key, n_splits=n_folds)
    X, _, _, gamma, coef0 = hyper
    return KernelSVMParams(X, alpha, alpha * signs, intercept, gamma, coef0, res.objective,
                           res.n_iter, res.converged, res.gap, prob_a, prob_b, spec)


def _svc_optimality(theta, X, sw, C, gamma, coef0, *, spec, signs):
    """KKT residual of C-SVC at ``(alpha, b)`` (:func:`jaxclassic.svm._optimality.dual_qp`)."""
    upper = jnp.where(sw > 0, C * sw, 0.0).astype(X.dtype)
    K = row_block(spec, gamma, coef0, X)(X)
    return _optimality.dual_qp(theta, K, signs, -jnp.ones_like(signs), upper, doubled=False)


@renamed_arguments(n_folds="n_splits")
def fit_kernel_svm(X, y, *, C=1.0, kernel="rbf", gamma="scale", coef0=0.0, degree: int = 3,
                   tol=1e-3, max_iter: int | None = None, memory_budget: int | None = None,
                   storage: str = "auto", working_set: str = "auto", batch_size: int = DEFAULT_BATCH_SIZE,
                   check_kernel: bool = True, probability: bool = False, n_splits: int = 5,
                   sample_weight=None, key=None, verbose: int = 0) -> KernelSVMParams:
    r"""Fit a binary soft-margin kernel SVM (C-SVC) by SMO.

    Minimises the dual :math:`\tfrac12\alpha^\top Q\alpha - e^\top\alpha` subject to
    :math:`y^\top\alpha = 0`, :math:`0 \le \alpha_i \le C s_i` (module docstring), stopping when
    the maximal violating pair gap is ``<= tol`` (LIBSVM's rule).

    Classification and regression are two functions, not one with ``task=``, because their
    algorithms differ: this C-SVC dual in :math:`n` variables with one sign constraint, and
    the ε-SVR dual in :math:`2n` variables of :func:`jaxclassic.svm.fit_kernel_svr`.

    Parameters
    ----------
    X : (n_samples, n_features) array
    y : (n_samples,) int array of class codes 0 / 1 (1 is the positive class, :math:`y_i = +1`)
    C : float > 0 or ``inf`` (traced)
        Box bound; ``inf`` gives the hard-margin SVM.
    kernel : {"rbf", "linear", "poly", "sigmoid", "laplace"} or callable
        A name (aliases ``gaussian``, ``polynomial``, ``laplacian``) or a block kernel
        ``kernel(A, B) -> (len(A), len(B))`` (checked for Mercer's condition on a sample).
    gamma : "scale", "auto" or float > 0 (traced)
    coef0 : float (traced), the additive constant of the poly and sigmoid kernels
    degree : int >= 1 (static), the poly kernel's degree
    tol : float >= 0 (traced), on the maximal violating pair gap
    max_iter : int, optional (traced)
        Bound on SMO steps; LIBSVM's 10,000,000 by default.
        ``max_iter``'s default differs from the estimator's: ``SVC(max_iter=-1)`` is
        scikit-learn's "no limit", which the estimator maps to this ``None`` (the traced loop
        needs a positive bound).
    memory_budget : int, optional
        Bytes for the kernel matrix or cache (:data:`jaxclassic._tiling.MEMORY_BUDGET`).
    storage : {"auto", "gram", "cache", "rows"}
        Force the full Gram matrix, the LRU row cache or rows on demand.
    working_set : {"auto", "pair", "batch"}
        WSS2 pairs, or ThunderSVM's batched working set of ``batch_size`` variables.
    batch_size : int >= 2 (static)
    check_kernel : bool
        Check a callable kernel's Gram matrix on up to 100 rows (:func:`kernels.check_mercer`).
    probability : bool
        Also fit Platt's sigmoid on ``n_splits``-fold cross-validated decision values (LIBSVM's
        procedure, :func:`jaxclassic.svm.platt.cross_validated_platt`; the folds' fits are one
        ``vmap``) for :func:`jaxclassic.svm.predict_proba`.
    n_splits : int >= 2 (static), folds of the probability calibration (scikit-learn's name
        for a number of folds; ``n_folds=``, the old name, works until 0.3.0 with a
        ``DeprecationWarning``)
    verbose : int >= 0, default=0 (static)
        0: silent (the program has no callback). ``k > 0``: a tqdm bar of the SMO steps and a
        line ``[t]\tgap:<value>`` (the maximal violating pair's gap) every ``k`` reports and after
        the last, reported every 1,000 steps of pair SMO and every step of batched SMO
        (:mod:`jaxclassic._progress`; one fit: under ``vmap`` each step is reported once).
    sample_weight : (n_samples,) array, optional
        Row weights :math:`s_i` (upper bounds :math:`C s_i`).
    key : jax.random key, optional
        Only for ``probability=True``: shuffled calibration folds. ``None`` (default): LIBSVM's
        contiguous folds, deterministic (no random draw at all).

    Returns
    -------
    KernelSVMParams

    Raises
    ------
    ValueError
        ``C <= 0``, ``gamma <= 0``, one class, a non-PSD callable kernel, an unknown kernel.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.svm import fit_kernel_svm, predict
    >>> X = jnp.array([[0.0, 0.0], [0.0, 1.0], [3.0, 3.0], [3.0, 4.0]])
    >>> params = fit_kernel_svm(X, jnp.array([0, 0, 1, 1]), C=10.0, kernel="linear")
    >>> predict(params, X).tolist()
    [0, 0, 1, 1]

    References
    ----------
    Fan, Chen & Lin, JMLR 6 (2005); Chang & Lin, ACM TIST 2 (2011).
    """
    spec = check_kernel_args(kernel, degree, gamma, coef0)
    C = check_C(C)
    tol = check_scalar(tol, "tol", low=0.0)
    max_iter = DEFAULT_MAX_ITER if max_iter is None else check_int(max_iter, "max_iter", low=1)
    batch_size = check_int(batch_size, "batch_size", low=2)
    n_splits = check_int(n_splits, "n_splits", low=2)
    check_kernel = check_bool(check_kernel, "check_kernel")
    probability = check_bool(probability, "probability")
    verbose = _progress.check_verbose(verbose)
    shuffle = key is not None
    key = check_key(key) if shuffle else None
    X, y, sw, _ = check_classifier_data(X, y, sample_weight, n_classes=2)
    if check_kernel:
        check_callable_kernel(spec, X, sample_weight)
    storage, cache_rows = choose_storage(check_choice(storage, "storage", STORAGES), X.shape[0],
                                         X.shape[1], jnp.dtype(X.dtype).itemsize, memory_budget)
    working_set = choose_working_set(working_set, X.shape[0], spec)
    progress = _progress.smo_spec(verbose, "fit_kernel_svm", working_set)
    extra = {} if progress is None else {"progress": progress}  # verbose=0: the program without reporting
    as_array = lambda v: as_operand(v, X.dtype)  # noqa: E731
    gamma_value = as_array(gamma) if _is_number(gamma) else resolve_gamma(gamma, X, sw)
    with _progress.reporting(progress):
        params = _fit(X, y, sw, as_array(C), gamma_value, as_array(coef0), as_array(tol),
                      as_operand(max_iter, jnp.int32), key, spec=spec, storage=storage, cache_rows=cache_rows,
                      memory_budget=memory_budget, working_set=working_set, batch_size=batch_size,
                      probability=probability, n_folds=n_splits, **extra)
    warn_not_converged(params, "fit_kernel_svm", max_iter)
    return params


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.number)) and not isinstance(v, bool)


# --------------------------------------------------------------------------- predict
def kernel_expansion(X_fit, coef, spec, gamma, coef0, X):
    r""":math:`\sum_i c_i K(x_i, x)` for every row of ``X``, in row tiles under the budget."""
    fn = make_kernel(spec, gamma, coef0)
    # the laplace kernel builds a (tile, n_fit, d) block of differences; the others (tile, n_fit)
    factor = X.shape[1] if spec.kernel == "laplace" else 3
    tile = _tiling.tile_size(X.shape[0], X_fit.shape[0] * jnp.dtype(X.dtype).itemsize * factor)
    return _tiling.map_row_tiles(lambda block: _precision.matmul(fn(block, X_fit), coef), X, tile=tile)


@partial(_jit.jit, static_argnames=("spec",))
def decision_values(X_fit, dual_coef, intercept, gamma, coef0, X, *, spec: KernelSpec):
    r""":math:`f(x) = \sum_i c_i K(x_i, x) + b` for every row of ``X`` (row tiles under the budget).

    ``dual_coef`` ``(n,)`` with a scalar ``intercept`` gives ``(m,)``; ``(n, P)`` with ``(P,)``
    gives the ``P`` decision functions of models sharing ``X_fit`` at once, ``(m, P)``, from one
    kernel block per tile (one-vs-one SVMs on the union of their support vectors, as LIBSVM).
    """
    X_fit = X_fit.astype(X.dtype)
    return kernel_expansion(X_fit, dual_coef.astype(X.dtype), spec, gamma, coef0, X) + intercept


def _decision_function(params: KernelSVMParams, X):
    X = check_predict_X(X, params.X_fit.dtype, params.X_fit.shape[-1])
    return decision_values(params.X_fit, params.dual_coef, params.intercept, params.gamma, params.coef0, X,
                           spec=params.kernel)


def _predict(params: KernelSVMParams, X):
    return (_decision_function(params, X) >= 0).astype(jnp.int32)


def _predict_proba(params: KernelSVMParams, X):
    platt.check_calibrated(params)
    return platt.sigmoid_proba(_decision_function(params, X), params.probA, params.probB)


def restrict_to_support(params: KernelSVMParams) -> KernelSVMParams:
    """The same model with only its support vectors (host side; not jittable): ``X_fit``,
    ``alpha``, ``dual_coef`` restricted to ``alpha > 0`` (scikit-learn's layout), so that
    prediction costs O(n_support) per row. Decision values are unchanged."""
    keep = np.flatnonzero(np.asarray(params.alpha) > 0)
    return params._replace(X_fit=jnp.asarray(np.asarray(params.X_fit)[keep]),
                           alpha=jnp.asarray(np.asarray(params.alpha)[keep]),
                           dual_coef=jnp.asarray(np.asarray(params.dual_coef)[keep]))


def support(params) -> np.ndarray:
    """Indices of the support vectors (``alpha > 0``; for ε-SVR ``dual_coef != 0``), ascending
    (host side; scikit-learn's ``SVC`` orders them class by class)."""
    coef = np.asarray(params.alpha if hasattr(params, "alpha") else params.dual_coef)
    return np.flatnonzero(coef != 0)


def _support_vectors(params, X=None):
    """The support vectors, ``(n_SV, d)`` rows of the training set (host side). ``X`` (the
    training rows, as the linear SVM's accessor takes) is optional: the params hold them."""
    X_fit = np.asarray(params.X_fit)
    if X is not None and np.shape(X) != X_fit.shape:
        raise ValueError(f"X must be the training data {X_fit.shape}, got shape {np.shape(X)}")
    return X_fit[support(params)]


decision_function.register(KernelSVMParams, _decision_function)
predict.register(KernelSVMParams, _predict)
predict_proba.register(KernelSVMParams, _predict_proba)
support_vectors.register(KernelSVMParams, _support_vectors)
