"""Determinism and compiled programs across the families (issue 17).

* Same inputs and key => bit-identical params on the CPU (two calls), for a fit of every family.
* Different keys => different params where randomness applies (k-means++ seeding, the GMM's
  k-means start, random forests' bootstrap and features, bagging's bootstrap, SGD's shuffles).
* A repeated call with the same shapes (other values, another key) traces and compiles nothing:
  the programs traced during the call are recorded from JAX's own events
  (``jax.monitoring``, ``/jax/core/compile/jaxpr_trace_duration`` and the backend compile;
  see ``tests/_bad_input.py``), which works on the public fits as they are, where
  ``chex.assert_max_traces`` would need the inner jitted function wrapped.

The data and calls are the bad-input matrix's (``tests/_bad_input.py``): the same
12 x 3 shapes and settings, so the programs compiled there are reused here (and the reverse).
"""

import jax
import numpy as np
import pytest

from tests._bad_input import base_data, run, spec, using_key

#: one or two fits a family whose result is a function of the data alone (the key, where the
#: fit takes one, is fixed)
DETERMINISTIC = (
    "fit_ridge",  # linear, closed form
    "fit_perceptron",  # linear, online passes in row order
    "fit_kernel_svr",  # svm (SMO)
    "fit_gaussian_nb", "fit_qda",  # discriminant
    "fit_knn", "fit_kde",  # neighbors
    "fit_gp",  # gaussian_process
    "fit_id3", "fit_c45",  # tree
    "fit_voting",  # ensemble (voting)
    "fit_bayes_net",  # graphical
)

#: fits whose result depends on the key, and what the key draws
RANDOMISED = {
    "fit_kmeans": "k-means++ seeding",
    "fit_gmm": "the k-means start of EM",
    "fit_random_forest": "bootstrap counts and feature subsets",
    "fit_bagging": "bootstrap counts",
    "fit_sgd_regressor": "the order of the mini-batches",
    "fit_sgd_classifier": "the order of the rows in each epoch",
    "fit_minibatch_kmeans": "k-means++ seeding and the drawn mini-batches",
}


def _leaves(params):
    return jax.tree_util.tree_leaves_with_path(params)


def _bit_identical(a, b) -> list:
    """Paths of the leaves of two params pytrees that differ in any bit (NaN == NaN)."""
    out = []
    for (path, x), (_, y) in zip(_leaves(a), _leaves(b), strict=True):
        if hasattr(x, "dtype") or isinstance(x, np.ndarray):
            x, y = np.atleast_1d(np.asarray(x)), np.atleast_1d(np.asarray(y))
            same = x.dtype == y.dtype and x.shape == y.shape and (
                np.array_equal(np.ascontiguousarray(x).view(np.uint8),
                               np.ascontiguousarray(y).view(np.uint8)) if x.dtype.kind in "fc"
                else np.array_equal(x, y))
        else:
            same = x == y
        if not same:
            out.append(jax.tree_util.keystr(path))
    return out


def _call(name, data, k=0):
    with using_key(jax.random.key(k)):
        outcome = run(spec(name), data)
    assert outcome.exception is None, f"{name}: {outcome.exception!r}"
    return outcome


def _shifted(data):
    """Other values, same shapes and dtypes (the categorical codes permuted, not shifted)."""
    X = np.asarray(data.X)
    X = X[::-1].copy() if X.dtype.kind in "iu" or X.ndim != 2 else X + 0.25
    return data._replace(X=X)


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_same_inputs_give_bit_identical_params_and_no_retrace(name):
    data = base_data(spec(name).kind)
    first = _call(name, data)
    second = _call(name, data)
    assert second.traces == [], f"{name}: the repeated call traced {second.traces}"
    assert not _bit_identical(first.result, second.result), _bit_identical(first.result, second.result)
    other = _call(name, _shifted(data))
    assert other.traces == [], f"{name}: a call with other values of the same shapes traced {other.traces}"


@pytest.mark.full
@pytest.mark.parametrize("name", sorted(RANDOMISED))
def test_key_decides_the_randomised_fits(name):
    data = base_data(spec(name).kind)
    first = _call(name, data, k=0)
    again = _call(name, data, k=0)
    assert again.traces == [], f"{name}: the repeated call traced {again.traces}"
    assert not _bit_identical(first.result, again.result), "same key, different params"
    # other keys: the same program, and (on at least one of three) other params
    others = [_call(name, data, k=k) for k in (1, 2, 3)]
    assert all(o.traces == [] for o in others), [o.traces for o in others]
    assert any(_bit_identical(first.result, o.result) for o in others), (
        f"{name}: keys 0..3 gave bit-identical params; {RANDOMISED[name]} should depend on the key")
