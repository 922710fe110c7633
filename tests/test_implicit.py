"""Tests of jaxclassic/_implicit.py (float64 on, from conftest).

Toy problems with closed forms: weighted ridge solved by ``_solver.iterate`` (gradient
descent to 1e-13), whose derivative with respect to the penalty, the data, the targets and
the weights is that of the closed form :math:`(X^\\top S X + \\lambda I)^{-1}X^\\top S y`
(autodiff of ``jnp.linalg.solve``, an independent route); and the scalar root
:math:`\\sqrt a` (derivative :math:`1/(2\\sqrt a)` by hand). Then: forward mode = reverse
mode, jit = eager, vmap of grad = a loop, no retrace, the solver's output bit for bit, and
``nondifferentiable``'s error.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic._implicit import implicit_fit, nondifferentiable, with_implicit_derivatives
from jaxclassic._solver import iterate

# the iterative solve stops at |grad| <= 1e-13; the implicit derivative is then exact up to
# that residual times |H^-1| (~1e-12 here), so 1e-9 relative leaves a wide margin
RTOL = 1e-9


def _data():
    rng = np.random.default_rng(0)
    X = jnp.asarray(rng.normal(size=(20, 3)))
    y = jnp.asarray(rng.normal(size=20))
    sw = jnp.asarray(rng.uniform(0.5, 2.0, size=20))
    return X, y, sw


def _ridge_solve(lam, X, y, sw):
    """Gradient descent on 1/2 sum s (y - X w)^2 + lam/2 |w|^2 with step 1/L, through the
    package's loop (a while_loop: not reverse-differentiable by itself)."""
    H = (X * sw[:, None]).T @ X + lam * jnp.eye(X.shape[1])
    step_size = 1.0 / jnp.linalg.eigvalsh(H)[-1]

    def step(w):
        g = X.T @ (sw * (X @ w - y)) + lam * w
        return w - step_size * g, jnp.linalg.norm(g)

    res = iterate(step, jnp.zeros(X.shape[1], X.dtype), max_iter=20000, tol=1e-13)
    return res.carry, (res.n_iter, res.converged)


def _ridge_optimality(w, lam, X, y, sw):
    return X.T @ (sw * (X @ w - y)) + lam * w


def _ridge_closed(lam, X, y, sw):
    Xs = X * sw[:, None]
    return jnp.linalg.solve(Xs.T @ X + lam * jnp.eye(X.shape[1]), Xs.T @ y)


ridge_dense = implicit_fit(_ridge_solve, _ridge_optimality, has_aux=True)
ridge_cg = implicit_fit(_ridge_solve, _ridge_optimality, has_aux=True, linear_solve="cg")


def _score(fit):
    def score(lam, X, y, sw):
        w, _ = fit(lam, X, y, sw)
        return jnp.sum(jnp.sin(w))  # a nonlinear read of the solution
    return score


# --------------------------------------------------------------------------- (1) references
@pytest.mark.full
def test_forward_values_are_the_solvers_bit_for_bit():
    X, y, sw = _data()
    w, (n_iter, converged) = ridge_dense(1.5, X, y, sw)
    w_plain, (n_plain, _) = _ridge_solve(1.5, X, y, sw)
    assert bool(converged) and int(n_iter) == int(n_plain)
    np.testing.assert_array_equal(np.asarray(w), np.asarray(w_plain))
    np.testing.assert_allclose(w, _ridge_closed(1.5, X, y, sw), rtol=1e-11)


@pytest.mark.full
@pytest.mark.parametrize("fit", [ridge_dense, ridge_cg], ids=["dense", "cg"])
def test_reverse_mode_equals_closed_form_derivative(fit):
    X, y, sw = _data()
    grads = jax.grad(_score(fit), argnums=(0, 1, 2, 3))(1.5, X, y, sw)
    closed = jax.grad(lambda *a: jnp.sum(jnp.sin(_ridge_closed(*a))), argnums=(0, 1, 2, 3))(
        1.5, X, y, sw)
    for got, want in zip(grads, closed):
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=1e-12)


@pytest.mark.full
def test_forward_mode_equals_closed_form_jvp():
    X, y, sw = _data()
    rng = np.random.default_rng(1)
    tangents = (1.0, jnp.asarray(rng.normal(size=X.shape)), jnp.asarray(rng.normal(size=20)),
                jnp.asarray(rng.normal(size=20)))
    _, (w_dot, _) = jax.jvp(ridge_dense, (1.5, X, y, sw), tangents)
    _, closed_dot = jax.jvp(_ridge_closed, (1.5, X, y, sw), tangents)
    np.testing.assert_allclose(w_dot, closed_dot, rtol=RTOL, atol=1e-12)


@pytest.mark.full
def test_derivative_equals_central_differences_of_refits():
    # central differences of the re-fitted solution, step 1e-5: truncation ~h^2 |w'''| and
    # rounding ~1e-16 |w| / h, both below 1e-8
    X, y, sw = _data()
    h = 1e-5
    fd = (ridge_dense(1.5 + h, X, y, sw)[0] - ridge_dense(1.5 - h, X, y, sw)[0]) / (2 * h)
    jac = jax.jacfwd(lambda lam: ridge_dense(lam, X, y, sw)[0])(1.5)
    np.testing.assert_allclose(jac, fd, rtol=1e-7, atol=1e-9)


