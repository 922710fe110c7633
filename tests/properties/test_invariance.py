"""Properties of every weighted fit: row order, zero-weight rows, integer weights.

Each property holds for the fit's *solution*, so the fits' responses (probabilities, decision
values or predictions) on a fixed test grid are compared, within the case's tolerance
(``_cases.CASES``: closed forms tight, iterative solvers their tolerance). All data is
``24 x 3``: each fit is compiled once per session.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jaxclassic import graphical
from tests.properties._cases import (CASE_IDS, CASES, FAST, N_CLASSES, N_SAMPLES, as_jnp, compare_fits,
                                     make_data, permutations, seeds)

weights_012 = st.lists(st.integers(0, 2), min_size=N_SAMPLES, max_size=N_SAMPLES)


#: rows kept positive in every draw: two of each class (labels are interleaved), so no class
#: vanishes and no class's scatter is degenerate (a class of ONE distinct row makes LDA's
#: pooled covariance singular: a documented arbitrary answer, not a property), and k-NN's
#: k = 5 <= the rows of positive weight
N_KEPT = 2 * N_CLASSES


def _keep_classes(w):
    """Weights with the first ``N_KEPT`` rows positive."""
    w = np.asarray(w, np.float64)
    w[:N_KEPT] = np.maximum(w[:N_KEPT], 1.0)
    return w


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@FAST
@given(seed=seeds, perm=permutations, w=weights_012)
def test_row_permutation_invariance(case, seed, perm, w):
    """Permuting the rows (with their labels and weights) leaves the fitted model unchanged."""
    if not case.order_free:
        pytest.skip(f"{case.name} visits rows in order")
    X, y, X_test = make_data(seed, case.kind)
    w = _keep_classes(w)
    p = np.asarray(perm)
    a = case.fit(*as_jnp(X, y, w))
    b = case.fit(*as_jnp(X[p], y[p], w[p]))
    compare_fits(case, a, b, X, X_test, w, "permuted rows")


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@FAST
@given(seed=seeds, w=weights_012, other=seeds)
def test_zero_weight_rows_have_no_influence(case, seed, w, other):
    """Rows of weight 0 may hold anything (here: other features 10x as large, other labels):
    the fit is the same. Fixed-shape form of "fit with zero-weight rows == fit without them"
    (one compile); the repetition property below also removes them literally."""
    X, y, X_test = make_data(seed, case.kind)
    w = _keep_classes(w)
    rng = np.random.default_rng(other)
    zero = w == 0
    X2, y2 = X.copy(), y.copy()
    X2[zero] = 10.0 * rng.normal(size=(int(zero.sum()), X.shape[1]))
    if case.kind == "regression":
        y2[zero] = 10.0 * rng.normal(size=int(zero.sum()))
    else:
        y2[zero] = rng.integers(0, int(y.max()) + 1, size=int(zero.sum()))
    a = case.fit(*as_jnp(X, y, w))
    b = case.fit(*as_jnp(X2, y2, w))
    # the same rows in the same order: no tie can break differently, so trees too are compared
    # on the test grid (their thresholds must not see the zero-weight rows' values)
    compare_fits(case, a, b, X, X_test, w, "zero-weight rows changed", on_test=True)


#: fits where a weight is not a count of copies, with the reason
NOT_COUNTS = {
    "knn": "a repeated row takes several of the k neighbour slots; a weighted row takes one",
    "perceptron": "a row of weight c updates by c on a mistake, c copies update once each and "
                  "change the scores between them",
    "kmeans": "k-means++ draws rows by index with the key: c copies and a row of weight c "
              "are drawn alike only in distribution",
    "random_forest": "the bootstrap draws rows by index with the key: c copies of a row are drawn "
                     "independently, a row of weight c is one draw; equal in distribution only",
}


@pytest.mark.full
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@FAST
@given(seed=seeds, idx=st.lists(st.integers(0, N_SAMPLES - 1), min_size=N_SAMPLES, max_size=N_SAMPLES))
def test_integer_weights_equal_repeated_rows(case, seed, idx):
    """Weight ``c_i`` (how often row i was drawn) equals the rows literally repeated ``c_i``
    times: a draw of 24 row indices, the first ``N_KEPT`` forced to rows ``0..N_KEPT-1``, so both
    data sets are 24 x 3 (one compile); the rows never drawn have weight 0."""
    if case.name in NOT_COUNTS:
        pytest.skip(NOT_COUNTS[case.name])
    X, y, X_test = make_data(seed, case.kind)
    idx = np.asarray(idx)
    idx[:N_KEPT] = np.arange(N_KEPT)
    counts = np.bincount(idx, minlength=N_SAMPLES).astype(np.float64)
    a = case.fit(*as_jnp(X, y, counts))
    b = case.fit(*as_jnp(X[idx], y[idx], np.ones(N_SAMPLES)))
    compare_fits(case, a, b, X, X_test, counts, "counts vs repeated rows")


@pytest.mark.filterwarnings("ignore::jaxclassic.exceptions.ConvergenceWarning")  # tol=0: runs max_iter
@FAST
@given(symbols=st.lists(st.integers(0, 3), min_size=N_SAMPLES, max_size=N_SAMPLES),
       other=st.lists(st.integers(0, 3), min_size=N_SAMPLES // 2, max_size=N_SAMPLES // 2),
       seed=seeds)
@pytest.mark.full
def test_hmm_zero_weight_sequence_has_no_influence(symbols, other, seed):
    """Baum-Welch weighs whole sequences: of two sequences of 12 symbols, the second at
    weight 0 may hold any symbols, the fitted HMM is the same (bit for bit here: the same
    operations on the same first sequence; compared to 1e-12)."""
    X = np.asarray(symbols, np.int32)
    X[:4] = np.arange(4)  # every symbol present: n_symbols = 4 (one compile)
    X2 = X.copy()
    X2[N_SAMPLES // 2:] = other
    weight = jnp.asarray([1.0, 0.0])
    fits = [graphical.fit_hmm(jnp.asarray(x), [12, 12], 2, n_symbols=4, tol=0.0, max_iter=30,
                              sample_weight=weight, key=jax.random.key(seed % 1000)) for x in (X, X2)]
    for field in ("startprob", "transmat", "emissionprob", "log_likelihood"):
        np.testing.assert_allclose(np.asarray(getattr(fits[1], field)), np.asarray(getattr(fits[0], field)),
                                   rtol=1e-12, atol=1e-12, err_msg=field)
