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
# # 8. Graphical and sequence models
#
# A Bayesian network queried by variable elimination (play-tennis, beside pgmpy), a hidden
# Markov model of calm and volatile market regimes decoded by Viterbi (ISLR *Smarket*,
# beside hmmlearn), and a linear-chain CRF tagging noun/verb phrase chunks (CoNLL-2000,
# beside python-crfsuite).
#
# `JAXCLASSIC_NB_SMALL=1` (the test suite) trains the CRF on 30 sentences instead of 300.

# %%
import os
import warnings

import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

jax.config.update("jax_enable_x64", True)  # references compared at float64
SMALL = os.environ.get("JAXCLASSIC_NB_SMALL") == "1"
plt.rcParams.update({"figure.dpi": 72, "figure.figsize": (9, 3.2)})
warnings.filterwarnings("ignore", category=FutureWarning)  # pgmpy's renamed estimators
warnings.filterwarnings("ignore", message="IProgress not found")  # tqdm, imported by pgmpy

from jaxclassic import graphical as G
from jaxclassic.datasets import load_play_tennis

# %% [markdown]
# ## A Bayesian network and a query
#
# The joint factorises over the DAG, $p(x) = \prod_v p(x_v \mid x_{\mathrm{pa}(v)})$; with
# *play* the parent of every weather attribute this is naive Bayes. The tables are weighted
# counts; a query $p(\text{play} \mid e)$ sums the hidden variables out one at a time
# (variable elimination) and normalises. Mitchell (§6.9.1) gets 0.205 for a sunny, cool,
# humid, windy day.

# %%
tennis = load_play_tennis()
X, y, attrs, cats = tennis.data, tennis.target, tennis.feature_names, tennis.categories
data = np.column_stack([y, X]).astype(np.int32)
names = ["play"] + list(attrs)
cards = [int(c) for c in data.max(axis=0) + 1]
structure = G.make_structure({"play": [], **{a: ["play"] for a in attrs}}, cards)
net = G.fit_bayes_net(data, structure)
mitchell = {"outlook": cats["outlook"].index("sunny"), "temperature": cats["temperature"].index("cool"),
            "humidity": cats["humidity"].index("high"), "wind": cats["wind"].index("strong")}
ours = float(G.query(net, "play", mitchell)[1])

from pgmpy.estimators import MaximumLikelihoodEstimator
from pgmpy.inference import VariableElimination
from pgmpy.models import DiscreteBayesianNetwork

df = pd.DataFrame(data, columns=names)
model = DiscreteBayesianNetwork([("play", a) for a in attrs])
est = MaximumLikelihoodEstimator(model, df, state_names={n: list(range(c)) for n, c in zip(names, cards)})
model.add_cpds(*[est.estimate_cpd(n) for n in names])
ref = float(VariableElimination(model).query(["play"], evidence=mitchell, show_progress=False).values[1])
print(f"p(play = yes | sunny, cool, high, strong): jaxclassic {ours:.6f}, pgmpy {ref:.6f}")

# %% [markdown]
# Evidence values are traced, so the posterior for every (outlook, wind) pair is one `vmap`
# of the same compiled query:

# %%
grid = np.array([(o, w) for o in range(cards[1]) for w in range(cards[4])])
post = jax.vmap(lambda o, w: G.query(net, "play", {"outlook": o, "wind": w})[1])(grid[:, 0], grid[:, 1])
table = pd.DataFrame(np.asarray(post).reshape(cards[1], cards[4]), index=cats["outlook"], columns=cats["wind"])
fig, ax = plt.subplots(figsize=(5, 3))
table.plot.bar(ax=ax, rot=0)
ax.set(ylabel="p(play = yes | outlook, wind)", title="posterior per evidence", ylim=(0, 1))
ax.legend(title="wind");

# %% [markdown]
# ## A hidden Markov model of market regimes
#
# Daily S&P 500 returns $x_t$ with a hidden regime $z_t \in \{\text{calm}, \text{volatile}\}$:
# $p(x, z) = \pi_{z_1}\prod_t A_{z_{t-1}z_t}\,\mathcal N(x_t; \mu_{z_t}, \sigma^2_{z_t})$.
# Baum–Welch (EM with forward–backward messages) fits $(\pi, A, \mu, \sigma^2)$; Viterbi finds
# $\arg\max_z p(z \mid x)$ by max-product. Same start and 30 iterations on both sides.

# %%
from hmmlearn import hmm as H

from jaxclassic.datasets import load_smarket
from jaxclassic.graphical import hmm

Xs = load_smarket().data
returns = np.asarray(Xs[:, :1], dtype=np.float64)  # Lag1: the previous day's return, %
start = dict(startprob=[0.5, 0.5], transmat=[[0.95, 0.05], [0.05, 0.95]])
init = hmm.gaussian_hmm(**start, means=[[0.0], [0.0]], covars=[[0.5], [3.0]])
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # tol = 0: no convergence by design
    fitted = G.fit_hmm(returns, None, 2, emission="gaussian", init=init, max_iter=30, tol=0.0, reg_covar=0.0)
