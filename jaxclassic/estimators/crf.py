"""scikit-learn-style linear-chain CRF over token-feature sequences (the sklearn-crfsuite API).

A thin wrapper over :mod:`jaxclassic.graphical.crf`: it maps token items to sparse indicator
features (:func:`jaxclassic.graphical._crf_features.index_features`), encodes the labels,
pads sequences, tokens, active features and the feature table to shape buckets (so refits of
nearby sizes reuse one compiled program; padded sequences have weight 0, padded feature rows
are never indexed) and calls :func:`~jaxclassic.graphical.crf.fit_crf`.

Not a scikit-learn estimator in the strict sense: ``X`` is a list of sequences, ``y`` a list
of label sequences, ``predict`` returns a list of label lists, so scikit-learn's estimator
checks (built on 2-D ``X`` and 1-D ``y``) do not apply; tests/estimators/test_sklearn_checks.py
lists the class with that reason. ``get_params``/``set_params``/``clone`` work.
"""

from __future__ import annotations

import numbers
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic.estimators._base import (
    BaseEstimator,
    bucket_size,
    check_is_fitted,
    compute_dtype,
    dtype_scope,
    enter_dtype,
    start_fit,
    to_host,
)
from jaxclassic.graphical import crf as _crf
from jaxclassic.graphical._crf_features import index_features
from jaxclassic.validation import check_int, check_scalar

__all__ = ["ChainCRF"]


def _pow2(n: int, low: int) -> int:
    return max(low, 1 << max(0, int(n) - 1).bit_length())


@_jit.jit
def _predict(params, X, lengths):
    return _crf.predict(params, X, lengths)


@_jit.jit
def _node_marginals(params, X, lengths):
    return _crf._batch_marginals(params, X, lengths)[0]


