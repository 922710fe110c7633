"""hmmlearn-compatible hidden Markov models: ``CategoricalHMM`` and ``GaussianHMM``.

Thin wrappers over :mod:`jaxclassic.graphical.hmm` (inference) and
:func:`jaxclassic.graphical.fit_hmm` (Baum--Welch) with hmmlearn's API: ``fit(X, lengths)``,
``score``, ``score_samples``, ``decode``, ``predict``, ``predict_proba``, ``sample``, the
attributes ``startprob_``, ``transmat_``, ``emissionprob_`` / ``means_``, ``covars_`` and the
``params`` / ``init_params`` letters (``"s"`` startprob, ``"t"`` transmat, ``"e"``
emissionprob, ``"m"`` means, ``"c"`` covars): ``params`` says what EM updates, ``init_params``
what ``fit`` draws; the others are taken from the attributes set before ``fit`` (hmmlearn's
rule).

Differences from hmmlearn, all documented on the classes:

* ``fit`` accepts ``sample_weight``, one weight per *sequence* (hmmlearn has none).
* ``GaussianHMM``: ``reg_covar`` (default 1e-6) on the covariances' diagonal instead of
  hmmlearn's ``covars_prior=1e-2`` / ``covars_weight`` (with ``reg_covar=0`` and hmmlearn's
  ``covars_prior=0`` the updates are identical); no mean / start / transition priors. The
  initial means are k-means++ seeds (hmmlearn runs k-means), covariances the data covariance.
* The initial ``startprob_`` / ``transmat_`` are halfway between uniform and a Dirichlet(1)
  draw (hmmlearn: Dirichlet(1/K) draws); ``n_init`` restarts (vmapped, best kept) are ours.
* Only the Viterbi ``algorithm`` (hmmlearn's default) for ``decode`` / ``predict``.

scikit-learn's estimator checks: the sequence API (``fit(X, lengths)``: the second positional
argument is hmmlearn's ``lengths``, not ``y``; ``sample_weight`` is per sequence) does not fit
several of them; those are listed with their reasons in tests/estimators/test_sklearn_checks.py.
"""

from __future__ import annotations

import numpy as np

from jaxclassic.estimators._base import (
    BaseEstimator,
    check_is_fitted,
    compute_dtype,
    dtype_scope,
    enter_dtype,
    fitted_dtype,
    start_fit,
    to_host,
    validate_data,
)
from jaxclassic.graphical import hmm as _hmm
from jaxclassic.graphical.hmm_fit import fit_hmm
from jaxclassic.validation import check_int, key_from_seed

__all__ = ["CategoricalHMM", "GaussianHMM"]


def _key(random_state):
    """A ``jax.random`` key drawn from scikit-learn's ``random_state``."""
    import jax
    from sklearn.utils import check_random_state

    return key_from_seed(check_random_state(random_state).randint(np.iinfo(np.int32).max))


