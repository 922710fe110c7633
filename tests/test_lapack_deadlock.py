"""The batched-LAPACK deadlock (issue 23 item 1): ``jaxclassic._linalg`` and every fit that factorises.

jaxlib 0.10.2 splits a LAPACK call over XLA's CPU pool, and blocks a pool thread on it, when
``batch > 1`` and ``batch × cost ≥ 200,000`` flops; two such calls at once deadlock a 2-core
pool (``benchmarks/repro_lapack_hang_minimal.py``). The package's guarantee is that no call it
emits meets that condition, under any ``vmap``: checked here on the compiled HLO of each
family's fit vmapped over penalties and fold weights (the programs ``grid_search`` and
``cross_validate`` build), with the same parser as ``benchmarks/soak_lapack.py``, whose full
form runs every path 20 times in fresh processes. The check is shown able to fail on the
unguarded ``jnp.linalg`` calls. Values and derivatives of the guarded functions are compared
with numpy and with JAX's own rules (x64, tolerance 1e-10: the same LAPACK routines, only
rounding of a differently ordered product differs).
"""

from __future__ import annotations

import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

from benchmarks.soak_lapack import lapack_calls, splits_over_pool
from jaxclassic import _linalg

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _spd(rng, n, *batch):
    m = rng.normal(size=batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def _unsafe(compiled_text):
    calls = lapack_calls(compiled_text)
    return calls, [c for c in calls if splits_over_pool(c[1], c[2])]


# --------------------------------------------------------------------------- the guarded functions
def test_chunk_size_keeps_each_call_under_jaxlibs_split_threshold():
    # hand values: Cholesky of 50 x 50 costs 50^3 // 3 = 41,666 flops -> 4 per call
    # (4 x 41,666 = 166,664 < 200,000 <= 5 x 41,666); syevd of 50 x 50 (5 x 50^3) -> 1
    assert _linalg.lapack_cost("cholesky", 50) == 41_666
    assert _linalg.chunk_size(_linalg.lapack_cost("cholesky", 50)) == 4
    assert _linalg.chunk_size(_linalg.lapack_cost("eigh", 50)) == 1
    assert _linalg.chunk_size(_linalg.lapack_cost("eigh", 10)) == 39  # 5,000 flops each
    assert _linalg.chunk_size(0) == 199_999
    with pytest.raises(ValueError, match="op must be one of"):
        _linalg.lapack_cost("svd", 3)


@pytest.mark.full
def test_values_equal_numpy_on_matrices_stacks_and_vmap():
    with jax.enable_x64():
        rng = np.random.default_rng(0)
        A, B, v = _spd(rng, 5), rng.normal(size=(5, 3)), rng.normal(size=5)
        L = np.linalg.cholesky(A)
        stack = _spd(rng, 50, 3, 4)  # 12 matrices of 50: 3 Cholesky chunks, 12 eigh calls
        checks = [
            (_linalg.cholesky(A), L),
            (_linalg.eigh(A)[0], np.linalg.eigh(A)[0]),
            (jnp.abs(_linalg.eigh(A)[1]), np.abs(np.linalg.eigh(A)[1])),  # sign is arbitrary
            (_linalg.eigvalsh(A), np.linalg.eigvalsh(A)),
            (_linalg.solve(A, B), np.linalg.solve(A, B)),
            (_linalg.solve(A, v), np.linalg.solve(A, v)),
            (_linalg.inv(A), np.linalg.inv(A)),
            (_linalg.solve_triangular(L, B, lower=True), np.linalg.solve(L, B)),
            (_linalg.solve_triangular(L, v, lower=True, trans=True), np.linalg.solve(L.T, v)),
            (_linalg.solve_triangular(L.T, v, lower=False), np.linalg.solve(L.T, v)),
            (_linalg.cho_solve((L, True), B), np.linalg.solve(A, B)),
            (_linalg.cho_solve((L.T, False), v), np.linalg.solve(A, v)),
            (_linalg.cholesky(stack), np.linalg.cholesky(stack)),
            (_linalg.eigh(stack)[0], np.linalg.eigh(stack)[0]),
            (jax.vmap(jax.vmap(_linalg.cholesky))(stack), np.linalg.cholesky(stack)),
            (jax.vmap(_linalg.solve, (0, None))(stack[0], stack[0, 0, :, 0]),
             np.linalg.solve(stack[0], stack[0, 0, :, 0])),
        ]
        for ours, ref in checks:
            np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=1e-10)


