"""Gradients of a cross-validated score, and tuning by gradient vs grid search (issue 14).

Cases (full size; ``--quick`` uses 300 × 5, 3 folds, 8 grid values, 6 steps):

* cost of the hypergradient: 10-fold CV log-loss of ``fit_logistic`` (Newton, implicit
  derivatives) on a 5,000 × 50 ``make_classification`` problem (10 informative, 10 redundant,
  3% flipped labels); the time of one ``jax.value_and_grad`` of the CV score with respect to
  ``l2`` against one CV evaluation (both jitted, the same folds). Goal: ≤ 3×. The ``ratio``
  column is evaluation / value-and-grad (so ≥ 0.33 meets the goal); agreement: the relative
  difference of the gradient and central finite differences (float32 unless ``--x64``).
* time to the same CV score: ``tune_hyperparameters`` (L-BFGS on log l2 from l2 = 1) against
  ``grid_search`` over 50 log-spaced values of l2 (1e-3 .. 1e4), the same folds. Tuning runs
  the number of steps its path needed to reach the grid's best CV score (minus 1e-4 of it,
  the resolution that matters for a log-loss); both sides are one compiled program, compile
  time apart. (``--quick`` times the 6-step run, wherever the grid's best was reached.)
* the logistic tuning again with ``optax.adam(0.3, b2=0.9)``: measured in float32 at full
  size (a shared 2-core machine), L-BFGS from l2 = 1 did not move in 30 steps: the CV
  log-loss is flat between l2 = 1 and the grid's best 268 (0.2% apart, gradient 1e-5), its
  line search spent its evaluations on float32 rounding (3 s a step); Adam's normalised steps
  reached the grid's best in 20 steps (2.2 s, the grid 6.6 s).
* ``--quick`` only: the same two on ridge (``fit_ridge``, closed form, ``-MSE``) as the
  differentiable baseline. At full size (5,000 × 50, 10 folds) its programs hang on this 2-core
  CPU: two batched LAPACK kernels (Cholesky, eigh) run at once and each waits for XLA's 2-thread
  pool that the other holds (jaxlib 0.10.2; gdb backtraces in the issue-14 note, reproducer
  ``benchmarks/repro_lapack_hang.py``).
* full size only: a kernel SVC's ``(C, gamma)`` tuned by the 5-fold validation hinge loss
  (``neg_hinge_scorer``; accuracy has no gradient) from ``(1, 0.01)``, 20 L-BFGS steps, against
  a 9 × 9 log grid (C 0.1 .. 1e3, gamma 1e-4 .. 1) on 300 rows of breast_cancer
  (standardised); the CV accuracy at both points is reported beside.

Both sides run in this process on the same data. The machine these figures come from may be
shared: compare the ratios, not the seconds.
"""

from __future__ import annotations

import numpy as np

from benchmarks._harness import Result, time_jax

__all__ = ["run"]


def _adam():
    import optax

    return optax.adam(0.3, b2=0.9)