class _BaseHMM(BaseEstimator):
    """Shared fit / inference of the two HMM estimators."""

    _letters = ""
    _emission = ""
    _warning_vocabulary = ((r"\bmax_iter=", "n_iter="),)

    # ------------------------------------------------------------------ hooks
    def _validate_X(self, X, reset):
        raise NotImplementedError

    def _random_init(self, X, lengths, sample_weight):
        """Params drawn as fit_hmm would (max_iter=0 runs only the initialisation)."""
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fit_hmm(X, lengths, self.n_components, max_iter=0, key=_key(self.random_state),
                           sample_weight=sample_weight, **self._fit_kwargs())

    def _check_letters(self, value, name):
        if not isinstance(value, str) or set(value) - set(self._letters):
            raise ValueError(f"{name} must be a string of the letters {self._letters!r}, got {value!r}")
        return value

    # ------------------------------------------------------------------ fit
    @dtype_scope
    def fit(self, X, lengths=None, sample_weight=None):
        """Estimate the model by Baum--Welch on the sequences of ``X``; returns ``self``.

        Parameters
        ----------
        X : (n, 1) int array (categorical) or (n, d) array (Gaussian)
            The sequences one after the other.
        lengths : sequence of int, optional
            Their lengths (summing to ``n``); ``None``: one sequence.
        sample_weight : (n_sequences,) array, optional
            One non-negative weight per sequence.
        """
        check_int(self.n_components, "n_components", low=1)  # named as the user wrote them
        check_int(self.n_iter, "n_iter", low=0)
        params_letters = self._check_letters(self.params, "params")
        init_letters = self._check_letters(self.init_params, "init_params")
        X = self._validate_X(X, reset=True)
        n_init = self.n_init
        init = None
        if set(self._letters) - set(init_letters):  # some parameters come from the attributes
            init = self._merge_init(X, lengths, sample_weight, init_letters)
            n_init = 1
        params = fit_hmm(X, lengths, self.n_components, max_iter=self.n_iter, tol=self.tol,
                         n_init=n_init, init=init, update=params_letters or None,
                         sample_weight=sample_weight, key=_key(self.random_state), verbose=self.verbose,
                         **self._fit_kwargs()) if params_letters else None
        if params is None:  # nothing to update: the start, scored
            params = init if init is not None else self._random_init(X, lengths, sample_weight)
        self.params_ = to_host(params)
        self._store(self.params_)
        self.n_iter_ = int(params.n_iter) if params.n_iter is not None else 0
        self.converged_ = bool(params.converged) if params.converged is not None else False
        self.monitor_history_ = ([] if params.log_likelihoods is None else
                                 np.asarray(params.log_likelihoods)[:self.n_iter_].tolist())
        return self

    def _merge_init(self, X, lengths, sample_weight, init_letters):
        start = self._random_init(X, lengths, sample_weight)
        fields = {}
        for letter, attr, field in self._attribute_map():
            if letter in init_letters:
                continue
            if not hasattr(self, attr):
                raise ValueError(f"init_params={self.init_params!r} leaves out {letter!r}, so "
                                 f"{attr} must be set before fit")
            fields[field] = np.asarray(getattr(self, attr), dtype=np.asarray(start.startprob).dtype)
        return self._rebuild(start, fields)

    # ------------------------------------------------------------------ inference
    def _sequences(self, X, lengths):
        check_is_fitted(self, "params_")
        X = self._validate_X(X, reset=False)
        enter_dtype(fitted_dtype(self))
        return _hmm._host_sequences(self.params_, X, lengths)

    @dtype_scope
    def _posteriors(self, X, lengths):
        Xp, mask = self._sequences(X, lengths)
        gamma, ll = _hmm._batch_gamma(self.params_, Xp, mask)
        return np.asarray(gamma)[mask], np.asarray(ll)

    @dtype_scope
    def _viterbi(self, X, lengths):
        Xp, mask = self._sequences(X, lengths)
        paths, log_probs = _hmm._batch_viterbi(self.params_, Xp, mask)
        self._check_possible(log_probs)
        return np.asarray(paths)[mask].astype(np.int64), float(np.sum(np.asarray(log_probs)))

    @staticmethod
    def _check_possible(log_probs):
        """Posteriors / paths of a sequence of probability 0 do not exist: a clear error."""
        bad = np.flatnonzero(np.isneginf(np.asarray(log_probs)))
        if bad.size:
            raise ValueError(f"sequence {int(bad[0])} of X has probability 0 under the model (a "
                             f"symbol or transition of probability 0): no posteriors or path")

    def score(self, X, lengths=None):
        """Total log-likelihood :math:`\\sum_s\\log p(x^{(s)})` of the sequences of ``X``."""
        return float(np.sum(self._posteriors(X, lengths)[1]))

    def score_samples(self, X, lengths=None):
        """``(log-likelihood, posteriors (n, K))``, as hmmlearn."""
        gamma, ll = self._posteriors(X, lengths)
        self._check_possible(ll)
        return float(np.sum(ll)), gamma

    def predict_proba(self, X, lengths=None):
        """State posteriors :math:`\\gamma_t(k)` of every step, ``(n, K)``."""
        gamma, ll = self._posteriors(X, lengths)
        self._check_possible(ll)
        return gamma

    def decode(self, X, lengths=None, algorithm="viterbi"):
        """``(log p(z*, x), z* (n,))``: the Viterbi paths of the sequences of ``X``."""
        if algorithm != "viterbi":
            raise ValueError(f"algorithm must be 'viterbi', got {algorithm!r}")
        path, lp = self._viterbi(X, lengths)
        return lp, path

    def predict(self, X, lengths=None):
        """The Viterbi state of every step, ``(n,)``."""
        return self._viterbi(X, lengths)[0]

    @dtype_scope
    def sample(self, n_samples=1, random_state=None, currstate=None):
        """Draw one sequence: ``(X, states)``, from ``random_state`` (default the estimator's)."""
        check_is_fitted(self, "params_")
        if currstate is not None:
            raise ValueError("currstate is not supported (the sequence starts from startprob_)")
        if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
            raise ValueError(f"n_samples must be a positive int, got {n_samples!r}")
        enter_dtype(fitted_dtype(self))
        key = _key(self.random_state if random_state is None else random_state)
        X, states = _hmm.sample(self.params_, int(n_samples), key=key)
        X = np.asarray(X)
        return (X[:, None].astype(np.int64) if X.ndim == 1 else X), np.asarray(states).astype(np.int64)