@pytest.mark.full
def test_derivatives_equal_jax_rules_and_finite_differences():
    with jax.enable_x64():
        rng = np.random.default_rng(1)
        A, B, v = _spd(rng, 4, ), rng.normal(size=(4, 3)), rng.normal(size=4)
        w = np.arange(4.0)

        def ours(a):
            c = _linalg.cholesky(a)
            evals, evecs = _linalg.eigh(a)
            return (jnp.sum(jnp.sin(_linalg.cho_solve((c, True), B))) + jnp.sum(evals ** 2)
                    + jnp.sum(evecs[:, 0] ** 2 * w) + jnp.sum(_linalg.solve(a, v) ** 3)
                    + jnp.sum(_linalg.inv(a))
                    + jnp.sum(_linalg.solve_triangular(jnp.tril(a), B, lower=True, trans=True)))

        def reference(a):
            c = jnp.linalg.cholesky(a)
            evals, evecs = jnp.linalg.eigh(a)
            return (jnp.sum(jnp.sin(jax.scipy.linalg.cho_solve((c, True), B))) + jnp.sum(evals ** 2)
                    + jnp.sum(evecs[:, 0] ** 2 * w) + jnp.sum(jnp.linalg.solve(a, v) ** 3)
                    + jnp.sum(jnp.linalg.inv(a))
                    + jnp.sum(jax.scipy.linalg.solve_triangular(jnp.tril(a), B, lower=True, trans=1)))

        # one compiled program per side (eager dispatch of the nested rules is slow)
        def derivatives(f):
            return jax.jit(lambda a, stack: (jax.grad(f)(a), jax.hessian(f)(a), jax.vmap(jax.grad(f))(stack)))

        stack = _spd(rng, 4, 3)
        for got, want in zip(derivatives(ours)(A, stack), derivatives(reference)(A, stack)):
            np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
        check_grads(jax.jit(ours), (A,), order=1, modes=["fwd", "rev"])


@pytest.mark.full
def test_solves_are_linear_and_transposable_in_the_right_hand_side():
    # custom_root's tangent solve and reverse mode transpose them: the transpose of
    # b -> op(T)^{-1} b is c -> op(T)^{-T} c (hand derivation), of b -> A^{-1} b is A^{-T}
    with jax.enable_x64():
        rng = np.random.default_rng(3)
        A, v = rng.normal(size=(4, 4)) + 4 * np.eye(4), rng.normal(size=4)
        T = np.tril(A)
        cases = [
            (lambda b: _linalg.solve(A, b), np.linalg.solve(A.T, v)),
            (lambda b: _linalg.solve_triangular(T, b, lower=True), np.linalg.solve(T.T, v)),
            (lambda b: _linalg.solve_triangular(T, b, lower=True, trans=True), np.linalg.solve(T, v)),
            (lambda b: _linalg.solve_triangular(T.T, b, lower=False), np.linalg.solve(T, v)),
        ]
        for f, want in cases:
            np.testing.assert_allclose(jax.linear_transpose(f, v)(v)[0], want, rtol=1e-12)


