# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 7. Model selection
#
# Cross-validation as weights: every fold is a 0/1 vector over the same rows, so a grid ×
# folds search is one `vmap`ped, jitted program; bias–variance curves by simulation on a real
# design; learning curves; and hyperparameters tuned by the *gradient* of the CV score —
# beside scikit-learn's `GridSearchCV` and `learning_curve`.
#
# `JAXCLASSIC_NB_SMALL=1` (the test suite) uses smaller grids, 5 folds instead of 10, fewer
# simulated data sets and fewer tuning steps, and a looser tolerance for scikit-learn's fits.

# %%
import os

import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

jax.config.update("jax_enable_x64", True)  # references compared at float64
SMALL = os.environ.get("JAXCLASSIC_NB_SMALL") == "1"
plt.rcParams.update({"figure.dpi": 72, "figure.figsize": (9, 3.2)})

from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV

from jaxclassic import linear, plot
from jaxclassic.datasets import load_breast_cancer, load_diabetes
from jaxclassic.model_selection import (bias_variance_decomposition, fold_indices, grid_search,
                                        kfold_weights, learning_curve, log_loss_scorer,
                                        neg_mse_scorer, stratified_kfold_weights, tune_hyperparameters)

Xb, yb = load_breast_cancer(return_X_y=True)
Xb = (Xb - Xb.mean(0)) / Xb.std(0)
Xd, yd = load_diabetes(return_X_y=True)
K = 5 if SMALL else 10
SK_TOL = 1e-4 if SMALL else 1e-8  # scikit-learn's logistic fits: tight at full size

# %% [markdown]
# ## A grid search as one program
#
# Fold $k$'s fit minimises $\sum_i w^{(k)}_i \ell(y_i, f(x_i)) + \lambda\|w\|^2$ with
# $w^{(k)}_i = 0$ on its validation rows; the score is the log-loss on those rows. All
# $G \times K$ fits are one `vmap` over (grid point, fold).

# %%
folds = stratified_kfold_weights(yb, K, key=jax.random.key(0))
l2 = np.logspace(-2, 3, 8 if SMALL else 30)
cv = grid_search(linear.fit_logistic, log_loss_scorer(linear.predict_proba), jnp.asarray(Xb),
                 jnp.asarray(yb), {"l2": jnp.asarray(l2)}, folds)
sk_cv = GridSearchCV(LogisticRegression(max_iter=5000, tol=SK_TOL), {"C": 1.0 / l2}, cv=fold_indices(folds),
                     scoring="neg_log_loss").fit(Xb, yb)
fig, ax = plt.subplots(figsize=(6, 3.2))
m, s = -np.asarray(cv.mean_scores), np.asarray(cv.std_scores)
ax.semilogx(l2, m, "o-", ms=3, label="jaxclassic")
ax.fill_between(l2, m - s, m + s, alpha=0.2)
ax.semilogx(l2, -sk_cv.cv_results_["mean_test_score"], "k--", label="scikit-learn (C = 1/λ)")
ax.set(xlabel="λ (l2)", ylabel=f"{K}-fold CV log-loss", title="logistic regression, breast cancer")
ax.legend()
pd.DataFrame({"chosen λ": [float(cv.best_point["l2"]), 1.0 / sk_cv.best_params_["C"]],
              "CV log-loss": [-float(cv.best_score), -sk_cv.best_score_]}, index=["jaxclassic", "scikit-learn"])

# %% [markdown]
# ## Bias and variance of ridge, by simulation
#
# $E[(h_D(x) - y)^2] = \underbrace{(E_D h_D(x) - f(x))^2}_{\text{bias}^2}
#  + \underbrace{\mathrm{Var}_D\,h_D(x)}_{\text{variance}} + \sigma^2$ (ESL §7.3).
# The truth $f$ is the least-squares fit of diabetes progression on the 10 baseline
# variables and $\sigma^2$ its residual variance; each simulated training set draws 40 of
# the 442 patients and fresh noise. Ridge's α trades variance for bias; every α reuses one
# compiled program (α is traced).

