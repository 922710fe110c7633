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
# # 4. Decision trees — CART, ID3, C4.5
#
# ISLR's *Carseats* lab (§8.3.1): a classification tree for high sales, its cost-complexity
# pruning path and the α chosen by cross-validation, beside scikit-learn's
# `DecisionTreeClassifier(ccp_alpha=...)`. Then Quinlan's ID3 on the play-tennis table and
# C4.5 (gain ratio, thresholds, pessimistic pruning) on iris.
#
# `JAXCLASSIC_NB_SMALL=1` (the test suite) uses 5 folds and fewer α candidates.

# %%
import os

import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

SMALL = os.environ.get("JAXCLASSIC_NB_SMALL") == "1"
plt.rcParams.update({"figure.dpi": 72, "figure.figsize": (9, 3.2)})

from sklearn.tree import DecisionTreeClassifier

from jaxclassic import tree
from jaxclassic.datasets import load_carseats, load_iris, load_play_tennis

carseats = load_carseats()
X, sales, names = carseats.data, carseats.target, carseats.feature_names
y = (sales > 8).astype(np.int32)  # ISLR's "High"
rng = np.random.default_rng(1)
train = rng.random(len(y)) < 0.5
Xtr, Xte, ytr, yte = X[train], X[~train], y[train], y[~train]
print(X.shape, names, f"{y.mean():.0%} high")

# %% [markdown]
# ## Growing and pruning
#
# CART grows binary splits greedily, each minimising the weighted Gini impurity
# $\sum_{\text{children}} \tfrac{W_c}{W}\sum_k p_{ck}(1 - p_{ck})$ (here from histograms of
# at most 255 bins per feature, exact for these columns). Pruning then minimises
# $R_\alpha(T) = R(T) + \alpha|\tilde T|$: the weakest link
# $g(t) = \frac{R(t) - R(T_t)}{|\tilde T_t| - 1}$ collapses first, giving a nested sequence
# of subtrees, one per breakpoint of α.

# %%
DEPTH = 6 if SMALL else 10
full = tree.fit_cart(Xtr, ytr, max_depth=DEPTH, n_classes=2)
path = tree.cost_complexity_path(full)
alphas = np.asarray(path.ccp_alphas)
sk_full = DecisionTreeClassifier(max_depth=DEPTH, random_state=0).fit(Xtr, ytr)
sk_path = sk_full.cost_complexity_pruning_path(Xtr, ytr)


def n_leaves(params):
    return int(tree.export_text(params, max_depth=DEPTH + 1).count("class:"))


acc = [float(np.mean(np.asarray(tree.predict(tree.prune(full, a), Xte)) == yte)) for a in alphas]
sk_acc = [DecisionTreeClassifier(max_depth=DEPTH, random_state=0, ccp_alpha=a).fit(Xtr, ytr).score(Xte, yte)
          for a in sk_path.ccp_alphas]
fig, axes = plt.subplots(1, 2)
axes[0].step(alphas, np.asarray(path.impurities), where="post", label="jaxclassic")
axes[0].step(sk_path.ccp_alphas, sk_path.impurities, "k--", where="post", label="scikit-learn")
axes[0].set(xlabel="α", ylabel="total leaf impurity R(T)", title="cost-complexity path")
axes[0].legend()
axes[1].plot(alphas, acc, "o-", ms=3, label="jaxclassic")
axes[1].plot(sk_path.ccp_alphas, sk_acc, "k--", label="scikit-learn")
axes[1].set(xlabel="α", ylabel="test accuracy", title="pruned trees on the other half")
axes[1].legend()
fig.tight_layout()
print(f"path breakpoints: jaxclassic {len(alphas)}, scikit-learn {len(sk_path.ccp_alphas)}")

# %% [markdown]
# ## α by cross-validation
#
# For each fold, grow on the other folds (a 0/1 weight vector: same shapes, one compiled
# program), prune at every candidate α (the geometric means of consecutive breakpoints of the
# path on all training rows), and score on the fold. The curves differ a little from
# scikit-learn's because a fold's tree places its thresholds at midpoints between values of
# *all* training rows (the bins are shared by the folds) where scikit-learn uses the fold's
# own rows, and ties between equally good splits break differently; the α chosen and the
# size of the tree differ accordingly.

# %%
from sklearn.model_selection import GridSearchCV

from jaxclassic.model_selection import fold_indices, kfold_weights

K = 5 if SMALL else 10
folds = np.asarray(kfold_weights(len(ytr), K, key=jax.random.key(0)))
cands = np.sqrt(alphas[:-1] * alphas[1:])[:: 3 if SMALL else 1]
cv_acc = np.zeros((K, len(cands)))
for k, w in enumerate(folds):
    grown = tree.fit_cart(Xtr, ytr, max_depth=DEPTH, n_classes=2, sample_weight=w)
    for j, a in enumerate(cands):
        held = w == 0
        cv_acc[k, j] = np.mean(np.asarray(tree.predict(tree.prune(grown, a), Xtr[held])) == ytr[held])