@pytest.mark.full
def test_mixed_dtypes_promote_as_jnp_linalg_does():
    # float32 factor, float64 right-hand side (a float32 GP predicted on float64 rows under x64)
    # and integer inputs: jnp.linalg's promotion, not lax's "same dtypes" TypeError
    with jax.enable_x64():
        L32 = np.array([[2.0, 0.0], [1.0, 1.0]], np.float32)
        b64 = np.array([6.0, 4.0])
        for got, want in [
            (_linalg.cho_solve((L32, True), b64), jax.scipy.linalg.cho_solve((L32, True), b64)),
            (_linalg.solve_triangular(L32, b64, lower=True),
             jax.scipy.linalg.solve_triangular(L32, b64, lower=True)),
            (_linalg.solve(L32, b64), jnp.linalg.solve(L32, b64)),
            (_linalg.solve(np.eye(2, dtype=np.int64) * 2, np.array([1, 2])), np.array([0.5, 1.0])),
            (_linalg.cholesky(np.eye(2, dtype=np.int64) * 4), 2 * np.eye(2)),
            (_linalg.inv(np.eye(2, dtype=np.int64) * 4), 0.25 * np.eye(2)),
        ]:
            assert got.dtype == np.float64
            np.testing.assert_allclose(got, want, rtol=1e-6)
        # integer and bool inputs: jnp.linalg's float of their width (int32 -> float32, int64 -> float64)
        for dtype, want in [(np.bool_, np.float32), (np.int16, np.float32), (np.int32, np.float32),
                            (np.int64, np.float64)]:
            a = np.eye(2, dtype=dtype)
            assert _linalg.solve(a, a[0]).dtype == jnp.linalg.solve(a, a[0]).dtype == want
            assert _linalg.inv(a).dtype == _linalg.cholesky(a).dtype == want


@pytest.mark.full
def test_vmap_over_right_hand_sides_alone_solves_once():
    # a shared matrix and a vmapped right-hand side (GP predictive std, a fold's test rows) is one
    # LAPACK call with the batch folded into the columns: batch 1, so inline and deadlock-free,
    # and no copy or refactorisation of the matrix per member (it was 2,000 LU factorisations of
    # a 300 x 300 copy: 31.9 s against 0.29 s for jnp.linalg.solve)
    with jax.enable_x64():
        rng = np.random.default_rng(4)
        A, B = _spd(rng, 30), rng.normal(size=(200, 30))
        L = np.linalg.cholesky(A)
        Bm = rng.normal(size=(5, 30, 2))
        programs = {
            "solve": (jax.vmap(lambda b: _linalg.solve(A, b)), B, np.linalg.solve(A, B.T).T),
            "cho_solve": (jax.vmap(lambda b: _linalg.cho_solve((L, True), b)), B, np.linalg.solve(A, B.T).T),
            "triangular": (jax.vmap(lambda b: _linalg.solve_triangular(L, b, lower=True, trans=True)), Bm,
                           np.linalg.solve(L.T[None], Bm)),
        }
        for name, (f, b, want) in programs.items():
            np.testing.assert_allclose(f(b), want, rtol=1e-10, atol=1e-12)
            calls = lapack_calls(jax.jit(f).lower(b).compile().as_text())
            assert calls and all(batch == 1 for _, batch, _ in calls), (name, calls)
        # the matrix batched too (its own stack dimension) keeps one solve per matrix
        As, Bs = _spd(rng, 5, 4), rng.normal(size=(6, 4, 5, 2))
        np.testing.assert_allclose(jax.vmap(lambda b: _linalg.solve(As, b))(Bs),
                                   np.linalg.solve(As[None], Bs), rtol=1e-10)


def test_second_call_does_not_retrace():
    traces = []

    @jax.jit
    def f(a):
        traces.append(1)
        return _linalg.cho_solve((_linalg.cholesky(a), True), a[:, 0])

    a = jnp.eye(3) * 2.0
    f(a), f(a + 1.0)
    assert len(traces) == 1


# --------------------------------------------------------------------------- the compiled programs
N, D, BATCH = 60, 40, 10  # Cholesky 40^3/3 x 10 = 213,330 and eigh 5 x 40^3 x 10: both split unguarded