# %%
ols = linear.fit_ols(jnp.asarray(Xd), jnp.asarray(yd))
f_true = np.asarray(linear.predict(ols, jnp.asarray(Xd)))
sigma2 = float(np.mean((yd - f_true) ** 2))
Xd_j, f_j = jnp.asarray(Xd), jnp.asarray(f_true)


def sample_dataset(key):
    k1, k2 = jax.random.split(key)
    rows = jax.random.choice(k1, Xd_j.shape[0], (40,), replace=False)
    return Xd_j[rows], f_j[rows] + jnp.sqrt(sigma2) * jax.random.normal(k2, (40,))


alphas = np.logspace(-4, 0, 6 if SMALL else 20)
bv = [bias_variance_decomposition(linear.fit_ridge, linear.predict, sample_dataset, 100 if SMALL else 1000,
                                  Xd_j, f_j, sigma2, key=jax.random.key(1), hyperparameters={"alpha": a})
      for a in alphas]
fig, ax = plt.subplots(figsize=(6, 3.2))
plot.bias_variance(alphas, bv, ax=ax, xlabel="ridge α", log_scale=True)
ax.set(title="bias–variance trade-off (diabetes design, n = 40)")
ax.legend(fontsize=8);

# %% [markdown]
# ## Learning curves
#
# Training and validation log-loss as the training set grows (each size a weight vector
# that keeps the first rows of every fold's training part), beside scikit-learn's
# `learning_curve` on the same folds.

# %%
from sklearn.model_selection import learning_curve as sk_learning_curve

sizes = (0.1, 0.3, 0.55, 1.0) if SMALL else tuple(np.linspace(0.05, 1.0, 12))
lc = learning_curve(linear.fit_logistic, log_loss_scorer(linear.predict_proba), jnp.asarray(Xb), jnp.asarray(yb),
                    folds, sizes, hyperparameters={"l2": float(cv.best_point["l2"])})
sk_sizes, sk_train, sk_val = sk_learning_curve(
    LogisticRegression(C=1.0 / float(cv.best_point["l2"]), max_iter=5000, tol=SK_TOL), Xb, yb, train_sizes=sizes,
    cv=fold_indices(folds), scoring="neg_log_loss")
fig, axes = plt.subplots(1, 2, sharey=True)
plot.learning_curve(lc, ax=axes[0], score_name="−log-loss")
plot.learning_curve((sk_sizes, sk_train, sk_val), ax=axes[1])
axes[0].set_title("jaxclassic")
axes[1].set_title("scikit-learn, same folds")
fig.tight_layout()

# %% [markdown]
# ## Tuning by the gradient of the CV score
#
# The ridge solution $\beta(\alpha) = (X^\top W X + \alpha I)^{-1}X^\top W y$ is differentiable
# in α, so the cross-validated error is too: L-BFGS on $\log\alpha$ instead of a grid. Diabetes,
# beside scikit-learn's best point on a fine grid.

# %%
folds_d = kfold_weights(len(yd), K, key=jax.random.key(0))
tuned = tune_hyperparameters(linear.fit_ridge, neg_mse_scorer(linear.predict), jnp.asarray(Xd), jnp.asarray(yd),
                             folds_d, {"alpha": 1.0}, n_steps=5 if SMALL else 15)
grid = np.logspace(-4, 1, 30 if SMALL else 200)
sk_grid = GridSearchCV(Ridge(), {"alpha": grid}, cv=fold_indices(folds_d), scoring="neg_mean_squared_error").fit(Xd, yd)
fig, ax = plt.subplots(figsize=(6, 3.2))
ax.semilogx(grid, -sk_grid.cv_results_["mean_test_score"], "k", lw=1, label=f"scikit-learn grid ({len(grid)} points)")
ax.semilogx(np.asarray(tuned.path["alpha"]), -np.asarray(tuned.scores), "ro-", ms=4, label="gradient steps")
ax.set(xlabel="ridge α", ylabel=f"{K}-fold CV MSE", title="diabetes")
ax.legend()
pd.DataFrame({"α": [float(tuned.best_point["alpha"]), sk_grid.best_params_["alpha"]],
              "CV MSE": [-float(tuned.best_score), -sk_grid.best_score_],
              "fits": [len(tuned.scores) * K, len(grid) * K]},
             index=["jaxclassic gradient", "scikit-learn grid"])
