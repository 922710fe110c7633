r"""Baum--Welch: maximum-likelihood HMMs by EM over many padded sequences, vmapped.

Objective: :math:`\sum_s w_s \log p(x^{(s)})` over sequences :math:`s` with weights
:math:`w_s \ge 0` (``sample_weight``, one per sequence; integer weights equal repeated
sequences and a sequence of weight 0 has no influence).

One EM iteration (Baum 1972; Rabiner 1989 §III.C; Bishop *PRML* §13.2.1):

* **E-step**: forward--backward on every sequence at once (``vmap`` over the padded block
  of :func:`jaxclassic.graphical.hmm.pad_sequences`), giving :math:`\log p(x^{(s)})`,
  :math:`\gamma^{(s)}_t` and :math:`\sum_t\xi^{(s)}_t` (:mod:`jaxclassic.graphical.hmm`).
* **M-step**, closed form: :math:`\pi \propto \sum_s w_s\gamma^{(s)}_0`,
  :math:`A_{ij} \propto \sum_s w_s\sum_t\xi^{(s)}_t(i,j)`; categorical
  :math:`B_{jm} \propto \sum_s w_s\sum_t\gamma^{(s)}_t(j)[x^{(s)}_t = m]`; Gaussian: the
  mixture M-step of :func:`jaxclassic.cluster._gmm_covariance.m_step` with responsibilities
  :math:`w_s\gamma^{(s)}_t(j)` over all observed steps (means, and covariances with
  ``reg_covar`` :math:`\rho` on the diagonal). A row with no expected count (a state never
  visited) keeps its previous value (hmmlearn keeps it too).
* **Stopping** (hmmlearn's rule, through :func:`jaxclassic._solver.iterate`): iteration
  :math:`t` records :math:`L_t`, the weighted log-likelihood of the parameters entering it,
  then takes its M-step; EM stops once :math:`\lvert L_t - L_{t-1}\rvert \le` ``tol``
  (hmmlearn: :math:`L_t - L_{t-1} <` ``tol``) or after ``max_iter`` iterations. EM never
  decreases :math:`L` (Baum's inequality; tested per iteration).

With ``reg_covar = 0`` the Gaussian M-step equals hmmlearn's with ``covars_prior = 0``
(hmmlearn's default prior :math:`10^{-2}` adds :math:`10^{-2}/n_j` to each variance instead of
our :math:`\rho`); the start, transition and emission M-steps equal hmmlearn's default
(priors 1, i.e. none).

Initialisation from ``key`` (hmmlearn's scheme, restarts vmapped over ``n_init`` keys and the
largest final :math:`L` kept): :math:`\pi` and the rows of :math:`A` halfway between uniform
and a flat Dirichlet draw; categorical :math:`B` uniform draws normalised by row (hmmlearn);
Gaussian means at k-means++ seeds of the observed rows
(:func:`jaxclassic.cluster.kmeans_plusplus`; hmmlearn runs k-means), covariances the weighted
covariance of all observed rows plus :math:`\rho` (hmmlearn: plus ``min_covar``), the same for
every state. Or ``init``: a params tuple to start from (then one restart).

References
----------
L. E. Baum, "An inequality and associated maximization technique in statistical estimation
for probabilistic functions of Markov processes", Inequalities 3, 1972.
L. R. Rabiner (1989), Proc. IEEE 77(2), §III.C.
C. M. Bishop, *Pattern Recognition and Machine Learning*, 2006, §13.2.1.
hmmlearn, ``hmmlearn/base.py`` (``_do_mstep``) and ``hmm.py`` (the reference).
"""

from __future__ import annotations

import warnings
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit, _progress
from jaxclassic import _precision
from jaxclassic._deprecation import renamed_arguments
from jaxclassic._solver import iterate
from jaxclassic.cluster import _gmm_covariance as _cov
from jaxclassic.cluster.kmeans import _plusplus_indices
from jaxclassic.exceptions import ConvergenceWarning
from jaxclassic.graphical import hmm as _hmm
from jaxclassic.validation import (
    as_operand,
    check_array,
    check_choice,
    check_int,
    check_key,
    check_scalar,
    default_float_dtype,
    key_from_seed,
)

__all__ = ["fit_hmm"]

EMISSIONS = ("categorical", "gaussian")


# --------------------------------------------------------------------------- EM
def _theta(params):
    """The parameters EM updates, as a tuple (the fit report fields dropped)."""
    if isinstance(params, _hmm.CategoricalHMMParams):
        return (params.startprob, params.transmat, params.emissionprob)
    return (params.startprob, params.transmat, params.means, params.covars,
            params.precisions_cholesky)


