"""Grid search with K-fold cross-validation: one jaxclassic call vs scikit-learn GridSearchCV.

Both sides run exactly the same folds: ours are ``kfold_weights`` (a K × n 0/1 matrix), and
scikit-learn gets the same partition as a list of ``(train, test)`` index pairs
(``fold_indices``). Ours is one call to ``grid_search`` (all G × K fits in one vmapped,
jitted program, plus the refit at the best point); scikit-learn is ``GridSearchCV`` with
``n_jobs=None`` (one process) and its default solvers.

Cases (full size; quick mode uses 600 × 10 (5 informative), 5 folds, 8 values):

* ridge: 5,000 × 50 regression (``make_regression``, 10 informative features, noise 50,
  effective rank 20), 10 folds × 100 values of λ (``alpha``, log-spaced 1e-2 .. 1e4),
  scored by -MSE; ``fit_ridge`` vs ``sklearn.linear_model.Ridge``.
* logistic: 5,000 × 50 binary classification (``make_classification``, 10 informative, 10
  redundant, 3% flipped labels), 10 folds × 50 values of the L2 penalty (``l2 = 1/C``,
  log-spaced 1e-3 .. 1e4), scored by -log-loss; ``fit_logistic`` (Newton) vs
  ``sklearn.linear_model.LogisticRegression`` (lbfgs).

Quality figure: the chosen hyperparameter on each side; agreement: whether they are the same
grid point. Timing: our compile time is reported apart; the ratio is GridSearchCV's time over
our run time.
"""

from __future__ import annotations

import numpy as np

from benchmarks._harness import Result, time_host, time_jax

__all__ = ["run"]


def _ridge_case(quick: bool) -> Result:
    import jax
    import jax.numpy as jnp
    from sklearn.datasets import make_regression
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV

    from jaxclassic.linear import fit_ridge, predict
    from jaxclassic.model_selection import fold_indices, grid_search, kfold_weights, neg_mse_scorer

    n, d, k, g = (600, 10, 5, 8) if quick else (5_000, 50, 10, 100)
    X, y = make_regression(n_samples=n, n_features=d, n_informative=min(10, d // 2), noise=50.0,
                           effective_rank=min(20, d), random_state=0)
    alphas = np.logspace(-2, 4, g)
    weights = kfold_weights(n, k, key=jax.random.key(0))
    folds = fold_indices(weights)
    Xj, yj = jnp.asarray(X), jnp.asarray(y)
    scorer = neg_mse_scorer(predict)

    def ours_fn():
        return grid_search(fit_ridge, scorer, Xj, yj, {"alpha": alphas}, weights)

    res, compile_s, ours_s = time_jax(lambda: ours_fn().scores, repeats=3 if quick else 5)
    res = ours_fn()
    search = GridSearchCV(Ridge(), {"alpha": alphas}, cv=folds, scoring="neg_mean_squared_error")
    ref, ref_s = time_host(lambda: search.fit(X, y), repeats=1 if quick else 2)
    ours_alpha, ref_alpha = res.best_point["alpha"], ref.best_params_["alpha"]
    same = bool(np.isclose(ours_alpha, ref_alpha, rtol=1e-6))
    return Result(
        "model_selection", f"ridge grid {g} alpha x {k}-fold, {n}x{d}", ours_s, ref_s, compile_s,
        metric="chosen alpha", ours_quality=float(ours_alpha), ref_quality=float(ref_alpha),
        reference="sklearn GridSearchCV(Ridge)", agreement="same choice" if same else "DIFFERENT",
        extra={"best_score_ours": res.best_score, "best_score_ref": float(ref.best_score_)},
    )


def _logistic_case(quick: bool) -> Result:
    import jax
    import jax.numpy as jnp
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV

    from jaxclassic.linear import fit_logistic, predict_proba
    from jaxclassic.model_selection import fold_indices, grid_search, kfold_weights, log_loss_scorer

    n, d, k, g = (600, 10, 5, 8) if quick else (5_000, 50, 10, 50)
    X, y = make_classification(n_samples=n, n_features=d, n_informative=min(10, d // 2),
                               n_redundant=min(10, d // 4), flip_y=0.03, random_state=0)
    l2 = np.logspace(-3, 4, g)
    weights = kfold_weights(n, k, key=jax.random.key(0))
    folds = fold_indices(weights)
    Xj, yj = jnp.asarray(X), jnp.asarray(y.astype(np.int32))
    scorer = log_loss_scorer(predict_proba)

    def ours_fn():
        return grid_search(fit_logistic, scorer, Xj, yj, {"l2": l2}, weights)

    res, compile_s, ours_s = time_jax(lambda: ours_fn().scores, repeats=3 if quick else 5)
    res = ours_fn()
    search = GridSearchCV(LogisticRegression(), {"C": 1.0 / l2}, cv=folds, scoring="neg_log_loss")
    ref, ref_s = time_host(lambda: search.fit(X, y), repeats=1 if quick else 2)
    ours_l2, ref_l2 = res.best_point["l2"], 1.0 / ref.best_params_["C"]
    same = bool(np.isclose(ours_l2, ref_l2, rtol=1e-6))
    return Result(
        "model_selection", f"logistic grid {g} l2 x {k}-fold, {n}x{d}", ours_s, ref_s, compile_s,
        metric="chosen l2 (=1/C)", ours_quality=float(ours_l2), ref_quality=float(ref_l2),
        reference="sklearn GridSearchCV(LogisticRegression)",
        agreement="same choice" if same else "DIFFERENT",
        extra={"best_score_ours": res.best_score, "best_score_ref": float(ref.best_score_)},
    )


def run(quick: bool) -> list[Result]:
    return [_ridge_case(quick), _logistic_case(quick)]
