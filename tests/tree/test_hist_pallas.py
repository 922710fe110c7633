"""The Pallas histogram kernel (interpret mode on the CPU) against the plain-JAX kernels and
numpy, and the engine's choice of kernel.

The kernel's index, mask and gather logic runs unchanged in interpret mode; its Triton
lowering is checked by lowering for CUDA on the CPU; Triton's compilation and a run on a GPU
are not exercised here (no GPU). Integer-valued statistics are summed exactly by both
kernels (float32 holds the integers below 2^24 exactly, in any order of addition), so they
must agree bit for bit; float statistics agree to float rounding: on a GPU the atomic adds
come in any order, so the tolerance is the bound on reordering a float32 sum of ``k`` terms,
``k · eps · sum |x|`` (here ``k <= n``). Small shapes, each compiled once.
"""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic.ensemble import xgboost
from jaxclassic.tree import _engine as E
from jaxclassic.tree import _hist_pallas as P

EPS32 = float(np.finfo(np.float32).eps)

# (n, F, n_codes, n_slots, block): n a multiple of the block, not one, one block only
CASES = [(64, 2, 9, 1, 32), (203, 3, 17, 4, 64), (37, 4, 5, 3, 16)]


def _data(n, n_features, n_codes, n_slots, seed, integer):
    rng = np.random.default_rng(seed)
    codes_T = rng.integers(0, n_codes, size=(n_features, n)).astype(np.uint8)
    weight = rng.integers(1, 4, n).astype(np.float32)
    weight[rng.random(n) < 0.2] = 0  # zero-weight rows: all their statistics are 0
    stats = rng.integers(-3, 4, (n, 2)) if integer else rng.normal(size=(n, 2))
    sc = np.concatenate([stats * weight[:, None], (weight > 0)[:, None]], 1).astype(np.float32)
    slot = np.where(rng.random(n) < 0.8, rng.integers(0, n_slots, n), n_slots).astype(np.int32)
    return codes_T, sc, slot


def _numpy_hist(codes_T, sc, slot, n_slots, n_codes):
    """(n_codes, S1, F, n_slots) float64 sums over the rows of positive weight, slot in range."""
    ref = np.zeros((n_codes, sc.shape[1], codes_T.shape[0], n_slots))
    keep = (slot < n_slots) & (sc[:, -1] > 0)
    for f in range(codes_T.shape[0]):
        np.add.at(ref, (codes_T[f, keep], slice(None), f, slot[keep]), sc[keep].astype(np.float64))
    return ref


def _reorder_tol(sc):
    return sc.shape[0] * EPS32 * float(np.abs(sc).sum())


@pytest.mark.full
@pytest.mark.parametrize("n, n_features, n_codes, n_slots, block", CASES)
def test_hist_equals_xla_and_numpy(n, n_features, n_codes, n_slots, block):
    pallas = jax.jit(lambda c, s, sl: P.hist(c, s, sl, n_slots, n_codes, interpret=True, block=block))
    xla = jax.jit(lambda c, s, sl: E._hist_xla(c, s, sl, n_slots, n_codes))
    for integer in (True, False):
        codes_T, sc, slot = _data(n, n_features, n_codes, n_slots, n, integer)
        got = np.asarray(pallas(codes_T, sc, slot))
        plain = np.asarray(xla(codes_T, sc, slot))
        ref = _numpy_hist(codes_T, sc, slot, n_slots, n_codes)
        assert got.dtype == np.float32 and got.shape == ref.shape
        if integer:  # exact sums: the same bits as XLA's and numpy's
            np.testing.assert_array_equal(got, plain)
            np.testing.assert_array_equal(got, ref)
        else:
            np.testing.assert_allclose(got, plain, rtol=0, atol=_reorder_tol(sc))
            np.testing.assert_allclose(got, ref, rtol=0, atol=_reorder_tol(sc))


@pytest.mark.full
def test_zero_weight_rows_have_no_influence():
    n, n_features, n_codes, n_slots, block = CASES[1]
    codes_T, sc, slot = _data(n, n_features, n_codes, n_slots, 1, True)
    junk = np.random.default_rng(9).normal(size=sc.shape).astype(np.float32)
    zero = sc[:, -1] == 0
    assert zero.any()
    # the rows of weight 0 hold statistics 0 (fit's convention); their codes and slots vary
    codes2 = np.where(zero[None, :], (codes_T + 1) % n_codes, codes_T).astype(np.uint8)
    kernel = jax.jit(lambda c, s, sl: P.hist(c, s, sl, n_slots, n_codes, interpret=True, block=block))
    a = np.asarray(kernel(codes_T, sc, slot))
    b = np.asarray(kernel(codes2, np.where(zero[:, None], 0 * junk, sc), np.where(zero, 0, slot)))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, _numpy_hist(codes_T, sc, slot, n_slots, n_codes))