@pytest.mark.full
def test_scalar_root_derivative_by_hand():
    def solve(a):  # Newton's iteration for sqrt(a)
        return jax.lax.fori_loop(0, 40, lambda _, x: 0.5 * (x + a / x), a)

    root = implicit_fit(solve, lambda x, a: x * x - a)
    for a in (0.25, 2.0, 9.0):
        assert float(jax.grad(root)(a)) == pytest.approx(1 / (2 * np.sqrt(a)), rel=1e-14)
        # second derivative: the tangent rule differentiates again, -1/(4 a^{3/2})
        assert float(jax.grad(jax.grad(root))(a)) == pytest.approx(-0.25 * a ** -1.5, rel=1e-12)


@pytest.mark.full
def test_pytree_solution():
    # theta = (w, b): ridge with an unpenalised intercept; closed form from the augmented system
    X, y, sw = _data()

    def optimality(theta, lam, X, y):
        w, b = theta
        r = X @ w + b - y
        return X.T @ r + lam * w, jnp.sum(r)

    def closed(lam, X, y):
        A = jnp.concatenate([X, jnp.ones((X.shape[0], 1))], axis=1)
        P = jnp.diag(jnp.array([1.0, 1.0, 1.0, 0.0]))
        return jnp.linalg.solve(A.T @ A + lam * P, A.T @ y)

    def solve(lam, X, y):
        theta = closed(lam, X, y)
        return theta[:3], theta[3]

    fit = implicit_fit(solve, optimality)
    got = jax.jacrev(lambda lam: jnp.concatenate([fit(lam, X, y)[0], fit(lam, X, y)[1][None]]))(0.7)
    np.testing.assert_allclose(got, jax.jacrev(closed)(0.7, X, y), rtol=1e-12, atol=1e-14)


@pytest.mark.full
def test_with_implicit_derivatives_on_a_given_solution():
    X, y, sw = _data()

    def fit(lam):
        w = _ridge_closed(jax.lax.stop_gradient(lam), X, y, sw)
        return with_implicit_derivatives(_ridge_optimality, w, lam, X, y, sw)

    np.testing.assert_allclose(jax.jacfwd(fit)(2.0), jax.jacfwd(_ridge_closed)(2.0, X, y, sw),
                               rtol=1e-12)


# --------------------------------------------------------------------------- (3) jit / vmap
@pytest.mark.full
def test_jit_equals_eager_and_vmap_of_grad_equals_loop():
    X, y, sw = _data()
    grad = jax.grad(_score(ridge_dense))
    lams = jnp.array([0.1, 1.0, 10.0])
    batched = jax.jit(jax.vmap(grad, in_axes=(0, None, None, None)))(lams, X, y, sw)
    loop = jnp.stack([grad(lam, X, y, sw) for lam in lams])
    np.testing.assert_allclose(batched, loop, rtol=1e-12)
    np.testing.assert_allclose(jax.jit(grad)(1.0, X, y, sw), grad(1.0, X, y, sw), rtol=1e-12)


def test_no_retrace_on_second_call():
    X, y, sw = _data()
    traces = []

    def score(lam, X, y, sw):
        traces.append(1)
        return _score(ridge_dense)(lam, X, y, sw)

    g = jax.jit(jax.grad(score))
    g(1.0, X, y, sw)
    g(2.0, X, y, sw + 0.1)
    assert len(traces) == 1


# --------------------------------------------------------------------------- nondifferentiable
def _fit_step(x):
    x = nondifferentiable("fit_step", x, reason="its output is piecewise constant")
    return jnp.sum(jnp.where(x > 0, 1.0, 0.0) * x)


def test_nondifferentiable_grad_raises_naming_the_fit():
    with pytest.raises(TypeError, match="fit_step has no derivative with respect to its inputs: "
                                        "its output is piecewise constant"):
        jax.grad(_fit_step)(jnp.ones(3))


def test_nondifferentiable_jvp_raises():
    with pytest.raises(TypeError, match="fit_step has no derivative"):
        jax.jvp(_fit_step, (jnp.ones(3),), (jnp.ones(3),))


def test_nondifferentiable_is_the_identity_when_not_differentiated():
    x = jnp.array([-1.0, 2.0, 3.0])
    assert float(_fit_step(x)) == 5.0
    assert float(jax.jit(_fit_step)(x)) == 5.0
    np.testing.assert_array_equal(jax.vmap(_fit_step)(jnp.stack([x, -x])), [5.0, 1.0])
    # differentiating another argument is fine: the wrapped input carries no tangent
    g = jax.grad(lambda a: a * _fit_step(x))(2.0)
    assert float(g) == 5.0


# --------------------------------------------------------------------------- bad input
def test_bad_linear_solve():
    with pytest.raises(ValueError, match="linear_solve must be one of \\('dense', 'cg'\\), got 'qr'"):
        implicit_fit(_ridge_solve, _ridge_optimality, linear_solve="qr")


def test_nondifferentiable_name_not_str():
    with pytest.raises(TypeError, match="nondifferentiable: name and reason must be str, got int"):
        nondifferentiable(3, jnp.ones(2), reason="x")
