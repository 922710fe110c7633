"""Implicit derivatives of the SVM fits (issue 14; jaxclassic/svm/_optimality.py and the fits
in linear.py, kernel.py, svr.py; x64 on, from the root conftest).

The solutions' derivatives come from the dual's KKT system on the free support vectors
(the projected-gradient fixed point), never from the solvers' loops. References:

* central finite differences of the re-fitted solution (step 1e-5; the solvers run to
  ``tol=1e-12``, so the differences carry ~1e-12 / 1e-5 = 1e-7 of solver error and ~1e-10 of
  truncation on a stable active set): asserted to 1e-6 absolute / relative;
* the hand derivation of the hinge SVM's KKT system in numpy: on the free set F with the
  bound set B held at :math:`\\alpha_B = C s_B`, :math:`Q_{FF}\\alpha_F = 1 - Q_{FB}\\alpha_B`,
  so :math:`d\\alpha_F/dC = -Q_{FF}^{-1}Q_{FB}s_B` (to 1e-8: the same linear algebra);
* the gradient of an unrolled solver (the squared hinge's finite Newton iteration written
  with ``lax.scan``, 30 steps, differentiated by autodiff), to 1e-8;
* the data are chosen with a stable active set: overlapping classes, so there are free and
  bound support vectors, none of them within 1e-6 of a kink.

Forward values are unchanged (the fits' other tests); here also: forward = reverse mode,
``jit`` = eager, ``vmap`` of the gradient over ``C`` = a loop, no retrace on a second call, and
a row of weight 0 has a zero derivative.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import svm

RNG = np.random.default_rng(0)
N = 30
X = RNG.normal(size=(N, 2))
Y = (X[:, 0] + 0.5 * X[:, 1] + 0.7 * RNG.normal(size=N) > 0).astype(np.int32)
Y_RBF = (X[:, 0] ** 2 + X[:, 1] + 0.5 * RNG.normal(size=N) > 0.5).astype(np.int32)
Z = np.sin(X[:, 0]) + 0.1 * RNG.normal(size=N)
Q = RNG.normal(size=(5, 2))
EPS = 1e-5
FD_TOL = 1e-6  # module docstring


def _central(f, x, eps=EPS):
    x = np.asarray(x, dtype=np.float64)
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * eps))
    return np.stack(cols, axis=-1)


# Suite time: every fit and derivative program below is compiled once and shared. The fits
# always take an explicit ``sample_weight`` (``W1``, all ones, where the reference has none: the
# same fit as ``None``), so the refits of the finite differences, the hand derivations and the
# derivative programs all reuse one compiled forward fit per model; each derivative program
# (``jax.jit`` of a Jacobian in every argument a test needs) is traced once and run at several
# points. The finite-difference refits are calls of that one compiled fit (a loop of cached
# calls costs less than compiling a vmapped fit).
W1 = np.ones(N)


# ----------------------------------------------------------------------------- linear SVM
def _linear(h, w=W1, loss="hinge", method="dual"):
    p = svm.fit_linear_svm(X, Y, C=h[0], intercept_scaling=h[1], loss=loss, method=method, tol=1e-12,
                           max_iter=20000, sample_weight=w)
    return jnp.concatenate([p.coef, p.intercept[None]])


H_LIN = np.array([0.7, 1.3])
# d/dh and d/dw of the hinge fit in one reverse program; d/dh in one forward program
LIN_REV = jax.jit(jax.jacrev(_linear, argnums=(0, 1)))
LIN_FWD = jax.jit(jax.jacfwd(_linear))


@pytest.fixture(scope="module")
def lin_rev():
    return [np.asarray(J) for J in LIN_REV(jnp.asarray(H_LIN), jnp.asarray(W1))]


@pytest.mark.full
def test_linear_hinge_derivatives_equal_finite_differences(lin_rev):
    rev, rev_w = lin_rev
    fwd = np.asarray(LIN_FWD(jnp.asarray(H_LIN)))
    np.testing.assert_allclose(rev, fwd, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(rev, _central(_linear, H_LIN), rtol=FD_TOL, atol=FD_TOL)
    # the weights, along a direction that moves free, bound and non-support rows
    w0, v = W1, np.linspace(-1.0, 1.0, N)
    np.testing.assert_allclose(rev_w @ v, _central(lambda s: _linear(H_LIN, w0 + s[0] * v), [0.0])[:, 0],
                               rtol=FD_TOL, atol=FD_TOL)


@pytest.mark.full
def test_linear_hinge_derivative_in_C_equals_the_kkt_system_by_hand(lin_rev):
    C, c = H_LIN
    p = svm.fit_linear_svm(X, Y, C=C, intercept_scaling=c, loss="hinge", method="dual", tol=1e-12, max_iter=20000,
                           sample_weight=W1)
    t = 2.0 * Y - 1
    alpha = np.asarray(p.dual_coef) * t
    free = (alpha > 1e-8) & (alpha < C - 1e-8)
    bound = alpha >= C - 1e-8
    assert free.sum() >= 2 and bound.sum() >= 2
    Xa = np.c_[X, np.full(N, c)]
    Qm = (t[:, None] * Xa) @ (t[:, None] * Xa).T
    d_alpha = np.zeros(N)
    d_alpha[bound] = 1.0  # alpha_B = C s_B
    d_alpha[free] = -np.linalg.solve(Qm[np.ix_(free, free)], Qm[np.ix_(free, bound)] @ d_alpha[bound])
    d_w = Xa.T @ (d_alpha * t)  # w~ = sum alpha_i t_i x~_i ; intercept = c w_b
    ref = np.r_[d_w[:2], c * d_w[2]]
    np.testing.assert_allclose(lin_rev[0][:, 0], ref, rtol=1e-8, atol=1e-10)  # column 0: d/dC


def _unrolled_newton(C, c, n_steps=30):
    """The squared-hinge primal's finite Newton iteration, unrolled (lax.scan), full steps."""
    t = 2.0 * Y - 1
    Xa = jnp.concatenate([X, jnp.full((N, 1), c)], axis=1)

    def grad_hess(theta):
        f = Xa @ theta
        active = (t * f < 1).astype(f.dtype)
        g = theta + 2 * C * Xa.T @ (active * (f - t))
        H = jnp.eye(3) + 2 * C * (Xa.T * active) @ Xa
        return g, H

    def step(theta, _):
        g, H = grad_hess(theta)
        return theta - jnp.linalg.solve(H, g), None

    theta = jax.lax.scan(step, jnp.zeros(3), None, length=n_steps)[0]
    return jnp.r_[theta[:2], c * theta[2]]