ROWS_N, ROWS_M, ROWS_BLOCK = 203, 112, 32  # m: 3.5 blocks


def _rows_case(seed, n_used):
    codes_T, sc, slot = _data(ROWS_N, 3, 17, 4, seed, False)
    rng = np.random.default_rng(seed + 100)
    rows = rng.integers(0, ROWS_N, ROWS_M).astype(np.int32)
    filled = np.arange(ROWS_M) < n_used
    sc_sel = np.where(filled[:, None], sc[rows], 0).astype(np.float32)
    slot_sel = np.where(filled, slot[rows] % 4, np.arange(ROWS_M) % 4).astype(np.int32)  # in range
    return codes_T, sc_sel, slot_sel, rows, np.int32(n_used)


ROWS_PALLAS = jax.jit(lambda c, s, sl, r, u: P.hist_rows(c, s, sl, r, u, 4, 17, interpret=True, block=ROWS_BLOCK))


@pytest.mark.full
@pytest.mark.parametrize("n_used", [0, 45, ROWS_M])
def test_hist_rows_equals_the_xla_kernel(n_used):
    args = _rows_case(n_used, n_used)
    got = np.asarray(ROWS_PALLAS(*args))
    plain = np.asarray(jax.jit(E._hist_rows_xla, static_argnums=(5, 6, 7))(*args, 4, 17, 8))
    np.testing.assert_allclose(got, plain, rtol=0, atol=_reorder_tol(args[1]))
    # numpy: the first n_used compacted rows, by their data row's codes
    codes_T, sc_sel, slot_sel, rows, _ = args
    ref = np.zeros((3, 4, 17, sc_sel.shape[1]))  # (F, slots, codes, S1)
    for f in range(3):
        np.add.at(ref, (f, slot_sel[:n_used], codes_T[f, rows[:n_used]]), sc_sel[:n_used].astype(np.float64))
    np.testing.assert_allclose(got, ref, rtol=0, atol=_reorder_tol(args[1]))


def test_hist_rows_vmap_equals_loop_and_does_not_retrace():
    cases = [_rows_case(s, u) for s, u in ((1, 10), (2, 100), (3, 60))]
    stacked = [jnp.stack([jnp.asarray(c[i]) for c in cases]) for i in range(5)]
    got = np.asarray(jax.vmap(ROWS_PALLAS)(*stacked))
    for i, c in enumerate(cases):
        np.testing.assert_array_equal(got[i], np.asarray(ROWS_PALLAS(*c)))
    traces = []
    counted = jax.jit(lambda *a: traces.append(1) or P.hist_rows(*a, 4, 17, interpret=True, block=ROWS_BLOCK))
    counted(*cases[0])
    counted(*cases[1])
    assert len(traces) == 1


# ----------------------------------------------------------------------------- the choice
def test_the_cpu_chooses_xla(monkeypatch):
    monkeypatch.setattr(P, "HIST_KERNEL", None)
    monkeypatch.delenv("JAXCLASSIC_HIST_KERNEL", raising=False)
    if jax.default_backend() != "cpu":
        pytest.skip("a GPU host's default is the Pallas kernel when it passes its probe")
    assert P.kernel_choice() == "xla"


def test_the_override_env_then_flag(monkeypatch):
    monkeypatch.setattr(P, "HIST_KERNEL", None)
    monkeypatch.setenv("JAXCLASSIC_HIST_KERNEL", "pallas")
    assert P.kernel_choice() == "pallas"
    monkeypatch.setenv("JAXCLASSIC_HIST_KERNEL", "xla")
    assert P.kernel_choice() == "xla"
    monkeypatch.setattr(P, "HIST_KERNEL", "pallas-interpret")  # the flag wins over the variable
    assert P.kernel_choice() == "pallas-interpret"