def _params(theta, emission, covariance_type):
    if emission == "categorical":
        return _hmm.CategoricalHMMParams(*theta)
    return _hmm.GAUSSIAN_TYPES[covariance_type](*theta)


def _normalise_rows(counts, old):
    total = jnp.sum(counts, axis=-1, keepdims=True)
    return jnp.where(total > 0, counts / jnp.where(total > 0, total, 1.0), old)


def _e_step(params, Xp, mask, weight):
    """``(L, weighted gamma as rows (T S, K), start counts (K,), transition counts (K, K))``,
    the rows in the order of :func:`_rows`."""
    total, wg, trans = _hmm._expected_counts(jnp.log(params.startprob), params.transmat,
                                             _hmm._emitter(params), _hmm._time_major(Xp), mask.T,
                                             weight)
    T, K, S = wg.shape
    return total, jnp.transpose(wg, (0, 2, 1)).reshape(T * S, K), wg[0].sum(axis=-1), trans


def _rows(Xp):
    """The observations of padded sequences (S, T[, d]) as rows in time-major order (T S[, d])."""
    x = jnp.swapaxes(Xp, 0, 1)
    return x.reshape((-1,) + x.shape[2:])


def _m_step(params, X, R, start, trans, reg_covar, update, n_symbols):
    """Closed-form updates from the weighted posteriors ``R`` (rows, K) of the rows ``X``."""
    startprob = _normalise_rows(start, params.startprob) if "s" in update else params.startprob
    transmat = _normalise_rows(trans, params.transmat) if "t" in update else params.transmat
    if isinstance(params, _hmm.CategoricalHMMParams):
        emissionprob = params.emissionprob
        if "e" in update:
            # sum of the weighted posteriors by symbol: a scatter-add over the steps (padded
            # steps have zero posteriors)
            counts = jax.ops.segment_sum(R, X, num_segments=n_symbols).T
            emissionprob = _normalise_rows(counts, params.emissionprob)
        return params._replace(startprob=startprob, transmat=transmat, emissionprob=emissionprob)
    ct = params.covariance_type
    D = X[:, None, :] - params.means[None]
    stats = _cov.statistics(D, R, ct)
    if "m" not in update:  # no mean step: the statistics about the kept means (delta = 0)
        stats = stats._replace(s1=jnp.zeros_like(stats.s1))
    _, means, covars, prec_chol = _cov.m_step(stats, params.means, reg_covar, ct)
    if "c" not in update:
        covars, prec_chol = params.covars, params.precisions_cholesky
    elif ct != "tied":  # a state with no expected count keeps its covariance (not reg_covar)
        empty = stats.s0 <= 0
        covars = jnp.where(_hmm._batch_dims(empty, covars.ndim - 1), params.covars, covars)
        prec_chol = jnp.where(_hmm._batch_dims(empty, prec_chol.ndim - 1),
                              params.precisions_cholesky, prec_chol)
    return params._replace(startprob=startprob, transmat=transmat, means=means, covars=covars,
                           precisions_cholesky=prec_chol)


def _run_em(init, Xp, mask, weight, tol, reg_covar, *, max_iter, update, n_symbols, progress=None):
    emission = init.emission
    ct = getattr(init, "covariance_type", None)
    dtype = init.startprob.dtype
    big = jnp.finfo(dtype).max
    X = _rows(Xp)

    def step(carry):
        theta, prev, i, history = carry
        params = _params(theta, emission, ct)
        ll, R, start, trans = _e_step(params, Xp, mask, weight)
        new = _m_step(params, X, R, start, trans, reg_covar, update, n_symbols)
        err = jnp.where(jnp.isnan(prev), big, jnp.abs(ll - prev))
        err = jnp.where(jnp.isfinite(ll), err, jnp.inf)
        history = history.at[i].set(ll, mode="clip")
        _progress.emit(progress, i, ll, jnp.abs(ll - prev))  # verbose > 0
        return (_theta(new), ll, i + 1, history), err

    history0 = jnp.full((max(max_iter, 1),), jnp.nan, dtype=dtype)
    carry0 = (_theta(init), jnp.asarray(jnp.nan, dtype), jnp.int32(0), history0)
    res = iterate(step, carry0, max_iter=max_iter, tol=tol, history_size=max(max_iter, 1))
    theta, ll, _, history = res.carry
    return _params(theta, emission, ct)._replace(
        converged=res.converged, n_iter=res.n_iter, log_likelihood=ll, log_likelihoods=history)