def _primal(h):
    return _linear(h, loss="squared_hinge", method="primal")


PRIMAL_REV = jax.jit(jax.jacrev(_primal))


@pytest.mark.full
def test_linear_squared_hinge_derivatives_equal_the_unrolled_newton_and_finite_differences():
    ours = np.asarray(PRIMAL_REV(jnp.asarray(H_LIN)))
    unrolled = np.asarray(jax.jit(jax.jacrev(lambda h: _unrolled_newton(h[0], h[1])))(jnp.asarray(H_LIN)))
    np.testing.assert_allclose(np.asarray(_primal(H_LIN)), _unrolled_newton(*H_LIN), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours, unrolled, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ours, _central(_primal, H_LIN), rtol=FD_TOL, atol=FD_TOL)


@pytest.mark.full
def test_linear_squared_hinge_dual_derivatives_equal_the_primal_ones():
    # the dual CD stops on its own rule (1e-8 here: it converges linearly); the derivative of
    # its solution agrees with the primal's to the solution's accuracy (the primal's d/dC:
    # column 0 of the shared primal program, at intercept_scaling 1)
    def dual(C_):
        p = svm.fit_linear_svm(X, Y, C=C_, loss="squared_hinge", method="dual", tol=1e-8, max_iter=20000,
                               sample_weight=W1)
        return jnp.concatenate([p.coef, p.intercept[None]])

    primal = np.asarray(PRIMAL_REV(jnp.array([0.7, 1.0])))[:, 0]
    np.testing.assert_allclose(jax.jacrev(dual)(0.7), primal, rtol=1e-5, atol=1e-7)


# ----------------------------------------------------------------------------- kernel SVC
H_RBF = np.array([2.0, 0.8])


def _svc_both(h, Xv=X, w=W1):
    p = svm.fit_kernel_svm(Xv, Y_RBF, C=h[0], gamma=h[1], tol=1e-12, sample_weight=w)
    return svm.decision_function(p, Q), p.alpha


def _svc(h, Xv=X, w=W1):
    return _svc_both(h, Xv, w)[0]


# the decision's Jacobian in (C, gamma), X and the weights: one reverse program, run at three
# weight vectors; (decision, alpha)'s Jacobian in (C, gamma): one forward program
SVC_REV = jax.jit(jax.jacrev(_svc, argnums=(0, 1, 2)))
SVC_FWD = jax.jit(jax.jacfwd(_svc_both))


