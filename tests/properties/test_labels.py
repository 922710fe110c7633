"""Properties of classifiers' outputs: relabelling the classes, probabilities on the simplex.

Relabelling: fitting on labels ``pi(y)`` (``pi`` a permutation of the class names) gives the
probabilities of the original fit with their columns permuted, ``p'[:, pi(k)] = p[:, k]``
(a binary decision function changes sign when the two names swap). Probabilities: every
``predict_proba`` row lies in ``[0, 1]`` and sums to 1, also far outside the training data.
Data are 24 x 3 (``_cases``): each fit compiles once.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.properties._cases import (CASES, FAST, N_CLASSES, N_SAMPLES, as_jnp, make_data, seeds)

CLASSIFIERS = [c for c in CASES if c.kind in ("binary", "multiclass")]
PROBA = [c for c in CLASSIFIERS if c.response.__name__ == "predict_proba"]


@pytest.mark.parametrize("case", CLASSIFIERS, ids=[c.name for c in CLASSIFIERS])
@FAST
@given(seed=seeds, names=st.permutations(range(N_CLASSES)))
def test_relabelling_permutes_probabilities(case, seed, names):
    """Class ``k`` renamed ``names[k]``: the probabilities' columns follow the names."""
    X, y, X_test = make_data(seed, case.kind)
    n_classes = int(y.max()) + 1
    # a permutation of the classes present (for two classes: the identity or the swap)
    pi = np.asarray([k for k in names if k < n_classes])
    w = np.ones(N_SAMPLES)
    a = case.fit(*as_jnp(X, y, w))
    b = case.fit(*as_jnp(X, pi[y].astype(y.dtype), w))
    grid = X if case.on_train else X_test
    ra, rb = np.asarray(case.response(a, grid)), np.asarray(case.response(b, grid))
    if ra.ndim == 1:  # a binary decision function (class 1 positive): swapped names flip it
        expected = ra if pi[1] == 1 else -ra
    else:
        expected = np.empty_like(ra)
        expected[:, pi] = ra
    np.testing.assert_allclose(rb, expected, rtol=case.rtol, atol=case.atol,
                               err_msg=f"{case.name}: relabelled classes {pi.tolist()}")


@pytest.mark.parametrize("case", PROBA, ids=[c.name for c in PROBA])
@FAST
@given(seed=seeds, w=st.lists(st.integers(0, 3), min_size=N_SAMPLES, max_size=N_SAMPLES),
       scale=st.sampled_from([1.0, 1e2, 1e4]))
@pytest.mark.full
def test_probabilities_on_the_simplex(case, seed, w, scale):
    """Probabilities are finite, in [0, 1], and sum to 1 (float64: to 1e-12), at the test
    grid scaled up to 1e4 (far from the data: scores of order 1e4, overflow if unguarded)."""
    X, y, X_test = make_data(seed, case.kind)
    w = np.asarray(w, np.float64)
    w[: 2 * N_CLASSES] = np.maximum(w[: 2 * N_CLASSES], 1.0)
    proba = np.asarray(case.response(case.fit(*as_jnp(X, y, w)), X_test * scale))
    assert np.all(np.isfinite(proba)), f"{case.name}: non-finite probabilities at scale {scale}"
    assert proba.min() >= 0.0 and proba.max() <= 1.0, (case.name, proba.min(), proba.max())
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12, err_msg=case.name)