def _problem(kind: str, quick: bool):
    import jax
    import jax.numpy as jnp

    n, d, k = (300, 5, 3) if quick else (5_000, 50, 10)
    if kind == "logistic":
        from sklearn.datasets import make_classification

        from jaxclassic.linear import fit_logistic, predict_proba
        from jaxclassic.model_selection import log_loss_scorer

        X, y = make_classification(n_samples=n, n_features=d, n_informative=min(10, d // 2),
                                   n_redundant=min(10, d // 4), flip_y=0.03, random_state=0)
        y = jnp.asarray(y.astype(np.int32))
        fit, score, name, grid = fit_logistic, log_loss_scorer(predict_proba), "l2", (-3, 4)
    else:
        from sklearn.datasets import make_regression

        from jaxclassic.linear import fit_ridge, predict
        from jaxclassic.model_selection import neg_mse_scorer

        X, y = make_regression(n_samples=n, n_features=d, n_informative=min(10, d // 2),
                               noise=50.0, effective_rank=min(20, d), random_state=0)
        y = jnp.asarray(y)
        fit, score, name, grid = fit_ridge, neg_mse_scorer(predict), "alpha", (-2, 4)
    from jaxclassic.model_selection import kfold_weights

    dtype = jnp.float64 if jax.config.read("jax_enable_x64") else jnp.float32
    X = jnp.asarray(X, dtype)
    y = y.astype(dtype) if kind == "ridge" else y
    return X, y, kfold_weights(n, k, key=jax.random.key(0)), fit, score, name, grid, (n, d, k)


def _gradient_case(kind: str, quick: bool) -> Result:
    import jax

    from jaxclassic.model_selection import cross_validate

    X, y, folds, fit, score, name, _, (n, d, k) = _problem(kind, quick)

    def cv(value):
        return cross_validate(fit, score, X, y, folds, hyperparameters={name: value},
                              return_params=False).mean

    value = jax.numpy.asarray(1.0, X.dtype)
    cv_jit, vg_jit = jax.jit(cv), jax.jit(jax.value_and_grad(cv))
    repeats = 3 if quick else 5
    _, cv_compile, cv_s = time_jax(lambda: cv_jit(value), repeats=repeats)
    (val, grad), vg_compile, vg_s = time_jax(lambda: vg_jit(value), repeats=repeats)
    # the rounding error of central differences is eps |cv| / h: float32 (eps 1e-7) needs a
    # wide step next to a gradient of 1e-5 (1e-3 gave 80% error at full size), float64 not
    h = (5e-2 if X.dtype == jax.numpy.float32 else 1e-5) * value
    fd = (cv_jit(value + h) - cv_jit(value - h)) / (2 * h)
    rel = float(abs(grad - fd) / max(abs(fd), 1e-30))
    return Result(
        "tuning", f"{kind}: value_and_grad of {k}-fold CV in {name}, {n}x{d}", vg_s, cv_s,
        vg_compile, metric="value_and_grad / CV time (goal <= 3)", ours_quality=vg_s / cv_s,
        reference="one CV evaluation (jit)", agreement=f"grad vs central FD: rel {rel:.1e}",
        extra={"cv_compile_s": cv_compile, "gradient": float(grad), "finite_difference": float(fd)},
    )


def _first_reaching(scores: np.ndarray, target: float) -> int | None:
    hits = np.flatnonzero(scores >= target)
    return int(hits[0]) if hits.size else None


def _tuning_case(kind: str, quick: bool, adam: bool = False) -> Result:
    import optax

    from jaxclassic.model_selection import grid_search, tune_hyperparameters

    X, y, folds, fit, score, name, (lo, hi), (n, d, k) = _problem(kind, quick)
    g, max_steps = (8, 6) if quick else (50, 30)
    values = np.logspace(lo, hi, g)
    repeats = 3 if quick else 1  # full size: a 30-step L-BFGS path is ~90 s a run

    last = {}  # the latest result of each timed call (no extra run just to read it)

    def grid():
        last["grid"] = grid_search(fit, score, X, y, {name: values}, folds, refit=False)
        return last["grid"].scores

    _, grid_compile, grid_s = time_jax(grid, repeats=repeats)
    grid_res = last["grid"]
    target = grid_res.best_score - 1e-4 * abs(grid_res.best_score)

    optimizer = _adam() if adam else optax.lbfgs()
    label = "Adam(0.3, b2=0.9)" if adam else "L-BFGS"

    def tune(n_steps):
        last["tune"] = tune_hyperparameters(fit, score, X, y, folds, {name: 1.0},
                                            n_steps=n_steps, optimizer=optimizer, refit=False)
        return last["tune"].scores

    if quick:  # time the whole path, wherever the grid's best was reached
        _, tune_compile, tune_s = time_jax(lambda: tune(max_steps), repeats=repeats)
        steps = _first_reaching(np.asarray(last["tune"].scores), target)
    else:  # one untimed path to find the step that reaches the grid's best; time that run
        tune(max_steps)
        steps = _first_reaching(np.asarray(last["tune"].scores), target)
        _, tune_compile, tune_s = time_jax(lambda: tune(max(steps if steps is not None else max_steps, 1)), repeats=1)
    res = last["tune"]
    reached = steps is not None
    steps = max(steps if reached else max_steps, 1)
    return Result(
        "tuning", f"{kind}: tune {name} ({steps} {label} steps) vs grid {g} x {k}-fold, {n}x{d}",
        tune_s, grid_s, tune_compile, metric="best CV score", ours_quality=res.best_score,
        ref_quality=grid_res.best_score, reference=f"grid_search ({g} values)",
        agreement=("reached the grid's best" if reached else f"NOT reached in {max_steps} steps"),
        extra={"grid_compile_s": grid_compile, "tuned": float(res.best_point[name]),
               "grid_best": float(grid_res.best_point[name]), "steps": steps},
    )


def _svm_case() -> Result:
    """Kernel SVC: (C, gamma) tuned by the 5-fold validation hinge loss vs a 9 x 9 grid."""
    import jax
    import jax.numpy as jnp
    from sklearn.datasets import load_breast_cancer

    from jaxclassic import svm
    from jaxclassic.model_selection import (
        accuracy_scorer,
        cross_validate,
        grid_search,
        kfold_weights,
        neg_hinge_scorer,
        tune_hyperparameters,
    )

    X, y = load_breast_cancer(return_X_y=True)
    rows = np.random.default_rng(0).choice(len(y), 300, replace=False)
    X, y = X[rows], y[rows].astype(np.int32)
    dtype = jnp.float64 if jax.config.read("jax_enable_x64") else jnp.float32
    X = jnp.asarray((X - X.mean(0)) / X.std(0), dtype)
    folds = kfold_weights(300, 5, key=jax.random.key(0))
    tol = 1e-8 if dtype == jnp.float64 else 1e-4

    def fit(X, y, *, C, gamma, sample_weight=None):
        return svm.fit_kernel_svm(X, y, C=C, gamma=gamma, tol=tol, sample_weight=sample_weight)

    score = neg_hinge_scorer(svm.decision_function)
    C, gamma = np.meshgrid(np.logspace(-1, 3, 9), np.logspace(-4, 0, 9), indexing="ij")
    last = {}

    def grid():
        last["grid"] = grid_search(fit, score, X, y, {"C": C.ravel(), "gamma": gamma.ravel()},
                                   folds, refit=False)
        return last["grid"].scores

    def tune():
        last["tune"] = tune_hyperparameters(fit, score, X, y, folds, {"C": 1.0, "gamma": 0.01},
                                            n_steps=20, refit=False)
        return last["tune"].scores

    _, grid_compile, grid_s = time_jax(grid, repeats=1)
    _, tune_compile, tune_s = time_jax(tune, repeats=1)
    g, r = last["grid"], last["tune"]
    acc = accuracy_scorer(svm.predict)

    def cv_accuracy(point):
        return float(cross_validate(fit, acc, X, y, folds, hyperparameters=point).mean)

    return Result(
        "tuning", "kernel SVC: tune (C, gamma) (20 L-BFGS steps) vs grid 9 x 9, 5-fold hinge, 300x30",
        tune_s, grid_s, tune_compile, metric="best CV -hinge loss", ours_quality=r.best_score,
        ref_quality=g.best_score, reference="grid_search (81 points)",
        agreement=f"CV accuracy tuned {cv_accuracy(r.best_point):.4f} vs grid {cv_accuracy(g.best_point):.4f}",
        extra={"grid_compile_s": grid_compile, "tuned": {k: float(v) for k, v in r.best_point.items()},
               "grid_best": {k: float(v) for k, v in g.best_point.items()}},
    )


def run(quick: bool) -> list[Result]:
    out = []
    # full-size ridge is left out: on this 2-core CPU its 10-fold programs (a vmapped Cholesky
    # beside a vmapped eigh) deadlock inside jaxlib 0.10.2's LAPACK kernels, in float32 and
    # float64 (benchmarks/repro_lapack_hang.py); its --quick miniature runs
    for kind in ("logistic", "ridge") if quick else ("logistic",):
        out += [_gradient_case(kind, quick), _tuning_case(kind, quick)]
    # float32 on the flat logistic CV curve: L-BFGS stalls at l2 = 1 (see the module), Adam's
    # normalised steps do not
    out.append(_tuning_case("logistic", quick, adam=True))
    if not quick:  # its miniature is tests/model_selection/test_tuning.py (80 rows, 5 x 5 grid)
        out.append(_svm_case())
    return out
