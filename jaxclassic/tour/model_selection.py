"""Tour rows for model selection: 10-fold grid searches on real data, each one ``grid_search``
call (all grid points × folds in one vmapped program), beside scikit-learn's ``GridSearchCV``
on the same folds.

* ridge on diabetes (442 × 10): 30 values of ``alpha``; the metric is the CV mean squared
  error at the chosen point;
* logistic regression on breast cancer (569 × 30, standardised): 10 values of ``l2 = 1/C``;
  the metric is the CV log-loss at the chosen point;
* both CV scores descended by their gradient instead (``tune_hyperparameters``: L-BFGS on
  ``log alpha`` from ``alpha = 1``, 10 steps; on ``log l2`` from ``l2 = 10``, 8 steps, through
  the logistic fit's implicit derivatives), beside scikit-learn's grid optimum.

``fit s`` is the time of one whole grid search after a warm-up call of the same shapes
(compiled).
"""

from __future__ import annotations


import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic.tour import TourRow, timed

__all__ = ["rows"]



def rows() -> list[TourRow]:
    try:
        from sklearn import datasets
        from sklearn import linear_model as sk_linear
        from sklearn.model_selection import GridSearchCV
    except ImportError:  # the tour needs scikit-learn's bundled data
        return []
    from jaxclassic.linear import fit_logistic, fit_ridge, predict, predict_proba
    from jaxclassic.model_selection import (
        fold_indices,
        grid_search,
        kfold_weights,
        log_loss_scorer,
        neg_mse_scorer,
        tune_hyperparameters,
    )

    out: list[TourRow] = []

    X, y = datasets.load_diabetes(return_X_y=True)
    folds = kfold_weights(X.shape[0], 10, key=jax.random.key(0))
    alphas = np.logspace(-4, 2, 30)
    res, seconds = timed(lambda: grid_search(fit_ridge, neg_mse_scorer(predict), jnp.asarray(X),
                                              jnp.asarray(y), {"alpha": alphas}, folds))
    ref = GridSearchCV(sk_linear.Ridge(), {"alpha": alphas}, cv=fold_indices(folds),
                       scoring="neg_mean_squared_error").fit(X, y)
    out.append(TourRow("Ridge 10-fold grid (30 alpha)", "diabetes", "CV MSE at chosen alpha",
                       -res.best_score, -float(ref.best_score_), seconds))
    # the same CV score descended by its gradient in log(alpha) (L-BFGS, from alpha = 1)
    tuned, seconds = timed(lambda: tune_hyperparameters(
        fit_ridge, neg_mse_scorer(predict), jnp.asarray(X), jnp.asarray(y), folds, {"alpha": 1.0},
        n_steps=10))
    out.append(TourRow("Ridge alpha by CV gradient (10 steps)", "diabetes",
                       "CV MSE at tuned alpha (sk: grid's best)", -tuned.best_score,
                       -float(ref.best_score_), seconds))

    X, y = datasets.load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    folds = kfold_weights(X.shape[0], 10, key=jax.random.key(0))
    l2 = np.logspace(-2, 3, 10)
    res, seconds = timed(lambda: grid_search(fit_logistic, log_loss_scorer(predict_proba),
                                              jnp.asarray(X), jnp.asarray(y), {"l2": l2}, folds))
    ref = GridSearchCV(sk_linear.LogisticRegression(max_iter=1000), {"C": 1.0 / l2},
                       cv=fold_indices(folds), scoring="neg_log_loss").fit(X, y)
    out.append(TourRow("Logistic 10-fold grid (10 l2)", "breast_cancer", "CV log-loss at chosen l2",
                       -res.best_score, -float(ref.best_score_), seconds))
    # implicit derivatives of the Newton solution: the CV log-loss descended in log(l2)
    tuned, seconds = timed(lambda: tune_hyperparameters(
        fit_logistic, log_loss_scorer(predict_proba), jnp.asarray(X), jnp.asarray(y), folds,
        {"l2": 10.0}, n_steps=8))
    out.append(TourRow("Logistic l2 by CV gradient (8 steps)", "breast_cancer",
                       "CV log-loss at tuned l2 (sk: grid's best)", -tuned.best_score,
                       -float(ref.best_score_), seconds))
    return out