@pytest.mark.full
def test_kernel_svc_derivatives_in_C_and_gamma_equal_finite_differences():
    p = svm.fit_kernel_svm(X, Y_RBF, C=2.0, gamma=0.8, tol=1e-12, sample_weight=W1)
    a = np.asarray(p.alpha)
    assert np.sum((a > 1e-8) & (a < 2 - 1e-8)) >= 2 and np.sum(a >= 2 - 1e-8) >= 2  # free and bound
    rev = np.asarray(SVC_REV(jnp.asarray(H_RBF), jnp.asarray(X), jnp.asarray(W1))[0])
    np.testing.assert_allclose(rev, _central(_svc, H_RBF), rtol=FD_TOL, atol=FD_TOL)
    fwd = SVC_FWD(jnp.asarray(H_RBF), jnp.asarray(X), jnp.asarray(W1))[0]
    np.testing.assert_allclose(fwd, rev, rtol=1e-10, atol=1e-12)


@pytest.mark.full
def test_kernel_svc_derivatives_in_the_data_equal_finite_differences():
    w0, v = np.linspace(0.5, 1.5, N), np.cos(np.arange(N))
    _, rev_x, rev_w = SVC_REV(jnp.asarray(H_RBF), jnp.asarray(X), jnp.asarray(w0))

    def in_row(x3):
        return _svc(H_RBF, jnp.asarray(X).at[3].set(x3), w0)

    np.testing.assert_allclose(np.asarray(rev_x)[:, 3], _central(in_row, X[3]), rtol=FD_TOL, atol=FD_TOL)
    np.testing.assert_allclose(np.asarray(rev_w) @ v, _central(lambda s: _svc(H_RBF, w=w0 + s[0] * v), [0.0])[:, 0],
                               rtol=FD_TOL, atol=FD_TOL)


def test_kernel_svc_bound_support_vectors_move_with_C_and_zero_weight_rows_not_at_all():
    w = np.ones(N)
    w[5] = 0.0
    a = np.asarray(_svc_both(H_RBF, X, w)[1])
    d_alpha = np.asarray(SVC_FWD(jnp.asarray(H_RBF), jnp.asarray(X), jnp.asarray(w))[1])[:, 0]  # d alpha / d C
    bound = a >= 2.0 - 1e-8
    np.testing.assert_array_equal(d_alpha[bound], 1.0)  # alpha_i = C s_i
    np.testing.assert_array_equal(d_alpha[a <= 0], 0.0)
    g_x = np.asarray(SVC_REV(jnp.asarray(H_RBF), jnp.asarray(X), jnp.asarray(w))[1]).sum(axis=0)  # grad of the sum
    np.testing.assert_array_equal(g_x[5], 0.0)
    assert np.all(np.abs(g_x[bound]) > 0)


def test_kernel_svc_without_a_free_support_vector_has_nan_derivatives():
    # the documented singular case (svm/_optimality.py): with no free support vector the KKT
    # conditions do not fix the intercept, so the derivative is undefined and comes back NaN in
    # both modes, never a silent number. Weights balancing the classes' bounds (sum over each
    # class of C s_i equal) and a tiny C put every row at its bound (the shared programs).
    n_pos = int(Y_RBF.sum())
    w = np.where(Y_RBF == 1, 1.0, n_pos / (N - n_pos))
    h = np.array([1e-3, 0.8])
    a = np.asarray(_svc_both(h, X, w)[1])
    np.testing.assert_allclose(a, h[0] * w, rtol=1e-12)  # all bound: alpha_i = C s_i
    d_fwd = np.asarray(SVC_FWD(jnp.asarray(h), jnp.asarray(X), jnp.asarray(w))[0])
    d_rev = np.asarray(SVC_REV(jnp.asarray(h), jnp.asarray(X), jnp.asarray(w))[0])
    assert np.all(np.isnan(d_fwd)) and np.all(np.isnan(d_rev))


@pytest.mark.full
def test_kernel_svc_gradient_jit_vmap_and_no_retrace():
    traces = []

    def loss(C_):
        traces.append(1)
        return jnp.sum(_svc(jnp.stack([C_, 0.8])) ** 2)

    grad = jax.jit(jax.grad(loss))
    Cs = jnp.array([1.5, 2.0, 2.5])
    batched = jax.vmap(grad)(Cs)
    n_traces = len(traces)
    looped = np.array([float(grad(C_)) for C_ in Cs])
    grad(jnp.asarray(3.0))
    assert len(traces) == n_traces + 1  # one trace for the unbatched jit, then none
    np.testing.assert_allclose(batched, looped, rtol=1e-9)
    np.testing.assert_allclose(looped[1], jax.grad(loss)(2.0), rtol=1e-10)


