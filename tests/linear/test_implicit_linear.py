"""Implicit derivatives of the linear fits (issue 14), float64 (x64 on, from conftest).

Every fit's solution is differentiated by :mod:`jaxclassic._implicit` at its optimality
condition. Each covered fit is checked three ways:

(1) against an independent reference: central finite differences of the *re-fitted*
    solution, and the hand-derived closed forms (logistic :math:`d\\theta^\\star/d\\lambda =
    -H^{-1}(w, 0)`; lasso :math:`d\\beta_A/d\\alpha = -G_{AA}^{-1}\\mathrm{sign}(\\beta_A)`,
    0 off the support, in scikit-learn's scaling :math:`G = X_c^\\top WX_c/\\sum w`);
(2) against the gradient of an unrolled solver (``lax.scan`` with a fixed count, run to
    convergence): Newton for logistic/softmax, ISTA for the lasso, MacKay's updates for
    Bayesian ridge;
(3) jit / vmap of the gradient, forward = reverse mode, no retrace, and forward values
    bit-identical to the solver's own output.

Tolerances: fits run to ``tol=1e-12`` or tighter (Newton's quadratic convergence puts the
solution within ~1e-15 of the optimum), so the implicit derivative is exact to ~1e-12 and
the closed forms are asserted to 1e-8 (the issue's figure). Central differences with step
h have truncation ~h^2 and rounding ~1e-16/h: h = 1e-5 gives ~1e-10, asserted at rtol 1e-6.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import linear
from jaxclassic.linear import bayesian as bayesian_mod
from jaxclassic.linear import logistic as logistic_mod

H = 1e-5
FD_TOL = dict(rtol=1e-6, atol=1e-9)


def _central(fun, x, h=H):
    return (fun(x + h) - fun(x - h)) / (2 * h)


def _bump(a, index, h):
    return jnp.asarray(a).at[index].add(h)


# --------------------------------------------------------------------------- data
def _binary():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X @ np.array([1.0, -1.0, 0.5]) + rng.normal(size=40) > 0).astype(np.int32)
    sw = rng.uniform(0.5, 2.0, size=40)
    return jnp.asarray(X), jnp.asarray(y), jnp.asarray(sw)


def _multiclass():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(45, 3))
    y = np.argmax(X @ rng.normal(size=(3, 3)) + rng.normal(size=(45, 3)), axis=1).astype(np.int32)
    return jnp.asarray(X), jnp.asarray(y), jnp.asarray(rng.uniform(0.5, 2.0, size=45))


def _regression():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 5))
    y = X @ np.array([2.0, -1.5, 0.0, 0.0, 0.8]) + 0.5 * rng.normal(size=40)
    return jnp.asarray(X), jnp.asarray(y), jnp.asarray(rng.uniform(0.5, 2.0, size=40))


# Compilation dominates (each derivative program of a fit takes seconds to compile on the
# shared 2 cores): every derivative below is ONE module-level jitted program per fit, reused
# across the tests, and the re-fits of the finite differences reuse the fit's own program.

# --------------------------------------------------------------------------- logistic
LOGISTIC_TOL = 1e-12


def _logistic_theta(X, sw, l2, y):
    p = linear.fit_logistic(X, y, l2=l2, sample_weight=sw, tol=LOGISTIC_TOL)
    return jnp.concatenate([p.coef, p.intercept[None]])


_logistic_jac = jax.jit(jax.jacrev(_logistic_theta, argnums=(0, 1, 2)))


@pytest.fixture(scope="module")
def logistic_case():
    X, y, sw = _binary()
    l2 = 0.7
    return X, y, sw, l2, _logistic_theta(X, sw, l2, y), _logistic_jac(X, sw, l2, y)


def _logistic_hessian_by_hand(theta, X, sw, l2, fit_intercept=True):
    # H = X~^T diag(s p (1 - p)) X~ + l2 diag(I, 0) (ESL §4.4.1), in numpy
    X, theta, sw = np.asarray(X), np.asarray(theta), np.asarray(sw)
    Xt = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
    p = 1 / (1 + np.exp(-(Xt @ theta)))
    penalty = [1.0] * X.shape[1] + ([0.0] if fit_intercept else [])
    return Xt.T @ (Xt * (sw * p * (1 - p))[:, None]) + l2 * np.diag(penalty)


@pytest.mark.full
def test_logistic_dtheta_dl2_is_minus_inverse_hessian_times_w(logistic_case):
    X, y, sw, l2, theta, (_, _, jac_l2) = logistic_case
    w0 = np.concatenate([np.asarray(theta[:-1]), [0.0]])
    closed = -np.linalg.solve(_logistic_hessian_by_hand(theta, X, sw, l2), w0)
    np.testing.assert_allclose(jac_l2, closed, rtol=1e-8, atol=1e-12)


@pytest.mark.full
def test_logistic_equals_central_differences_of_refits(logistic_case):
    X, y, sw, l2, _, (jac_X, jac_sw, jac_l2) = logistic_case
    np.testing.assert_allclose(jac_l2, _central(lambda v: _logistic_theta(X, sw, v, y), l2), **FD_TOL)
    for index in [(0, 0), (7, 2), (31, 1)]:
        fd = _central(lambda h: _logistic_theta(_bump(X, index, h), sw, l2, y), 0.0)
        np.testing.assert_allclose(jac_X[(slice(None),) + index], fd, **FD_TOL)
    for i in (3, 20):
        fd = _central(lambda h: _logistic_theta(X, _bump(sw, i, h), l2, y), 0.0)
        np.testing.assert_allclose(jac_sw[:, i], fd, **FD_TOL)


@pytest.mark.full
def test_logistic_forward_mode_equals_reverse_mode(logistic_case):
    X, y, sw, l2, theta, (jac_X, jac_sw, jac_l2) = logistic_case
    dX = jnp.asarray(np.random.default_rng(5).normal(size=X.shape))
    dsw = jnp.asarray(np.random.default_rng(6).normal(size=sw.shape))
    primal, tangent = jax.jvp(lambda X_, sw_, l2_: _logistic_theta(X_, sw_, l2_, y), (X, sw, l2),
                              (dX, dsw, 1.0))
    np.testing.assert_array_equal(primal, theta)
    want = jnp.einsum("pij,ij->p", jac_X, dX) + jac_sw @ dsw + jac_l2
    np.testing.assert_allclose(tangent, want, rtol=1e-10, atol=1e-13)


def _unrolled_newton(objective, theta0, n_steps):
    def step(theta, _):
        return theta - jnp.linalg.solve(jax.hessian(objective)(theta), jax.grad(objective)(theta)), None
    return jax.lax.scan(step, theta0, None, length=n_steps)[0]


def test_logistic_equals_unrolled_newton(logistic_case):
    # 30 plain Newton steps from 0 (converged to rounding on these data), differentiated
    # through the scan: the unrolled derivative converges with the iterates
    X, y, sw, l2, theta, (_, jac_sw, jac_l2) = logistic_case

    @jax.jit
    def unrolled(sw, l2):
        def objective(theta):
            f = X @ theta[:-1] + theta[-1]
            return jnp.sum(sw * (jnp.logaddexp(0.0, f) - y * f)) + 0.5 * l2 * jnp.sum(theta[:-1] ** 2)
        return _unrolled_newton(objective, jnp.zeros(4), 30)

    np.testing.assert_allclose(theta, unrolled(sw, l2), rtol=1e-10, atol=1e-12)
    u_sw, u_l2 = jax.jit(jax.jacrev(unrolled, argnums=(0, 1)))(sw, l2)
    np.testing.assert_allclose(jac_sw, u_sw, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(jac_l2, u_l2, rtol=1e-8, atol=1e-12)


def test_logistic_zero_weight_rows_have_no_influence_on_the_derivative(logistic_case):
    X, y, sw, l2, _, _ = logistic_case
    sw0 = sw.at[:6].set(0.0)
    garbage = X.at[:6].set(1e3 * X[:6] + 7.0)  # the rows of weight 0 changed entirely
    jac = _logistic_jac(X, sw0, l2, y)
    jac_garbage = _logistic_jac(garbage, sw0, l2, y)
    np.testing.assert_allclose(jac[2], jac_garbage[2], rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(jac[0][:, 6:], jac_garbage[0][:, 6:], rtol=1e-10, atol=1e-13)
    assert np.all(np.asarray(jac[0][:, :6]) == 0.0)  # d theta / d X of a weight-0 row
    # the derivative in a zero weight is the one-sided one of adding the row (forward
    # difference, truncation O(h): rtol 1e-4 at h = 1e-6)
    forward = (_logistic_theta(X, _bump(sw0, 2, 1e-6), l2, y) - _logistic_theta(X, sw0, l2, y)) / 1e-6
    np.testing.assert_allclose(jac[1][:, 2], forward, rtol=1e-4, atol=1e-9)


TRAIN = (jnp.arange(40) < 30).astype(jnp.float64)  # the first 30 rows train, the last 10 validate
GRID = jnp.array([0.1, 1.0, 10.0])
_VAL_TRACES = []


def _val_loss(l2, X, y):
    # the example: a validation log-loss through fit_logistic, differentiated in l2.
    # The training rows are a weight vector (rows of weight 0 have no influence: tested
    # above), so the fit is the fixture's compiled (40, 3) program and the re-fits of the
    # central differences compile nothing.
    p = linear.fit_logistic(X, y, l2=l2, sample_weight=TRAIN, tol=LOGISTIC_TOL)
    return _val_loss_of(jnp.concatenate([p.coef, p.intercept[None]]), X, y)


@jax.jit
def _val_loss_of(theta, X, y):
    proba = jax.nn.sigmoid(X[30:] @ theta[:-1] + theta[-1])
    return -jnp.mean(y[30:] * jnp.log(proba) + (1 - y[30:]) * jnp.log1p(-proba))


def _val_loss_counted(l2, X, y):
    _VAL_TRACES.append(1)  # once per trace of the program below
    return _val_loss(l2, X, y)


# one compiled program (the gradient over a grid of l2), shared by the two tests below
_val_grad_grid = jax.jit(jax.vmap(jax.grad(_val_loss_counted), in_axes=(0, None, None)))


@pytest.mark.full
def test_logistic_user_example_grad_of_validation_loss(logistic_case):
    X, y = logistic_case[:2]
    g = _val_grad_grid(GRID, X, y)
    fd = [_central(lambda v: _val_loss(v, X, y), l2, h=H * l2) for l2 in map(float, GRID)]
    np.testing.assert_allclose(g, fd, **FD_TOL)
    # the value is the one through the public predict_proba
    p = linear.fit_logistic(X, y, l2=1.0, sample_weight=TRAIN, tol=LOGISTIC_TOL)
    np.testing.assert_allclose(_val_loss(1.0, X, y), -jnp.mean(
        jnp.where(y[30:] == 1, jnp.log(linear.predict_proba(p, X[30:])[:, 1]),
                  jnp.log(linear.predict_proba(p, X[30:])[:, 0]))), rtol=1e-12)


@pytest.mark.full
def test_logistic_vmapped_grid_of_gradients_equals_loop_and_does_not_retrace(logistic_case):
    # the vmapped gradient equals, point by point, the chain rule through the (separately
    # compiled, un-vmapped) Jacobian of the solution: d val / d theta . d theta / d l2
    X, y = logistic_case[:2]
    got = _val_grad_grid(GRID, X, y)
    for k, l2 in enumerate(map(float, GRID)):  # python floats: the fixture's programs
        theta = _logistic_theta(X, TRAIN, l2, y)
        _, _, jac_l2 = _logistic_jac(X, TRAIN, l2, y)
        loop = jnp.dot(jax.grad(_val_loss_of)(theta, X, y), jac_l2)
        np.testing.assert_allclose(got[k], loop, rtol=1e-10, atol=1e-14)
    _val_grad_grid(2 * GRID, X + 0.1, y)
    assert len(_VAL_TRACES) == 1  # traced once, whichever test ran first


@pytest.mark.full
def test_logistic_lbfgs_has_the_same_derivative_as_newton(logistic_case):
    X, y, sw, l2, _, (_, _, jac_l2) = logistic_case

    def lbfgs(l2):
        p = linear.fit_logistic(X, y, l2=l2, sample_weight=sw, tol=1e-12, method="lbfgs",
                                max_iter=2000)
        return jnp.concatenate([p.coef, p.intercept[None]])

    # L-BFGS stops at |grad| / sum(s) <= 1e-12 (not quadratically): derivative to ~1e-9
    np.testing.assert_allclose(jax.jacfwd(lbfgs)(l2), jac_l2, rtol=1e-6, atol=1e-9)


def test_logistic_without_intercept_holds_it_at_zero(logistic_case):
    X, y, sw, l2, _, _ = logistic_case

    def fit(l2):
        p = linear.fit_logistic(X, y, l2=l2, sample_weight=sw, fit_intercept=False, tol=LOGISTIC_TOL)
        return jnp.concatenate([p.coef, p.intercept[None]])

    theta, dtheta = jax.jvp(fit, (l2,), (1.0,))
    assert float(theta[-1]) == 0.0 and float(dtheta[-1]) == 0.0
    w = np.asarray(theta[:-1])
    closed = -np.linalg.solve(_logistic_hessian_by_hand(w, X, sw, l2, fit_intercept=False), w)
    np.testing.assert_allclose(dtheta[:-1], closed, rtol=1e-8, atol=1e-12)


@pytest.mark.full
def test_logistic_forward_values_are_the_solvers_bit_for_bit(logistic_case):
    X, y, sw, l2, theta, _ = logistic_case
    core = jax.jit(logistic_mod._solve_logistic,
                   static_argnames=("method", "fit_intercept", "batch_size"))(
        X, y, sw, jnp.asarray(l2), jnp.asarray(LOGISTIC_TOL), jnp.asarray(0.0), jax.random.key(0),
        jnp.int32(100), method="newton", fit_intercept=True, batch_size=32)
    np.testing.assert_array_equal(theta, jnp.concatenate([core.coef, core.intercept[None]]))


# --------------------------------------------------------------------------- softmax
def _softmax_B(X, sw, l2, y):
    p = linear.fit_softmax(X, y, l2=l2, sample_weight=sw, tol=1e-12, method="newton", n_classes=3)
    return jnp.concatenate([p.coef, p.intercept[:, None]], axis=1)


@pytest.fixture(scope="module")
def softmax_case():
    # one forward and one derivative program, shared by the softmax tests
    X, y, sw = _multiclass()
    l2 = 0.5
    return X, y, sw, l2, _softmax_B(X, sw, l2, y), jax.jit(jax.jacrev(_softmax_B, argnums=(0, 1, 2)))(X, sw, l2, y)


@pytest.mark.full
def test_softmax_equals_central_differences_of_refits_and_stays_centred(softmax_case):
    X, y, sw, l2, _, (jac_X, jac_sw, jac_l2) = softmax_case
    np.testing.assert_allclose(jac_l2, _central(lambda v: _softmax_B(X, sw, v, y), l2), **FD_TOL)
    # derivatives of the centred solution: they sum to 0 over the classes
    np.testing.assert_allclose(jnp.sum(jac_l2, axis=0), 0.0, atol=1e-12)
    for i in (0, 17):
        fd = _central(lambda h: _softmax_B(X, _bump(sw, i, h), l2, y), 0.0)
        np.testing.assert_allclose(jac_sw[..., i], fd, **FD_TOL)
    fd = _central(lambda h: _softmax_B(_bump(X, (4, 1), h), sw, l2, y), 0.0)
    np.testing.assert_allclose(jac_X[..., 4, 1], fd, **FD_TOL)


@pytest.mark.full
def test_softmax_equals_unrolled_newton_on_the_centred_objective(softmax_case):
    # J + (C/2) |mean_c B_c|^2 has the centred optimum of J as its unique minimiser (the
    # added term is 0 there and its gradient is the mean of B's rows): plain Newton on it
    X, y, sw, l2, B, (_, _, dB) = softmax_case
    C = 3

    def unrolled(l2):
        def objective(b):
            B = b.reshape(C, 4)
            F = X @ B[:, :3].T + B[:, 3]
            ce = jax.nn.logsumexp(F, axis=1) - jnp.take_along_axis(F, y[:, None], 1)[:, 0]
            return (jnp.sum(sw * ce) + 0.5 * l2 * jnp.sum(B[:, :3] ** 2)
                    + 0.5 * C * jnp.sum(jnp.mean(B, axis=0) ** 2))
        return _unrolled_newton(objective, jnp.zeros(C * 4), 30).reshape(C, 4)

    U, dU = jax.jit(lambda v: jax.jvp(unrolled, (v,), (1.0,)))(l2)
    np.testing.assert_allclose(B, U, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(dB, dU, rtol=1e-8, atol=1e-12)


# --------------------------------------------------------------------------- lasso
# coefficient-change stopping at 1e-14: coordinate descent then sits at the optimum to
# ~1e-13 (its error is linear in the last change), far below the tolerances used
LASSO_TIGHT = dict(tol=1e-14, max_iter=5000, stopping="coef")
LASSO_ALPHA = 0.3


def _lasso_theta(X, y, sw, alpha):
    p = linear.fit_lasso(X, y, alpha=alpha, sample_weight=sw, **LASSO_TIGHT)
    return jnp.concatenate([p.coef, p.intercept[None]])


_lasso_jac = jax.jit(jax.jacrev(_lasso_theta, argnums=(0, 1, 2, 3)))


@pytest.fixture(scope="module")
def lasso_case():
    X, y, sw = _regression()
    return X, y, sw, _lasso_theta(X, y, sw, LASSO_ALPHA), _lasso_jac(X, y, sw, LASSO_ALPHA)


@pytest.mark.full
def test_lasso_dbeta_dalpha_closed_form_on_the_active_set_zero_off_it(lasso_case):
    X, y, sw, theta, (_, _, _, jac_alpha) = lasso_case
    beta = np.asarray(theta[:-1])
    got = np.asarray(jac_alpha[:-1])
    active = beta != 0
    assert 0 < active.sum() < beta.size  # the case of interest: some coefficients are zero
    # scikit-learn's scaling: 1/(2 sum w) sum w (y - Xb - b0)^2 + alpha |b|_1, so
    # G = X_c^T W X_c / sum w (weighted centring), in numpy
    Xn, swn = np.asarray(X), np.asarray(sw)
    Xc = Xn - swn @ Xn / swn.sum()
    G = Xc.T @ (Xc * swn[:, None]) / swn.sum()
    closed = np.zeros_like(beta)
    closed[active] = -np.linalg.solve(G[np.ix_(active, active)], np.sign(beta[active]))
    np.testing.assert_allclose(got, closed, rtol=1e-8, atol=1e-12)
    assert np.all(got[~active] == 0.0)


@pytest.mark.full
def test_lasso_equals_central_differences_of_refits(lasso_case):
    # the lasso solution is linear in alpha and y between kinks (so differences are exact up
    # to the fits' accuracy), smooth in X and the weights; the intercept's row included
    X, y, sw, _, (jac_X, jac_y, jac_sw, jac_alpha) = lasso_case
    fd = _central(lambda a: _lasso_theta(X, y, sw, a), LASSO_ALPHA)
    np.testing.assert_allclose(jac_alpha, fd, **FD_TOL)
    for index in [(0, 0), (11, 4)]:
        fd = _central(lambda h: _lasso_theta(_bump(X, index, h), y, sw, LASSO_ALPHA), 0.0)
        np.testing.assert_allclose(jac_X[(slice(None),) + index], fd, **FD_TOL)
    for i in (2, 25):
        fd = _central(lambda h: _lasso_theta(X, _bump(y, i, h), sw, LASSO_ALPHA), 0.0)
        np.testing.assert_allclose(jac_y[:, i], fd, **FD_TOL)
        fd = _central(lambda h: _lasso_theta(X, y, _bump(sw, i, h), LASSO_ALPHA), 0.0)
        np.testing.assert_allclose(jac_sw[:, i], fd, **FD_TOL)


@pytest.mark.full
def test_lasso_equals_unrolled_ista(lasso_case):
    # 3000 proximal-gradient (ISTA) steps from 0, step 1/L, differentiated through the scan
    X, y, sw, theta, (_, _, _, jac_alpha) = lasso_case

    def unrolled(alpha):
        Xc = X - sw @ X / jnp.sum(sw)
        yc = y - sw @ y / jnp.sum(sw)
        G = Xc.T @ (Xc * sw[:, None]) / jnp.sum(sw)
        c = Xc.T @ (sw * yc) / jnp.sum(sw)
        step = 1.0 / jnp.linalg.eigvalsh(G)[-1]

        def ista(b, _):
            z = b - step * (G @ b - c)
            return jnp.sign(z) * jnp.maximum(jnp.abs(z) - step * alpha, 0.0), None
        return jax.lax.scan(ista, jnp.zeros(5), None, length=3000)[0]

    beta, dbeta = jax.jit(lambda a: jax.jvp(unrolled, (a,), (1.0,)))(LASSO_ALPHA)
    np.testing.assert_allclose(theta[:-1], beta, atol=1e-10)
    np.testing.assert_allclose(jac_alpha[:-1], dbeta, rtol=1e-8, atol=1e-10)


@pytest.mark.full
def test_lasso_vmapped_alpha_grid_of_derivatives_equals_loop(lasso_case):
    X, y, sw, _, _ = lasso_case
    grid = jnp.array([0.05, 0.3, 1.0])
    batched = jax.jit(jax.vmap(_lasso_jac, in_axes=(None, None, None, 0)))(X, y, sw, grid)
    for k, alpha in enumerate(grid):
        loop = _lasso_jac(X, y, sw, alpha)
        for got, want in zip(batched, loop):
            np.testing.assert_allclose(got[k], want, rtol=1e-10, atol=1e-13)


def test_lasso_zero_weight_rows_have_no_influence_on_the_derivative(lasso_case):
    X, y, sw, _, _ = lasso_case
    sw0 = sw.at[:5].set(0.0)
    jac = _lasso_jac(X, y, sw0, LASSO_ALPHA)
    jac_garbage = _lasso_jac(X.at[:5].set(50.0), y.at[:5].set(-30.0), sw0, LASSO_ALPHA)
    np.testing.assert_allclose(jac[3], jac_garbage[3], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(jac[1][:, 5:], jac_garbage[1][:, 5:], rtol=1e-9, atol=1e-12)
    assert np.all(np.asarray(jac[1][:, :5]) == 0.0)


# --------------------------------------------------------------------------- Bayesian ridge
BR_TIGHT = dict(tol=1e-13, max_iter=300)


def _br(X, y, sw, lambda_1):
    p = linear.fit_bayesian_ridge(X, y, sample_weight=sw, lambda_1=lambda_1, **BR_TIGHT)
    return jnp.concatenate([p.coef, jnp.stack([p.intercept, p.alpha, p.lambda_])])


@pytest.fixture(scope="module")
def br_case():
    X, y, sw = _regression()
    return X, y, sw, jax.jit(jax.jacrev(_br, argnums=(0, 1, 2, 3)))(X, y, sw, 1e-6)


@pytest.mark.full
def test_bayesian_ridge_equals_central_differences_of_refits(br_case):
    X, y, sw, (jac_X, jac_y, jac_sw, jac_l1) = br_case
    for index in [(0, 0), (13, 3)]:
        fd = _central(lambda h: _br(_bump(X, index, h), y, sw, 1e-6), 0.0)
        np.testing.assert_allclose(jac_X[(slice(None),) + index], fd, **FD_TOL)
    for i in (1, 30):
        fd = _central(lambda h: _br(X, _bump(y, i, h), sw, 1e-6), 0.0)
        np.testing.assert_allclose(jac_y[:, i], fd, **FD_TOL)
        fd = _central(lambda h: _br(X, y, _bump(sw, i, h), 1e-6), 0.0)
        np.testing.assert_allclose(jac_sw[:, i], fd, **FD_TOL)
    # a hyperprior (the Gamma shape of lambda), around its default 1e-6: step 1e-7, whose
    # rounding error is ~eps |theta| / h ~ 1e-8 (absolute)
    np.testing.assert_allclose(jac_l1, _central(lambda v: _br(X, y, sw, v), 1e-6, h=1e-7),
                               rtol=1e-6, atol=2e-8)


@pytest.mark.full
def test_bayesian_ridge_with_a_fixed_precision():
    # alpha held fixed, lambda estimated: d(alpha)/d(alpha) = 1, the rest by central differences
    X, y, sw = _regression()

    def fit(alpha):
        p = linear.fit_bayesian_ridge(X, y, sample_weight=sw, alpha=alpha, **BR_TIGHT)
        return jnp.concatenate([p.coef, jnp.stack([p.alpha, p.lambda_])])

    _, d_alpha = jax.jvp(fit, (2.0,), (1.0,))
    assert float(d_alpha[-2]) == 1.0
    np.testing.assert_allclose(d_alpha, _central(fit, 2.0), **FD_TOL)


@pytest.mark.full
def test_bayesian_ridge_equals_unrolled_mackay_updates(br_case):
    # 300 of MacKay's updates (Bishop eqs. 3.91-3.95, dense solve) from the fit's start,
    # differentiated through the scan; they converge linearly, to rounding on these data
    X, y, sw, (_, jac_y, _, _) = br_case

    def unrolled(y):
        Xc = X - sw @ X / jnp.sum(sw)
        yc = y - sw @ y / jnp.sum(sw)
        G, g = Xc.T @ (Xc * sw[:, None]), Xc.T @ (sw * yc)

        def update(carry, _):
            alpha, lam = carry
            A = alpha * G + lam * jnp.eye(5)
            coef = alpha * jnp.linalg.solve(A, g)
            gamma = jnp.trace(alpha * G @ jnp.linalg.inv(A))
            sse = jnp.sum(sw * (yc - Xc @ coef) ** 2)
            return ((jnp.sum(sw) - gamma + 2e-6) / (sse + 2e-6),
                    (gamma + 2e-6) / (coef @ coef + 2e-6)), None
        alpha0 = 1 / (sw @ yc ** 2 / jnp.sum(sw))
        alpha, lam = jax.lax.scan(update, (alpha0, 1.0), None, length=300)[0]
        return jnp.stack([alpha, lam])

    np.testing.assert_allclose(_br(X, y, sw, 1e-6)[-2:], unrolled(y), rtol=1e-10)
    np.testing.assert_allclose(jac_y[-2:], jax.jit(jax.jacrev(unrolled))(y), rtol=1e-7, atol=1e-10)


def test_bayesian_ridge_fixed_point_residual_vanishes_at_the_fit():
    # the condition the derivatives come from has the fit's (alpha, lambda) as its root
    X, y, sw = _regression()
    p = linear.fit_bayesian_ridge(X, y, sample_weight=sw, lambda_1=1e-6, **BR_TIGHT)

    @jax.jit
    def relative_residual(alpha, lam):
        stats = bayesian_mod.weighted_gram(X, y, sw, True)
        residual = bayesian_mod._evidence_fixed_point(
            (alpha, lam), stats.gram, stats.xty, stats.yy, stats.sw_sum, jnp.nan, jnp.nan,
            1e-6, 1e-6, 1e-6, 1e-6, estimate_alpha=True, estimate_lambda=True)
        return jnp.stack(residual) / jnp.stack([alpha, lam])

    np.testing.assert_allclose(relative_residual(p.alpha, p.lambda_), 0.0, atol=1e-10)


# --------------------------------------------------------------------------- ridge / OLS
@pytest.mark.full
def test_ridge_and_ols_closed_forms_differentiate():
    # already closed forms: their derivatives equal those of the hand-written closed form
    X, y, sw = _regression()

    def by_hand(alpha, y):
        Xn = X - sw @ X / jnp.sum(sw)
        yn = y - sw @ y / jnp.sum(sw)
        return jnp.linalg.solve(Xn.T @ (Xn * sw[:, None]) + alpha * jnp.eye(5), Xn.T @ (sw * yn))

    def both(alpha, y):
        return (linear.fit_ridge(X, y, alpha=alpha, sample_weight=sw).coef,
                linear.fit_ols(X, y, sample_weight=sw).coef)

    @jax.jit
    def derivatives(y):
        return (jax.jacrev(both, argnums=(0, 1))(2.0, y), jax.jacrev(by_hand, argnums=(0, 1))(2.0, y),
                jax.jacrev(by_hand, argnums=1)(0.0, y))

    ((r_alpha, r_y), (_, o_y)), (h_alpha, h_y), h_ols = derivatives(y)
    np.testing.assert_allclose(r_alpha, h_alpha, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(r_y, h_y, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(o_y, h_ols, rtol=1e-9, atol=1e-12)


@pytest.mark.full
def test_lasso_path_solutions_have_the_fits_derivatives(lasso_case):
    # each solution of the warm-started path is differentiated at its own fixed point: the
    # path's derivative in its alphas is diagonal, each entry the single fit's
    X, y, sw, _, (_, _, _, jac_alpha) = lasso_case

    @jax.jit
    def path_jac(alphas):
        def coefs(alphas):
            p = linear.lasso_path(X, y, alphas=alphas, sample_weight=sw, **LASSO_TIGHT)
            return jnp.concatenate([p.coefs, p.intercepts[:, None]], axis=1)
        return jax.jacfwd(coefs)(alphas)

    jac = path_jac(jnp.array([1.0, LASSO_ALPHA]))  # (alpha, coef, d alpha)
    np.testing.assert_allclose(jac[1, :, 1], jac_alpha, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(jac[1, :, 0], 0.0)
    np.testing.assert_array_equal(jac[0, :, 1], 0.0)