def _initial(key, Xp, mask, weight, reg_covar, *, n_components, emission, covariance_type,
             n_symbols):
    """Random start (module docstring)."""
    dtype = weight.dtype
    K = n_components
    k_pi, k_a, k_e = jax.random.split(key, 3)
    uniform = jnp.full((K,), 1.0 / K, dtype=dtype)
    startprob = 0.5 * uniform + 0.5 * jax.random.dirichlet(k_pi, jnp.ones((K,), dtype), dtype=dtype)
    transmat = 0.5 * uniform + 0.5 * jax.random.dirichlet(k_a, jnp.ones((K,), dtype), (K,), dtype=dtype)
    if emission == "categorical":
        u = jax.random.uniform(k_e, (K, n_symbols), dtype=dtype)
        return _hmm.CategoricalHMMParams(startprob, transmat, u / u.sum(axis=1, keepdims=True))
    S, T = mask.shape
    X = Xp.reshape(S * T, -1)
    sw = (weight[:, None] * mask).reshape(-1).astype(dtype)
    idx = _plusplus_indices(X, sw, k_e, n_clusters=K, n_local_trials=1)
    means = X[idx]
    mean = jnp.sum(sw[:, None] * X, axis=0) / jnp.sum(sw)
    C = X - mean
    cov = _precision.matmul((sw[:, None] * C).T, C) / jnp.sum(sw)
    d = X.shape[1]
    cov = cov + reg_covar * jnp.eye(d, dtype=dtype)
    covars = {"full": jnp.broadcast_to(cov, (K, d, d)), "tied": cov,
              "diag": jnp.broadcast_to(jnp.diagonal(cov), (K, d)),
              "spherical": jnp.full((K,), jnp.mean(jnp.diagonal(cov)), dtype)}[covariance_type]
    prec_chol = _cov.precision_cholesky(covars, covariance_type)
    return _hmm.GAUSSIAN_TYPES[covariance_type](startprob, transmat, means, covars, prec_chol)


@partial(_jit.jit, static_argnames=("n_components", "emission", "covariance_type", "max_iter",
                                   "n_init", "update", "n_symbols", "progress"))
def _fit(Xp, mask, weight, key, init, tol, reg_covar, *, n_components, emission, covariance_type,
         max_iter, n_init, update, n_symbols, progress=None):
    run = partial(_run_em, Xp=Xp, mask=mask, weight=weight, tol=tol, reg_covar=reg_covar,
                  max_iter=max_iter, update=update, n_symbols=n_symbols, progress=progress)
    if init is not None:
        return run(init)

    def single(k):
        return run(_initial(k, Xp, mask, weight, reg_covar, n_components=n_components,
                            emission=emission, covariance_type=covariance_type,
                            n_symbols=n_symbols))

    if n_init == 1:
        return single(key)
    fits = jax.vmap(single)(jax.random.split(key, n_init))
    final = jnp.where(jnp.isnan(fits.log_likelihood), -jnp.inf, fits.log_likelihood)
    return jax.tree.map(lambda a: a[jnp.argmax(final)], fits)


# --------------------------------------------------------------------------- checks
def _check_X(X, emission, n_symbols):
    if emission == "categorical":
        X = check_array(X, "X", ndim=(1, 2), numeric="int", _numpy=True, min_samples=1)
        if X.ndim == 2:
            if X.shape[1] != 1:
                raise ValueError(f"X of symbols must be (n,) or (n, 1), got shape {X.shape}")
            X = X[:, 0]
        if X.min() < 0:
            raise ValueError(f"X holds symbol {X.min()}; symbols must be non-negative ints")
        if n_symbols is None:
            n_symbols = int(X.max()) + 1
        n_symbols = check_int(n_symbols, "n_symbols", low=1)
        if X.max() >= n_symbols:
            raise ValueError(f"X holds symbol {X.max()}, outside the range 0..{n_symbols - 1} of "
                             f"n_symbols={n_symbols}")
        return X, n_symbols
    X = check_array(X, "X", _numpy=True)
    return X, None