class ChainCRF(BaseEstimator):
    r"""Linear-chain conditional random field trained by L-BFGS (sklearn-crfsuite's interface).

    Minimises :math:`\sum_i s_i[\log Z(x_i) - s(y_i\mid x_i)] + c_2\lVert\theta\rVert^2`
    (crfsuite's ``c2`` scaling) over state-feature weights (every attribute x label),
    label-transition weights and start/end weights; see :mod:`jaxclassic.graphical.crf`.

    Parameters
    ----------
    c2 : float, default 1.0
        L2 coefficient (crfsuite's ``c2``).
    max_iter : int, default 100
        L-BFGS iterations at most.
    tol : float, default 1e-3
        Stop when the gradient norm of the objective divided by the total weight is <= tol.
    memory_size : int, default 10
        L-BFGS history length.
    verbose : int >= 0, default 0
        Above 0: a tqdm bar of the L-BFGS iterations and a line
        ``[t]\tobjective:<value>\tgrad_norm:<value>`` every ``verbose`` iterations and after the
        last, sent from inside the compiled loop (:mod:`jaxclassic._progress`).

    Attributes
    ----------
    classes_ : ndarray
        The sorted labels seen in ``fit``.
    vocabulary_ : dict str -> int
        Attribute name -> row of the weight table (attributes unseen in ``fit`` are ignored
        at prediction, as in crfsuite).
    params_ : CRFParams
        The functional core's params (numpy leaves); rows past ``len(vocabulary_)`` are
        padding.
    n_iter_ : int
    converged_ : bool

    Notes
    -----
    ``X`` is a list of sequences; a sequence is a list of token items: a dict of features
    (``{"pos": "NN"}`` is the attribute ``"pos:NN"``; ``{"bias": 1.0}``, ``{"BOS": True}``
    indicators), a ``str`` (the attribute ``"token:<str>"``) or a list of attribute names.
    Only indicator features (values str, bool, 0 or 1) are supported here; the functional
    :func:`~jaxclassic.graphical.crf.fit_crf` also takes dense real-valued features.
    A sequence of length 1 is valid (no transition enters); an empty one is an error.
    Computes in float64 (the input holds no floats), float32 under
    ``set_config(dtype="float32")``.

    Example
    -------
    >>> X = [[{"w": "the"}, {"w": "dog"}], [{"w": "a"}, {"w": "cat"}, {"w": "runs"}]]
    >>> y = [["D", "N"], ["D", "N", "V"]]
    >>> ChainCRF(c2=0.01).fit(X, y).predict([[{"w": "the"}, {"w": "cat"}]])
    [['D', 'N']]

    References
    ----------
    Lafferty, McCallum, Pereira (2001); N. Okazaki (2007), CRFsuite; sklearn-crfsuite.
    """

    def __init__(self, c2=1.0, max_iter=100, tol=1e-3, memory_size=10, verbose=0):
        self.verbose = verbose
        self.c2 = c2
        self.max_iter = max_iter
        self.tol = tol
        self.memory_size = memory_size

    # ------------------------------------------------------------------ data
    @staticmethod
    def _check_X(X, name="X"):
        if isinstance(X, (str, bytes)) or not hasattr(X, "__len__"):
            raise TypeError(f"{name} must be a list of sequences of token items, got {type(X).__name__}")
        if len(X) == 0:
            raise ValueError(f"{name} must hold at least one sequence, got 0")
        for i, seq in enumerate(X):
            if isinstance(seq, (str, bytes, dict)) or not hasattr(seq, "__len__"):
                raise TypeError(f"{name}[{i}] must be a sequence of token items, got {type(seq).__name__}")
            if len(seq) == 0:
                raise ValueError(f"{name}[{i}] is an empty sequence: every sequence needs length >= 1")

    def _encode(self, X):
        return self._pad(*index_features(X, self.vocabulary_)[:2])

    @staticmethod
    def _pad(idx, lengths):
        """Pad sequences (weight-0 rows of length 1), tokens and active features to buckets."""
        n = len(lengths)
        T, K = _pow2(idx.shape[1], 8), _pow2(idx.shape[2], 1)
        out = np.full((bucket_size(n), T, K), -1, np.int32)
        out[:n, : idx.shape[1], : idx.shape[2]] = idx
        full_lengths = np.ones(out.shape[0], np.int32)
        full_lengths[:n] = lengths
        return out, full_lengths

    def _codes(self, y, X, name="y"):
        if isinstance(y, (str, bytes)) or not hasattr(y, "__len__") or len(y) != len(X):
            got = len(y) if hasattr(y, "__len__") and not isinstance(y, (str, bytes)) else type(y).__name__
            raise ValueError(f"{name} must hold one label sequence per sequence of X ({len(X)}), got {got}")
        for i, (xs, ys) in enumerate(zip(X, y)):
            if isinstance(ys, (str, bytes)) or not hasattr(ys, "__len__") or len(ys) != len(xs):
                got = len(ys) if hasattr(ys, "__len__") else type(ys).__name__
                raise ValueError(f"{name}[{i}] has {got} labels but X[{i}] has {len(xs)} tokens")

    @staticmethod
    def _classes(flat):
        """Sorted distinct labels; all strings or all numbers (a mix has no order)."""
        kinds = {"str" if isinstance(label, str) else "number" if isinstance(label, (numbers.Number, np.generic))
                 and not isinstance(label, (complex, np.complexfloating)) else type(label).__name__ for label in flat}
        if len(kinds) > 1 or kinds - {"str", "number"}:
            raise TypeError(f"y must hold labels that are all strings or all numbers, got {sorted(kinds)}")
        return np.unique(np.asarray(flat, dtype=object if kinds == {"str"} else None))

    # ------------------------------------------------------------------ fit / predict
    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` (list of token-item sequences) and ``y`` (list of label sequences).

        ``sample_weight`` : (n_sequences,) per-sequence weights (0 = no influence).
        """
        c2 = check_scalar(self.c2, "c2", low=0.0)
        tol = check_scalar(self.tol, "tol", low=0.0)
        max_iter = check_int(self.max_iter, "max_iter", low=1)
        memory_size = check_int(self.memory_size, "memory_size", low=1)
        self._check_X(X)
        self._codes(y, X)
        flat = [label for seq in y for label in seq]
        self.classes_ = self._classes(flat)
        code = {label: i for i, label in enumerate(self.classes_.tolist())}
        dtype = start_fit(self, compute_dtype(np.float64))
        idx, lengths, self.vocabulary_ = index_features(X)
        idx, lengths = self._pad(idx, lengths)
        n, T = len(X), idx.shape[1]
        labels = np.zeros((idx.shape[0], T), np.int32)
        for i, seq in enumerate(y):
            labels[i, : len(seq)] = [code[label] for label in seq]
        weight = np.zeros(idx.shape[0], dtype)
        if sample_weight is None:
            weight[:n] = 1.0
        else:
            sw = np.asarray(sample_weight, dtype=dtype)
            if sw.shape != (n,):
                raise ValueError(f"sample_weight must have shape ({n},), got {sw.shape}")
            weight[:n] = sw
        params = _crf.fit_crf(
            idx, labels, lengths=lengths, c2=c2, sample_weight=weight, n_labels=len(self.classes_),
            n_features=bucket_size(len(self.vocabulary_)), max_iter=max_iter, tol=tol,
            memory_size=memory_size, verbose=self.verbose,
        )
        self.params_ = to_host(params)
        self.n_iter_ = int(params.n_iter)
        self.converged_ = bool(params.converged)
        return self

    def _prepare(self, X):
        check_is_fitted(self, "params_")
        self._check_X(X)
        enter_dtype(self._fit_dtype)
        return self._encode(X)

    @dtype_scope
    def predict(self, X):
        """Viterbi label sequences: a list (one per sequence) of lists of labels."""
        idx, lengths = self._prepare(X)
        pred = np.asarray(_predict(self.params_, idx, lengths))
        return [self.classes_[pred[i, : len(seq)]].tolist() for i, seq in enumerate(X)]

    @dtype_scope
    def predict_marginals(self, X):
        """Posterior label probabilities per token: a list of lists of ``{label: p}`` dicts
        (sklearn-crfsuite's format), from :func:`jaxclassic.graphical.crf.marginals`."""
        idx, lengths = self._prepare(X)
        node = np.asarray(_node_marginals(self.params_, idx, lengths))
        names = self.classes_.tolist()
        return [[dict(zip(names, map(float, node[i, t]))) for t in range(len(seq))]
                for i, seq in enumerate(X)]

    @dtype_scope
    def score(self, X, y):
        """Token accuracy of ``predict(X)`` against ``y``.

        A label in ``y`` that was not seen in ``fit`` can never be predicted: its tokens count
        as errors (sklearn-crfsuite's metrics do the same). Raising instead would make every
        cross-validation fold that holds a rare label unscorable (``GridSearchCV`` then scores
        NaN for every candidate).
        """
        check_is_fitted(self, "params_")
        self._check_X(X)
        self._codes(y, X)
        pred = self.predict(X)
        hits = sum(a == b for p, t in zip(pred, y) for a, b in zip(p, t))
        return hits / sum(len(t) for t in y)
