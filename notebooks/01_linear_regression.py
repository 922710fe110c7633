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
# # 1. Linear regression and subset selection — ISLR *Hitters*
#
# Salaries (thousands of dollars) of 263 major-league baseball players in 1987 from 19
# statistics of their careers (ISLR §6.5). We pick predictors three ways — best subset,
# ridge, lasso — and put our numbers beside statsmodels' and scikit-learn's.
#
# `JAXCLASSIC_NB_SMALL=1` (the test suite) shrinks the problem: 8 predictors instead of 19,
# shorter grids, 5 folds instead of 10.

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

from jaxclassic import linear
from jaxclassic.datasets import load_hitters
from jaxclassic.model_selection import grid_search, kfold_weights, neg_mse_scorer

hitters = load_hitters()
X, y, names = hitters.data, hitters.target, hitters.feature_names
if SMALL:
    X, names = X[:, :8], names[:8]
n, p = X.shape
print(n, "players,", p, "predictors:", ", ".join(names))

# %% [markdown]
# ## Best subset selection
#
# For every size $k$ the subset $S_k$ of $k$ predictors with the smallest residual sum of
# squares, found by solving all $2^p$ least-squares problems (batched Cholesky solves, one
# compiled program). The size is then chosen by a criterion that charges for the $d = k + 1$
# fitted coefficients, with $\hat\sigma^2$ from the full model:
#
# $$C_p = \tfrac1n(\mathrm{RSS} + 2d\hat\sigma^2),\qquad
#   \mathrm{BIC} = \tfrac1n(\mathrm{RSS} + \log(n)\,d\hat\sigma^2),\qquad
#   \bar R^2 = 1 - \frac{\mathrm{RSS}/(n-d)}{\mathrm{TSS}/(n-1)} .$$

# %%
sub = linear.best_subset(jnp.asarray(X), jnp.asarray(y))
ks = np.arange(p + 1)
crit = {"Cp": np.asarray(sub.cp), "BIC": np.asarray(sub.bic), "adjusted R²": np.asarray(sub.adjusted_r2)}
best = {"Cp": int(np.argmin(crit["Cp"])), "BIC": int(np.argmin(crit["BIC"])),
        "adjusted R²": int(np.argmax(crit["adjusted R²"]))}
fig, axes = plt.subplots(1, 3)
for ax, (name, values) in zip(axes, crit.items()):
    ax.plot(ks[1:], values[1:], "o-", ms=3)
    ax.plot(best[name], values[best[name]], "r*", ms=12)
    ax.set(xlabel="number of predictors k", title=f"{name}: best k = {best[name]}")
fig.tight_layout()
if not SMALL:  # the README shows this figure
    os.makedirs("figures", exist_ok=True)
    fig.savefig("figures/hitters_best_subset.png", dpi=72)
print({name: [names[j] for j in np.flatnonzero(np.asarray(sub.masks[k]))] for name, k in best.items()})

# %% [markdown]
# The BIC-chosen model, refitted with **statsmodels** OLS on the same columns: the
# coefficients, their standard errors $\sqrt{\hat\sigma^2 [(X^\top X)^{-1}]_{jj}}$ and $R^2$
# should agree to rounding.

# %%
import statsmodels.api as sm

k = best["BIC"]
cols = np.flatnonzero(np.asarray(sub.masks[k]))
ols = linear.fit_ols(jnp.asarray(X[:, cols]), jnp.asarray(y))
inf = linear.ols_inference(ols, jnp.asarray(X[:, cols]), jnp.asarray(y))
sm_fit = sm.OLS(y, sm.add_constant(X[:, cols])).fit()
table = pd.DataFrame({
    "jaxclassic coef": np.asarray(inf.estimates), "statsmodels coef": sm_fit.params,
    "jaxclassic s.e.": np.asarray(inf.std_errors), "statsmodels s.e.": sm_fit.bse,
}, index=["intercept"] + [names[j] for j in cols])
r2_ours = 1 - float(inf.rss) / float(np.sum((y - y.mean()) ** 2))
print(f"R²: jaxclassic {r2_ours:.6f}   statsmodels {sm_fit.rsquared:.6f}")
table.round(4)