def _check_init(init, emission, covariance_type, n_components, n_symbols, d, dtype):
    if emission == "categorical":
        if not isinstance(init, _hmm.CategoricalHMMParams):
            raise TypeError(f"init must be a CategoricalHMMParams (categorical_hmm) for "
                            f"emission='categorical', got {type(init).__name__}")
        init = _hmm.categorical_hmm(init.startprob, init.transmat, init.emissionprob)
        if init.emissionprob.shape[1] != n_symbols:
            raise ValueError(f"init.emissionprob must have {n_symbols} columns (n_symbols), got "
                             f"shape {init.emissionprob.shape}")
    else:
        if not isinstance(init, _hmm.GaussianHMMParams) or getattr(
                init, "covariance_type", None) != covariance_type:
            raise TypeError(f"init must be a GaussianHMMParams of covariance_type="
                            f"{covariance_type!r} (gaussian_hmm), got {type(init).__name__}")
        init = _hmm.gaussian_hmm(init.startprob, init.transmat, init.means, init.covars,
                                 covariance_type)
        if init.means.shape[1] != d:
            raise ValueError(f"init.means has {init.means.shape[1]} features, X has {d}")
    if init.startprob.shape[0] != n_components:
        raise ValueError(f"init has {init.startprob.shape[0]} states, but "
                         f"n_components={n_components}")
    return jax.tree.map(lambda a: jnp.asarray(a, dtype), init)