def test_a_bad_override_names_the_variable_and_value(monkeypatch):
    monkeypatch.setattr(P, "HIST_KERNEL", None)
    monkeypatch.setenv("JAXCLASSIC_HIST_KERNEL", "cuda")
    with pytest.raises(ValueError, match=r"JAXCLASSIC_HIST_KERNEL .*'cuda'"):
        P.kernel_choice()


@pytest.fixture
def forced_pallas(monkeypatch):
    """The Pallas kernel (interpret mode) for the fits traced inside the test; the fit's
    compiled programs are dropped before and after, so no other test gets them."""
    xgboost._program.clear_cache()
    used = []
    real = P.hist_rows
    monkeypatch.setattr(P, "hist_rows", lambda *a, **k: used.append(1) or real(*a, **k))
    monkeypatch.setattr(P, "HIST_KERNEL", None)
    yield used
    P.HIST_KERNEL = None
    xgboost._program.clear_cache()


def _fit(kernel):
    # one fit_xgboost (gradient pairs: the GPU's case) of 60 rows, weights 0, 1, 2; the
    # program is traced anew under each kernel (~10 s per compile: one fit for the time budget)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(np.float32)
    sw = rng.integers(0, 3, 60).astype(np.float32)
    P.HIST_KERNEL = kernel
    xgboost._program.clear_cache()
    return jax.device_get(xgboost.fit_xgboost(X, y, n_estimators=2, max_depth=2, max_bin=16, sample_weight=sw))


@pytest.mark.full
def test_a_fit_with_the_pallas_kernel_equals_the_default(forced_pallas):
    default = _fit("xla")  # the CPU's default (on a GPU host the default is Pallas itself)
    assert not forced_pallas
    pallas = _fit("pallas-interpret")
    assert forced_pallas, "the Pallas kernel was not traced"
    # the trees' structure exactly; the float sums (gradients) to rounding: 60 float32 terms
    for a, b in zip(jax.tree.leaves(default), jax.tree.leaves(pallas)):
        if np.issubdtype(np.asarray(a).dtype, np.floating):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(a, b)


@pytest.mark.full
def test_the_gpu_default_is_checked_once_and_falls_back_to_xla(monkeypatch):
    # on a GPU the Pallas kernel is the default only if it builds and equals the XLA kernel
    # there; a kernel that fails to build (as a Triton error would) warns, and XLA stays
    monkeypatch.setattr(P, "HIST_KERNEL", None)
    monkeypatch.delenv("JAXCLASSIC_HIST_KERNEL", raising=False)
    monkeypatch.setattr(P, "_backend", lambda: "gpu")
    real = P._call

    def broken(*args):
        if not args[7]:  # not interpret: the GPU kernel
            raise RuntimeError("Triton lowering failed")
        return real(*args)

    monkeypatch.setattr(P, "_call", broken)
    P._probe.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="Pallas histogram kernel is not used.*Triton lowering failed"):
            assert P.kernel_choice() == "xla"
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # cached: no second probe, no second warning
            assert P.kernel_choice() == "xla"
        assert P._probe(interpret=True)  # the same probe passes where the kernel runs
    finally:
        P._probe.cache_clear()


@pytest.mark.full
@pytest.mark.parametrize("rows", [False, True])
def test_the_kernels_lower_to_triton_for_cuda_and_to_xla_for_the_cpu(rows):
    # Pallas -> Triton IR runs without a GPU (cross-platform lowering); Triton's PTX
    # compilation and the run need one. Compiled for the CPU, "pallas" is XLA's kernel.
    codes_T, sc, slot = (jnp.asarray(a) for a in _data(203, 3, 17, 4, 0, False))
    if rows:
        fn = jax.jit(lambda c, s, sl: P.hist_rows(c, s, sl % 4, jnp.arange(203) % 7, jnp.int32(99), 4, 17))
    else:
        fn = jax.jit(lambda c, s, sl: P.hist(c, s, sl, 4, 17))
    traced = fn.trace(codes_T, sc, slot)
    assert "xla.gpu.triton" in traced.lower(lowering_platforms=("cuda",)).as_text()
    assert "custom_call" not in traced.lower(lowering_platforms=("cpu",)).as_text()
    # batched (a vmapped forest: one more grid axis) and float64 (x64) lower too
    batched = jax.jit(jax.vmap(fn, in_axes=(None, 0, None))).trace(codes_T, jnp.stack([sc, sc]).astype(jnp.float64), slot)
    assert "xla.gpu.triton" in batched.lower(lowering_platforms=("cuda",)).as_text()