best_alpha = cands[np.argmax(cv_acc.mean(0))]
pruned = tree.prune(full, best_alpha)
sk_cv = GridSearchCV(DecisionTreeClassifier(max_depth=DEPTH, random_state=0), {"ccp_alpha": cands},
                     cv=fold_indices(folds)).fit(Xtr, ytr)
fig, ax = plt.subplots(figsize=(6, 3.2))
ax.semilogx(cands, cv_acc.mean(0), "o-", ms=3, label="jaxclassic")
ax.semilogx(cands, sk_cv.cv_results_["mean_test_score"], "k--", label="scikit-learn")
ax.axvline(best_alpha, color="r", lw=0.8)
ax.set(xlabel="α", ylabel=f"{K}-fold CV accuracy", title="choosing α")
ax.legend()
pd.DataFrame({"chosen α": [best_alpha, sk_cv.best_params_["ccp_alpha"]],
              "leaves": [n_leaves(pruned), sk_cv.best_estimator_.get_n_leaves()],
              "test accuracy": [float(np.mean(np.asarray(tree.predict(pruned, Xte)) == yte)),
                                sk_cv.score(Xte, yte)]},
             index=["jaxclassic", "scikit-learn"])

# %%
print(tree.export_text(pruned, feature_names=names, class_names=["low", "high"], max_depth=3))

# %% [markdown]
# ## The same tree as a scikit-learn estimator
#
# `jaxclassic.estimators.DecisionTreeClassifier` wraps `fit_cart` with scikit-learn's
# interface (labels of any type, `GridSearchCV`, `Pipeline`); `plot.tree` draws a fitted
# estimator with each node's test, Gini impurity, weighted sample count and class counts, as
# `sklearn.tree.plot_tree` does.

# %%
from jaxclassic import plot
from jaxclassic.estimators import DecisionTreeClassifier as JaxTree

labels = np.where(ytr == 1, "high", "low")
shallow = JaxTree(max_depth=2, random_state=0).fit(Xtr, labels)
sk_shallow = DecisionTreeClassifier(max_depth=2, random_state=0).fit(Xtr, labels)
print("test accuracy: jaxclassic %.4f, scikit-learn %.4f" % (
    shallow.score(Xte, np.where(yte == 1, "high", "low")), sk_shallow.score(Xte, np.where(yte == 1, "high", "low"))))
fig, ax = plt.subplots(figsize=(9, 3.6))
plot.tree(shallow, feature_names=names, ax=ax)
plt.show()

# %% [markdown]
# ## ID3 on play-tennis
#
# ID3 splits a node multiway on the categorical attribute of largest information gain
# $IG(A) = H(Y) - \sum_v \tfrac{n_v}{n}H(Y \mid A = v)$, $H = -\sum_k p_k\log_2 p_k$.
# At the root: $H(Y) = H(9/14) = 0.940$ bits and outlook wins with gain 0.247 (Quinlan 1986).

# %%
from jaxclassic.information import entropy

tennis = load_play_tennis()
Xp, yp, pnames, cats = tennis.data, tennis.target, tennis.feature_names, tennis.categories
n_categories = [int(v) for v in Xp.max(axis=0) + 1]
id3 = tree.fit_id3(Xp, yp, n_categories=n_categories, n_classes=2)


def cond_entropy(col):
    return sum((Xp[:, col] == v).mean() * float(entropy(jnp.bincount(yp[Xp[:, col] == v], length=2)
                                                       / (Xp[:, col] == v).sum(), base=2))
               for v in range(n_categories[col]))


h = float(entropy(jnp.asarray([5 / 14, 9 / 14]), base=2))
print(pd.Series({a: h - cond_entropy(j) for j, a in enumerate(pnames)}, name="information gain").round(3))
print(tree.export_text(id3, feature_names=pnames, class_names=["no", "yes"], category_names=cats))

# %% [markdown]
# ## C4.5 on iris
#
# C4.5 splits on the gain ratio $IG(A)/H(A)$ (which stops many-valued attributes from
# winning by fragmentation), handles continuous attributes by thresholds, and prunes a
# subtree when the upper confidence bound of its leaves' error (at `confidence_factor`
# 0.25) exceeds that of a single leaf. scikit-learn has no C4.5; its entropy tree is the
# nearest model.

# %%
from sklearn.model_selection import train_test_split

iris = load_iris()
Xi, yi, inames = iris.data, iris.target, iris.feature_names
Xi_tr, Xi_te, yi_tr, yi_te = train_test_split(Xi, yi, test_size=0.3, stratify=yi, random_state=0)
c45 = tree.fit_c45(Xi_tr, yi_tr, n_classes=3)
sk_ent = DecisionTreeClassifier(criterion="entropy", random_state=0).fit(Xi_tr, yi_tr)
species = ["setosa", "versicolor", "virginica"]
print(tree.export_text(c45, feature_names=inames, class_names=species))
pd.DataFrame({"test accuracy": [float(np.mean(np.asarray(tree.predict(c45, Xi_te)) == yi_te)),
                                sk_ent.score(Xi_te, yi_te)],
              "leaves": [tree.export_text(c45).count("("), sk_ent.get_n_leaves()]},
             index=["jaxclassic C4.5 (pruned)", "scikit-learn entropy tree"])
