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
# # 2. Classification — ISLR *Default* and *Smarket*
#
# Logistic regression with its standard errors on credit-card defaults, the ROC curve and
# a chosen threshold; then LDA, QDA and Gaussian naive Bayes on ISLR's stock-market lab.
# statsmodels and scikit-learn beside every number.
#
# `JAXCLASSIC_NB_SMALL=1` (the test suite) uses 2,000 of Default's 10,000 customers.

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

from jaxclassic import discriminant, linear, metrics
from jaxclassic.datasets import load_default, load_rdataset
from jaxclassic.model_selection import choose_threshold

default = load_default()
X, y, names = default.data, default.target, default.feature_names
X[:, 2] /= 1000.0  # income in thousands of dollars
if SMALL:
    X, y = X[:2000], y[:2000]
print(X.shape, names, f"{y.mean():.1%} defaulted")

# %% [markdown]
# ## Logistic regression and its standard errors
#
# $p(x) = \sigma(b + x^\top w)$ maximises the log-likelihood
# $\ell = \sum_i y_i\log p_i + (1-y_i)\log(1-p_i)$ by Newton's method,
# $\theta \leftarrow \theta + (X^\top W X)^{-1}X^\top(y - p)$ with $W = \mathrm{diag}(p(1-p))$.
# At the optimum the inverse observed information $(X^\top W X)^{-1}$ is the covariance of
# $\hat\theta$: Wald standard errors, as statsmodels' `Logit` reports.

# %%
import statsmodels.api as sm

fit = linear.fit_logistic(jnp.asarray(X), jnp.asarray(y), tol=1e-10)
inf = linear.logistic_inference(fit, jnp.asarray(X), jnp.asarray(y), feature_names=names)
sm_fit = sm.Logit(y, sm.add_constant(X)).fit(disp=0)
print(inf.summary())  # intercept first, as statsmodels orders it
pd.DataFrame({"jaxclassic coef": np.asarray(inf.estimates), "statsmodels coef": sm_fit.params,
              "jaxclassic s.e.": np.asarray(inf.std_errors), "statsmodels s.e.": sm_fit.bse},
             index=list(inf.names)).round(5)

# %% [markdown]
# ## ROC curve and the chosen threshold
#
# On a held-out quarter, each threshold $t$ on $\hat p$ gives a point
# $(\mathrm{FPR}(t), \mathrm{TPR}(t))$. Youden's rule maximises $\mathrm{TPR} - \mathrm{FPR}$;
# a cost rule minimises $(c_{FP}\,FP + c_{FN}\,FN)/n$ — here missing a default costs 10
# times a false alarm, so the threshold falls far below ½.

# %%
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score, roc_curve

rng = np.random.default_rng(0)
test = rng.random(len(y)) < 0.25
fit_tr = linear.fit_logistic(jnp.asarray(X[~test]), jnp.asarray(y[~test]))
scores = np.asarray(linear.predict_proba(fit_tr, jnp.asarray(X[test])))[:, 1]
fpr, tpr, _ = metrics.roc_curve(jnp.asarray(y[test]), jnp.asarray(scores))
youden = choose_threshold(y[test], scores, "youden")
cost = choose_threshold(y[test], scores, "cost", cost_fp=1.0, cost_fn=10.0)

sk = LogisticRegression(C=np.inf, max_iter=1000).fit(X[~test], y[~test])
sk_scores = sk.predict_proba(X[test])[:, 1]
sk_fpr, sk_tpr, _ = roc_curve(y[test], sk_scores)
fig, ax = plt.subplots(figsize=(4.5, 4))
ax.plot(np.asarray(fpr), np.asarray(tpr), label="jaxclassic")
ax.plot(sk_fpr, sk_tpr, "k--", lw=1, label="scikit-learn")
ax.plot(youden.fpr, youden.tpr, "o", label=f"Youden, t = {youden.threshold:.3f}")
ax.plot(cost.fpr, cost.tpr, "s", label=f"cost 10:1, t = {cost.threshold:.3f}")
ax.plot([0, 1], [0, 1], ":", color="grey")
ax.set(xlabel="false positive rate", ylabel="true positive rate", title="Default: ROC (test)")
ax.legend(loc="lower right")
print(f"test AUC: jaxclassic {float(metrics.roc_auc(jnp.asarray(y[test]), jnp.asarray(scores))):.5f}"
      f"   scikit-learn {roc_auc_score(y[test], sk_scores):.5f}")

# %% [markdown]
# ## Smarket: LDA, QDA and naive Bayes
#
# ISLR's lab: predict the direction of the S&P 500 from the two previous days' returns,
# training on 2001–2004 and testing on 2005. With class densities
# $x \mid k \sim \mathcal N(\mu_k, \Sigma_k)$ and priors $\pi_k$, the Bayes rule picks
# $\arg\max_k \log\pi_k - \tfrac12\log|\Sigma_k| - \tfrac12(x-\mu_k)^\top\Sigma_k^{-1}(x-\mu_k)$:
# LDA shares one $\Sigma$ (a linear boundary), QDA does not, naive Bayes makes each
# $\Sigma_k$ diagonal.

# %%
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
from sklearn.naive_bayes import GaussianNB

Xs, ys = load_rdataset("ISLR", "Smarket", "Direction", features=["Lag1", "Lag2", "Year"], return_X_y=True)
train = Xs[:, 2] < 2005
Xtr, Xte, ytr, yte = Xs[train, :2], Xs[~train, :2], ys[train], ys[~train]
rows = {}
for name, ours_fit, theirs in (
    ("LDA", discriminant.fit_lda, LinearDiscriminantAnalysis()),
    ("QDA", discriminant.fit_qda, QuadraticDiscriminantAnalysis()),
    ("Gaussian naive Bayes", discriminant.fit_gaussian_nb, GaussianNB()),
):
    params = ours_fit(jnp.asarray(Xtr), jnp.asarray(ytr))
    acc = float(np.mean(np.asarray(discriminant.predict(params, jnp.asarray(Xte))) == yte))
    rows[name] = {"jaxclassic test accuracy": acc,
                  "scikit-learn test accuracy": theirs.fit(Xtr, ytr).score(Xte, yte)}
    if name == "QDA":
        qda = params
pd.DataFrame(rows).T.round(4)

# %% [markdown]
# QDA's posterior $p(\text{Up} \mid x)$ over the plane of the two lags: ISLR's 60% on 2005
# comes from a gently curved boundary through a cloud with little signal.

# %%
g1, g2 = np.meshgrid(np.linspace(-4, 4, 60), np.linspace(-4, 4, 60))
grid = np.c_[g1.ravel(), g2.ravel()]
post = np.asarray(discriminant.predict_proba(qda, jnp.asarray(grid)))[:, 1].reshape(g1.shape)
fig, ax = plt.subplots(figsize=(5, 4))
cs = ax.contourf(g1, g2, post, levels=np.linspace(0.3, 0.7, 9), cmap="RdBu", extend="both")
ax.contour(g1, g2, post, levels=[0.5], colors="k")
ax.scatter(Xte[:, 0], Xte[:, 1], c=yte, cmap="RdBu", s=6, edgecolors="none")
fig.colorbar(cs, label="QDA p(Up | lags)")
ax.set(xlabel="Lag1", ylabel="Lag2", title="Smarket 2005 (test days)");