path = np.asarray(G.viterbi(fitted, returns)[0])
gamma = np.asarray(G.posterior(fitted, returns).gamma)
volatile = int(np.argmax(np.asarray(fitted.covars).ravel()))

ref = H.GaussianHMM(2, init_params="", n_iter=30, tol=0.0, covars_prior=0.0)
ref.startprob_, ref.transmat_ = np.asarray(start["startprob"]), np.asarray(start["transmat"])
ref.means_, ref.covars_ = np.asarray(init.means), np.asarray(init.covars)
ref.fit(returns)
ref_path = ref.predict(returns)

fig, axes = plt.subplots(2, 1, figsize=(9, 4), sharex=True)
axes[0].plot(returns[:, 0], lw=0.5, color="k")
axes[0].scatter(np.arange(len(path)), returns[:, 0], c=path == volatile, cmap="coolwarm", s=3)
axes[0].set(ylabel="return (%)", title="Smarket: Viterbi regimes (red = volatile state)")
axes[1].plot(gamma[:, volatile], lw=0.7)
axes[1].set(xlabel="trading day (2001-2005)", ylabel="p(volatile | x)")
fig.tight_layout()
pd.DataFrame({"log-likelihood": [float(hmm.log_likelihood(fitted, returns)), ref.score(returns)],
              "volatile-state sd": [float(np.sqrt(np.max(np.asarray(fitted.covars)))),
                                    float(np.sqrt(np.max(ref.covars_)))],
              "Viterbi days equal to hmmlearn's": [float(np.mean(path == ref_path)), 1.0]},
             index=["jaxclassic", "hmmlearn"])

# %% [markdown]
# ## A linear-chain CRF tagger
#
# $p(y \mid x) = \frac{1}{Z(x)}\exp\sum_t \big(w^\top\phi(y_t, x, t) + T_{y_{t-1}y_t}\big)$,
# trained by L-BFGS on the L2-penalised negative log-likelihood, whose gradient is
# observed minus expected feature counts; the expectations are the marginals
# $p(y_t \mid x)$, obtained as the gradient of $\log Z(x)$ (forward algorithm + autodiff).
# CoNLL-2000 chunking from part-of-speech features (B-/I- noun, verb, prepositional phrases).

# %%
import tempfile

import pycrfsuite

from jaxclassic.datasets import load_conll2000_chunking
from jaxclassic.graphical import crf
from jaxclassic.graphical._crf_features import chunking_features, index_features

pos, chunks = load_conll2000_chunking(return_X_y=True)
feats = [chunking_features(p) for p in pos]
n_train = 30 if SMALL else 300
train_f, train_c, test_f, test_c = feats[:n_train], chunks[:n_train], feats[-200:], chunks[-200:]
classes = sorted({c for s in train_c for c in s})
code = {c: i for i, c in enumerate(classes)}
Xc, lengths, vocab = index_features(train_f, max_length=64)
yc = np.zeros(Xc.shape[:2], np.int32)
for i, s in enumerate(train_c):
    yc[i, : len(s)] = [code[c] for c in s]
params = crf.fit_crf(Xc, yc, lengths=lengths, c2=1.0, n_labels=len(classes))
X_test, l_test, _ = index_features(test_f, vocab, max_length=64)
pred = np.asarray(crf.predict(params, jnp.asarray(X_test), jnp.asarray(l_test)))
truth = np.array([code.get(c, -1) for s in test_c for c in s])
ours = float(np.mean(np.concatenate([p[:k] for p, k in zip(pred, l_test)]) == truth))

trainer = pycrfsuite.Trainer(verbose=False)
for f, c in zip(train_f, train_c):
    trainer.append(pycrfsuite.ItemSequence(f), c)
trainer.set_params({"c1": 0.0, "c2": 1.0})
with tempfile.TemporaryDirectory() as tmp:
    trainer.train(os.path.join(tmp, "chunker.crfsuite"))
    tagger = pycrfsuite.Tagger()
    tagger.open(os.path.join(tmp, "chunker.crfsuite"))
    tagged = [tagger.tag(pycrfsuite.ItemSequence(f)) for f in test_f]
    tagger.close()
ref = np.mean([a == b for p, c in zip(tagged, test_c) for a, b in zip(p, c)])
pd.DataFrame({"test token accuracy (last 200 sentences)": [ours, ref]},
             index=[f"jaxclassic fit_crf ({n_train} sentences)", "python-crfsuite (same features)"])

# %% [markdown]
# The marginals $p(y_t \mid x)$ of one test sentence:

# %%
k = int(l_test[0])
node, _ = crf.marginals(params, jnp.asarray(X_test[0]), k)
fig, ax = plt.subplots(figsize=(9, 3.2))
ax.imshow(np.asarray(node)[:k].T, aspect="auto", cmap="Greys", vmin=0, vmax=1)
ax.set_yticks(range(len(classes)), classes, fontsize=6)
ax.set_xticks(range(k), pos[-200][:k], rotation=90, fontsize=7)
ax.set(title="CRF marginals p(chunk tag | POS tags), first test sentence");