@renamed_arguments(n_states="n_components")
def fit_hmm(X, lengths, n_components, *, emission="categorical", n_symbols=None,
            covariance_type="diag", n_init=1, max_iter=100, tol=1e-2, reg_covar=1e-6, init=None,
            update=None, sample_weight=None, verbose=0,
            key=None) -> _hmm.CategoricalHMMParams | _hmm.GaussianHMMParams:
    r"""Fit a hidden Markov model by Baum--Welch (EM) on one or many sequences.

    Maximises :math:`\sum_s w_s\log p(x^{(s)})` by alternating forward--backward posteriors
    :math:`\gamma, \xi` and the closed-form updates :math:`\pi\propto\sum_s w_s\gamma_0`,
    :math:`A_{ij}\propto\sum_s w_s\sum_t\xi_t(i,j)`, :math:`B_{jm}\propto\sum_s w_s\sum_t
    \gamma_t(j)[x_t = m]` (categorical) or the weighted Gaussian moments (module docstring:
    stopping rule, initialisation, the difference from hmmlearn's covariance prior).

    Parameters
    ----------
    X : (n,) or (n, 1) int array (categorical) or (n, d) array (gaussian)
        The sequences one after the other (hmmlearn's layout).
    lengths : sequence of int or None
        Lengths of the sequences (positive, summing to ``n``); ``None``: one sequence. A
        sequence of length 1 is allowed (it informs :math:`\pi` and the emissions only).
    n_components : int
        :math:`K \ge 1` hidden states (static), hmmlearn's and ``GaussianHMM``'s name (was
        ``n_states``, deprecated until jaxclassic 0.3.0).
    emission : {"categorical", "gaussian"}
    n_symbols : int, optional
        :math:`M` (categorical); default ``max(X) + 1`` (static).
    covariance_type : {"diag", "full", "tied", "spherical"}
        Gaussian emissions (static).
    n_init : int
        Restarts from ``key`` (vmapped); the largest final log-likelihood is kept (static).
    max_iter : int
        Bound on EM iterations (static; sizes ``log_likelihoods``). The estimators
        (``GaussianHMM``, ``CategoricalHMM``) call it ``n_iter`` with hmmlearn's default 10.
    tol : float
        Tolerance on the change of the total log-likelihood (traced; hmmlearn's default 1e-2).
    reg_covar : float
        :math:`\rho \ge 0` added to the covariances' diagonal (traced).
    init : CategoricalHMMParams or GaussianHMMParams, optional
        Start here (checked: probabilities sum to 1, covariances positive definite); then
        ``key`` is not needed and ``n_init`` is 1.
    update : str, optional
        Which parameters EM updates, hmmlearn's ``params`` letters: ``"s"`` startprob, ``"t"``
        transmat, ``"e"`` emissionprob (categorical), ``"m"`` means, ``"c"`` covars (gaussian);
        default all.
    sample_weight : (S,) array, optional
        One non-negative weight per sequence.
    verbose : int >= 0, default=0 (static)
        0: silent (the program has no callback). ``k > 0``: a tqdm bar of the iterations and,
        every ``k`` iterations and after the last, a line ``[t]\tlog_likelihood:<value>\tchange:<value>``
        sent from inside the compiled Baum--Welch loop (:mod:`jaxclassic._progress`; with
        ``n_init > 1`` the restarts run as one vmap and each iteration is reported once).
    key : jax.random key, optional
        Randomness of the initialisation (unused with ``init``). ``None`` (default):
        ``jax.random.key(0)``, so calls without a key are deterministic.

    Returns
    -------
    CategoricalHMMParams or GaussianHMMParams
        With ``converged``, ``n_iter``, ``log_likelihood`` (of the parameters entering the last
        iteration) and ``log_likelihoods`` (per iteration, NaN past ``n_iter``).

    Raises
    ------
    ValueError
        Bad hyperparameters, empty sequences, ``lengths`` not summing to ``n``, symbols outside
        ``0..n_symbols - 1``, an ``init`` whose probabilities do not sum to 1.
    TypeError
        ``init`` of the wrong type, an int ``key``.

    Examples
    --------
    >>> import jax, numpy as np
    >>> from jaxclassic.graphical import fit_hmm
    >>> X = np.array([0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1] * 5)
    >>> p = fit_hmm(X, None, 2, key=jax.random.key(0), max_iter=50)
    >>> sorted(np.round(np.asarray(p.emissionprob.max(axis=1)), 2).tolist())
    [1.0, 1.0]

    References
    ----------
    Baum (1972); Rabiner (1989), §III.C; Bishop (2006), §13.2.1 (module docstring).
    """
    emission = check_choice(emission, "emission", EMISSIONS)
    n_components = check_int(n_components, "n_components", low=1)
    covariance_type = check_choice(covariance_type, "covariance_type", _hmm.COVARIANCE_TYPES)
    n_init = check_int(n_init, "n_init", low=1)
    max_iter = check_int(max_iter, "max_iter", low=0)
    progress = _progress.spec(verbose, "fit_hmm", ("log_likelihood", "change"))
    check_scalar(tol, "tol", low=0.0)
    check_scalar(reg_covar, "reg_covar", low=0.0)
    letters = "ste" if emission == "categorical" else "stmc"
    if update is None:
        update = letters
    if not isinstance(update, str) or set(update) - set(letters):
        raise ValueError(f"update must be a string of the letters {letters!r} for "
                         f"emission={emission!r}, got {update!r}")
    update = "".join(c for c in letters if c in update)
    X, n_symbols = _check_X(X, emission, n_symbols)
    Xp, mask = _hmm.pad_sequences(X, lengths)
    S = mask.shape[0]
    dtype = Xp.dtype if emission == "gaussian" else default_float_dtype()
    if sample_weight is None:
        weight = np.ones((S,), dtype=dtype)
    else:
        weight = check_array(sample_weight, "sample_weight", ndim=1, dtype=dtype, _numpy=True)
        if weight.shape != (S,):
            raise ValueError(f"sample_weight must have one weight per sequence, shape ({S},), got "
                             f"{weight.shape}")
        if (weight < 0).any() or not (weight > 0).any():
            raise ValueError("sample_weight must be non-negative with at least one positive value")
    if emission == "gaussian":
        n_rows = int((mask & (weight[:, None] > 0)).sum())
        if n_components > n_rows:
            raise ValueError(f"n_components must be <= the number of observed rows of positive "
                             f"weight ({n_rows}) for Gaussian emissions, got {n_components}")
    if init is not None:
        init = _check_init(init, emission, covariance_type, n_components, n_symbols,
                           Xp.shape[-1] if emission == "gaussian" else None, dtype)
        n_init = 1
    else:
        key = key_from_seed(0) if key is None else check_key(key)
    extra = {} if progress is None else {"progress": progress}  # verbose=0: the program without reporting
    with _progress.reporting(progress, max_iter):
        params = _fit(as_operand(Xp), as_operand(mask), as_operand(weight, dtype), key, init,
                      tol, reg_covar, n_components=n_components, emission=emission,
                      covariance_type=covariance_type, max_iter=max_iter, n_init=n_init,
                      update=update, n_symbols=n_symbols, **extra)
    finite = lambda a: bool(np.isfinite(np.asarray(a)).all())  # noqa: E731  (numpy: no eager program)
    if not finite(params.startprob) or (emission == "gaussian" and not finite(params.precisions_cholesky)):
        raise ValueError("fit_hmm produced non-finite parameters (a collapsed Gaussian state with "
                         "reg_covar=0?); increase reg_covar or scale the data")
    if max_iter > 0 and bool(np.isneginf(np.asarray(params.log_likelihood))):
        raise ValueError("X has probability 0 under the initial parameters (a sequence of positive "
                         "weight holds a symbol or a transition that init excludes): EM cannot "
                         "learn from it; remove the zeros from init or the sequence from X")
    if max_iter > 0 and not bool(params.converged):
        warnings.warn(f"fit_hmm did not converge in max_iter={max_iter} iterations (last change "
                      f"of the log-likelihood above tol={tol}).", ConvergenceWarning, stacklevel=2)
    return params