# ----------------------------------------------------------------------------- ε-SVR
H_SVR = np.array([1.5, 0.1, 0.8])


def _svr(h, z=Z):
    p = svm.fit_kernel_svr(X, z, C=h[0], epsilon=h[1], gamma=h[2], tol=1e-12, sample_weight=W1)
    return svm.predict(p, Q)


@pytest.mark.full
def test_kernel_svr_derivatives_equal_finite_differences():
    fwd = np.asarray(jax.jit(jax.jacfwd(_svr))(jnp.asarray(H_SVR)))
    np.testing.assert_allclose(fwd, _central(_svr, H_SVR), rtol=FD_TOL, atol=FD_TOL)
    rev, rev_z = jax.jit(jax.jacrev(_svr, argnums=(0, 1)))(jnp.asarray(H_SVR), jnp.asarray(Z))  # one program
    np.testing.assert_allclose(rev, fwd, rtol=1e-10, atol=1e-12)
    v = np.sin(np.arange(N))
    np.testing.assert_allclose(np.asarray(rev_z) @ v, _central(lambda s: _svr(H_SVR, Z + s[0] * v), [0.0])[:, 0],
                               rtol=FD_TOL, atol=FD_TOL)


@pytest.mark.full
def test_forward_values_are_the_solvers():
    # the wrapper returns the solvers' values: the fits equal their solvers called directly (to
    # rounding: the two programs are compiled separately; against the fits before the wrapper,
    # bit for bit, checked by hand in issue 14's note)
    from jaxclassic.svm import _smo
    from jaxclassic.svm import kernel as K
    from jaxclassic.svm import linear as L

    p = svm.fit_kernel_svm(X, Y_RBF, C=2.0, gamma=0.8, tol=1e-12, sample_weight=W1)  # the shared program
    signs = jnp.asarray(2.0 * Y_RBF - 1)
    oracle, QD = K.build_oracle(K.KernelSpec("rbf"), jnp.asarray(X), jnp.asarray(0.8), jnp.asarray(0.0), "gram",
                                0, None)
    res = jax.jit(lambda: _smo.solve(_smo.DualProblem(signs, -jnp.ones(N), jnp.full(N, 2.0)), oracle, QD,
                                     tol=jnp.asarray(1e-12), max_iter=K.DEFAULT_MAX_ITER))()
    np.testing.assert_allclose(np.asarray(p.alpha), np.asarray(res.alpha), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(np.asarray(p.intercept), np.asarray(-res.rho), rtol=1e-13)
    q = svm.fit_linear_svm(X, Y, C=0.7, intercept_scaling=1.0, loss="hinge", method="dual", tol=1e-12,
                           max_iter=20000, sample_weight=W1)
    w, wb, alpha, _, _ = jax.jit(lambda: L._dual_cd(jnp.asarray(X), jnp.asarray(2.0 * Y - 1), jnp.ones(N),
                                                    jnp.asarray(0.7), jnp.asarray(1e-12), jnp.asarray(1.0),
                                                    jax.random.key(0), jnp.int32(20000), loss="hinge",
                                                    shuffle=False, shrinking=True))()
    np.testing.assert_allclose(np.asarray(q.coef), np.asarray(w), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(q.intercept), np.asarray(wb), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(q.dual_coef), np.asarray(alpha * (2.0 * Y - 1)), rtol=1e-13, atol=1e-15)


@pytest.mark.full
def test_cross_validated_score_is_differentiable_through_the_svr():
    # cross_validate vmaps the fit over fold weights: the implicit derivatives batch with it
    from jaxclassic import metrics
    from jaxclassic.model_selection import cross_validate, kfold_weights

    folds = kfold_weights(N, 3, key=jax.random.key(0))

    def fit(Xv, y, *, C, gamma, sample_weight=None):
        return svm.fit_kernel_svr(Xv, y, C=C, gamma=gamma, epsilon=0.1, tol=1e-12, sample_weight=sample_weight)

    def score(p, Xv, y, *, sample_weight):
        return -metrics.mean_squared_error(y, svm.predict(p, Xv), sample_weight=sample_weight)

    def cv(h):
        return cross_validate(fit, score, X, Z, folds, hyperparameters={"C": h[0], "gamma": h[1]},
                              return_params=False).mean

    h = np.array([1.5, 0.8])
    np.testing.assert_allclose(jax.grad(cv)(jnp.asarray(h)), _central(cv, h), rtol=FD_TOL, atol=FD_TOL)