# %% [markdown]
# ## Ridge and lasso paths
#
# On standardised predictors, ridge minimises $\|y - b - X\beta\|^2 + \alpha\|\beta\|_2^2$
# (closed form $\beta = (X^\top X + \alpha I)^{-1}X^\top y$ for centred data; all penalties
# from one eigendecomposition) and the lasso minimises
# $\tfrac1{2n}\|y - b - X\beta\|^2 + \alpha\|\beta\|_1$ by coordinate descent with
# soft-thresholding $\beta_j \leftarrow S(\rho_j, n\alpha)/\|x_j\|^2$, warm-started along a
# decreasing grid of $\alpha$.

# %%
from sklearn.linear_model import Ridge, lasso_path

Z = (X - X.mean(0)) / X.std(0)
alphas_ridge = np.logspace(-2, 5, 25 if SMALL else 60)
ridge = linear.ridge_path(jnp.asarray(Z), jnp.asarray(y), jnp.asarray(alphas_ridge))
lasso = linear.lasso_path(jnp.asarray(Z), jnp.asarray(y), n_alphas=25 if SMALL else 100, tol=1e-8)

fig, axes = plt.subplots(1, 2)
axes[0].semilogx(alphas_ridge, np.asarray(ridge.coef))
axes[0].set(xlabel="α", ylabel="standardised coefficient", title="ridge path")
axes[1].semilogx(np.asarray(lasso.alphas), np.asarray(lasso.coefs))
axes[1].set(xlabel="α", title="lasso path")
fig.tight_layout()

sk_ridge = np.array([Ridge(alpha=a).fit(Z, y).coef_ for a in alphas_ridge])
_, sk_lasso, _ = lasso_path(Z, y - y.mean(), alphas=np.asarray(lasso.alphas), tol=1e-10, max_iter=100_000)
def rel_diff(a, b):
    return np.abs(np.asarray(a) - b).max() / np.abs(b).max()


print("largest |coef difference| / largest |coef|, vs scikit-learn:",
      f"ridge {rel_diff(ridge.coef, sk_ridge):.1e}, lasso {rel_diff(lasso.coefs, sk_lasso.T):.1e}",
      "(both lasso fits stop at a duality-gap tolerance)")

# %% [markdown]
# ## Choosing α by 10-fold cross-validation
#
# `grid_search` expresses each fold as a 0/1 weight vector, so every (α, fold) fit is one
# `vmap`ped program. scikit-learn's `GridSearchCV` on the *same* folds gives the same curve.

# %%
from sklearn.model_selection import GridSearchCV

from jaxclassic.model_selection import fold_indices

K = 5 if SMALL else 10
folds = kfold_weights(n, K, key=jax.random.key(0))
alphas_cv = np.logspace(-2, 4, 13 if SMALL else 40)
cv = grid_search(linear.fit_ridge, neg_mse_scorer(linear.predict), jnp.asarray(Z), jnp.asarray(y),
                 {"alpha": jnp.asarray(alphas_cv)}, folds)
sk_cv = GridSearchCV(Ridge(), {"alpha": alphas_cv}, cv=fold_indices(folds),
                     scoring="neg_mean_squared_error").fit(Z, y)
fig, ax = plt.subplots(figsize=(6, 3.2))
ax.semilogx(alphas_cv, -np.asarray(cv.mean_scores), "o-", ms=3, label="jaxclassic")
ax.semilogx(alphas_cv, -sk_cv.cv_results_["mean_test_score"], "k--", label="scikit-learn")
ax.axvline(float(cv.best_point["alpha"]), color="r", lw=0.8)
ax.set(xlabel="ridge α", ylabel=f"{K}-fold CV MSE", title="CV choice of α")
ax.legend()
pd.DataFrame({"chosen α": [float(cv.best_point["alpha"]), sk_cv.best_params_["alpha"]],
              "CV MSE": [-float(cv.best_score), -sk_cv.best_score_]},
             index=["jaxclassic", "scikit-learn"])