class CategoricalHMM(_BaseHMM):
    """HMM with categorical emissions, fitted by Baum--Welch (hmmlearn's ``CategoricalHMM``).

    Parameters
    ----------
    n_components : int, default=1
        Number of hidden states.
    n_features : int, optional
        Number of symbols (default ``max(X) + 1`` at fit).
    n_iter : int, default=10
        Bound on EM iterations.
    tol : float, default=1e-2
        EM stops when the total log-likelihood changes by at most ``tol``.
    n_init : int, default=1
        Restarts (vmapped); the largest log-likelihood is kept.
    params, init_params : str, default="ste"
        Letters of the parameters EM updates / ``fit`` initialises (module docstring).
    random_state : int, RandomState or None
    verbose : int >= 0, default=0
        hmmlearn's flag (its ``False``): above 0, a tqdm bar of the Baum--Welch iterations and a
        line ``[t]\tlog_likelihood:<value>\tchange:<value>`` every ``verbose`` iterations and after
        the last, sent from inside the compiled loop (:mod:`jaxclassic._progress`).

    Attributes
    ----------
    startprob_ : (K,) array
    transmat_ : (K, K) array
    emissionprob_ : (K, M) array
    n_features_ : int
        M.
    n_iter_, converged_, monitor_history_
        EM's iterations, whether ``tol`` was met and the log-likelihood per iteration.
    params_ : CategoricalHMMParams

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([0, 0, 0, 1, 1, 1] * 10)[:, None]
    >>> m = CategoricalHMM(2, n_iter=50, random_state=0).fit(X)
    >>> sorted(np.round(m.emissionprob_.max(axis=1), 2).tolist())
    [1.0, 1.0]
    """

    _letters = "ste"
    _emission = "categorical"

    def __init__(self, n_components=1, *, n_features=None, n_iter=10, tol=1e-2, n_init=1,
                 params="ste", init_params="ste", random_state=None, verbose=0):
        self.verbose = verbose
        self.n_components = n_components
        self.n_features = n_features
        self.n_iter = n_iter
        self.tol = tol
        self.n_init = n_init
        self.params = params
        self.init_params = init_params
        self.random_state = random_state

    def _validate_X(self, X, reset):
        X = validate_data(self, X, dtype="numeric", reset=reset)
        if X.shape[1] != 1:
            raise ValueError(f"X must be one column of symbols, shape (n, 1), got {X.shape}")
        if X.dtype.kind == "f" and not np.all(X == np.round(X)):
            raise ValueError("X must hold integer symbols, got non-integer values")
        if X.dtype.kind not in "iuf" or (X < 0).any():
            raise ValueError("X must hold non-negative integer symbols")
        if reset:
            start_fit(self, compute_dtype(np.float64))
            n = int(X.max()) + 1 if self.n_features is None else self.n_features
            self.n_features_ = n
        return X[:, 0].astype(np.int64)

    def _fit_kwargs(self):
        return dict(emission="categorical", n_symbols=self.n_features_)

    def _attribute_map(self):
        return (("s", "startprob_", "startprob"), ("t", "transmat_", "transmat"),
                ("e", "emissionprob_", "emissionprob"))

    def _rebuild(self, start, fields):
        merged = {f: fields.get(f, getattr(start, f)) for f in ("startprob", "transmat", "emissionprob")}
        return _hmm.categorical_hmm(**merged)

    def _store(self, p):
        self.startprob_, self.transmat_, self.emissionprob_ = p.startprob, p.transmat, p.emissionprob