def _data(classes=0):
    rng = np.random.default_rng(2)
    X = (rng.normal(size=(N, D)) * np.logspace(-1, 1, D)).astype(np.float32)
    y = (np.arange(N) % classes).astype(np.int32) if classes else rng.normal(size=N).astype(np.float32)
    w = (rng.uniform(size=(BATCH, N)) > 0.2).astype(np.float32)
    return jnp.asarray(X), jnp.asarray(y), jnp.asarray(w)


def _fits():
    from jaxclassic import cluster, discriminant, gaussian_process, linear

    return {
        "ridge": (lambda X, y, w, a: linear.fit_ridge(X, y, alpha=a, sample_weight=w), 0),
        "ols": (lambda X, y, w, a: linear.fit_ols(X, y, sample_weight=w), 0),
        "bayesian_ridge": (lambda X, y, w, a: linear.fit_bayesian_ridge(X, y, sample_weight=w, max_iter=3), 0),
        "logistic": (lambda X, y, w, a: linear.fit_logistic(X, y, l2=a, sample_weight=w, max_iter=3), 2),
        "softmax": (lambda X, y, w, a: linear.fit_softmax(X, y, l2=a, n_classes=3, sample_weight=w,
                                                          max_iter=3), 3),
        "lda": (lambda X, y, w, a: discriminant.fit_lda(X, y, n_classes=3, sample_weight=w), 3),
        "qda": (lambda X, y, w, a: discriminant.fit_qda(X, y, n_classes=3, reg_param=a, sample_weight=w), 3),
        "gp": (lambda X, y, w, a: gaussian_process.fit_gp(X, y, length_scale=a + 1.0, sample_weight=w), 0),
        "gmm": (lambda X, y, w, a: cluster.fit_gmm(X[:, :20], 3, sample_weight=w, max_iter=2, key=jax.random.key(0),
                                                   init="random"), 0),
    }


@pytest.mark.full
def test_the_check_fails_on_unguarded_batched_lapack():
    # control: the same compiled-HLO check flags jnp.linalg's own calls under vmap
    X, _, w = _data()
    grams = jnp.einsum("bn,ni,nj->bij", w, X, X) + jnp.eye(D)
    text = jax.jit(lambda g: (jax.vmap(jnp.linalg.cholesky)(g), jax.vmap(jnp.linalg.eigh)(g)[0])
                   ).lower(grams).compile().as_text()
    calls, unsafe = _unsafe(text)
    assert {c[0][8:] for c in unsafe} == {"potrf_ffi", "syevd_ffi"}, calls  # s/d: either dtype
    # and passes the guarded ones, which still call LAPACK
    text = jax.jit(lambda g: (jax.vmap(_linalg.cholesky)(g), jax.vmap(_linalg.eigh)(g)[0])
                   ).lower(grams).compile().as_text()
    calls, unsafe = _unsafe(text)
    assert {c[0][8:] for c in calls} == {"potrf_ffi", "syevd_ffi"} and not unsafe, calls


@pytest.mark.full
@pytest.mark.parametrize("name", sorted(_fits()))
def test_vmapped_fit_emits_no_lapack_call_that_splits_over_the_pool(name):
    fit, classes = _fits()[name]
    X, y, w = _data(classes)
    alphas = jnp.linspace(0.1, 1.0, BATCH)
    program = jax.jit(jax.vmap(lambda wk, a: fit(X, y, wk, a)))
    calls, unsafe = _unsafe(program.lower(w, alphas).compile().as_text())
    assert calls, "no LAPACK call found: the fit or the parser changed"
    assert not unsafe, f"{name}: LAPACK calls jaxlib would split over its pool: {unsafe}"


@pytest.mark.full
def test_the_original_reproducer_finishes_in_a_fresh_process():
    # the 10-fold x 50-alpha ridge grid on 5,000 x 50 that hung every run before the guard
    # (it exits 1 with its stack when its own watchdog fires)
    proc = subprocess.run([sys.executable, "-m", "benchmarks.repro_lapack_hang", "240"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert proc.stdout.count("best") == 5