class GaussianHMM(_BaseHMM):
    """HMM with Gaussian emissions, fitted by Baum--Welch (hmmlearn's ``GaussianHMM``).

    Parameters
    ----------
    n_components : int, default=1
    covariance_type : {"diag", "full", "tied", "spherical"}, default="diag"
    reg_covar : float, default=1e-6
        Added to the covariances' diagonal (hmmlearn: ``covars_prior``; module docstring).
    n_iter : int, default=10
    tol : float, default=1e-2
    n_init : int, default=1
    params, init_params : str, default="stmc"
    random_state : int, RandomState or None
    verbose : int >= 0, default=0
        hmmlearn's flag (its ``False``): above 0, a tqdm bar of the Baum--Welch iterations and a
        line ``[t]\tlog_likelihood:<value>\tchange:<value>`` every ``verbose`` iterations and after
        the last, sent from inside the compiled loop (:mod:`jaxclassic._progress`).

    Attributes
    ----------
    startprob_ : (K,) array
    transmat_ : (K, K) array
    means_ : (K, d) array
    covars_ : (K, d, d) array
        Full matrices for every ``covariance_type`` (hmmlearn's getter); set it (before a fit
        that leaves ``"c"`` out of ``init_params``) in the compact shape of the type: (K, d)
        diag, (K, d, d) full, (d, d) tied, (K,) spherical.
    n_iter_, converged_, monitor_history_, n_features_in_
    params_ : GaussianHMMParams

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.concatenate([rng.normal(0, 1, (50, 1)), rng.normal(8, 1, (50, 1))])
    >>> m = GaussianHMM(2, n_iter=30, random_state=0).fit(X)
    >>> np.round(np.sort(m.means_[:, 0])).tolist()
    [0.0, 8.0]
    """

    _letters = "stmc"
    _emission = "gaussian"

    def __init__(self, n_components=1, *, covariance_type="diag", reg_covar=1e-6, n_iter=10,
                 tol=1e-2, n_init=1, params="stmc", init_params="stmc", random_state=None, verbose=0):
        self.verbose = verbose
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.reg_covar = reg_covar
        self.n_iter = n_iter
        self.tol = tol
        self.n_init = n_init
        self.params = params
        self.init_params = init_params
        self.random_state = random_state

    @property
    def covars_(self):
        c = np.asarray(self._covars_)
        ct, d = self.covariance_type, np.shape(self.means_)[1]
        if ct == "full":
            return c
        if ct == "tied":
            return np.broadcast_to(c, (self.n_components, d, d)).copy()
        eye = np.eye(d, dtype=c.dtype)
        return (c[:, :, None] if ct == "diag" else c[:, None, None]) * eye

    @covars_.setter
    def covars_(self, value):
        self._covars_ = np.asarray(value)

    def _validate_X(self, X, reset):
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=reset)
        if reset:
            dtype = start_fit(self, compute_dtype(X.dtype))
            X = X.astype(dtype, copy=False)
        return X

    def _fit_kwargs(self):
        return dict(emission="gaussian", covariance_type=self.covariance_type,
                    reg_covar=self.reg_covar)

    def _attribute_map(self):
        return (("s", "startprob_", "startprob"), ("t", "transmat_", "transmat"),
                ("m", "means_", "means"), ("c", "_covars_", "covars"))

    def _rebuild(self, start, fields):
        merged = {f: fields.get(f, getattr(start, f)) for f in ("startprob", "transmat", "means", "covars")}
        return _hmm.gaussian_hmm(**merged, covariance_type=self.covariance_type)

    def _store(self, p):
        self.startprob_, self.transmat_, self.means_ = p.startprob, p.transmat, p.means
        self._covars_ = p.covars
