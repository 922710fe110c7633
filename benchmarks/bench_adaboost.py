"""AdaBoost: 200 stumps vs scikit-learn's ``AdaBoostClassifier``.

Data: ``make_classification`` (full: 100,000 x 20 float32, 10 informative, 5% flipped
labels; quick: 4,000 x 8 and 20 stumps), the last 20% held out. Ours is the public
``ensemble.fit_adaboost`` (validation and the one binning included, 255 bins, one scan over
the rounds), timed after a compile call; scikit-learn's
``AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=200)`` (exact
splits) on the same numpy arrays. Quality: held-out accuracy.

Run: ``python -m benchmarks.run --only adaboost`` (``--quick`` for the CI size).
"""

from __future__ import annotations

import numpy as np

from benchmarks._harness import Result, time_host, time_jax

__all__ = ["run"]


def run(quick: bool) -> list[Result]:
    import jax
    import jax.numpy as jnp
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    from jaxclassic import ensemble
    from jaxclassic.datasets import make_classification

    n, d, n_estimators = (4_000, 8, 20) if quick else (100_000, 20, 200)
    X, y = make_classification(n, d, n_informative=d // 2, flip_y=0.05, key=jax.random.key(0))
    X, y = np.asarray(X, np.float32), np.asarray(y)
    n_train = int(0.8 * n)
    Xtr, ytr, Xte, yte = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
    Xtr_j, ytr_j, Xte_j = jnp.asarray(Xtr), jnp.asarray(ytr), jnp.asarray(Xte)

    def ours():
        return ensemble.fit_adaboost(Xtr_j, ytr_j, n_estimators=n_estimators, n_classes=2)

    params, compile_s, ours_s = time_jax(ours, repeats=3)
    ours_acc = float(np.mean(np.asarray(ensemble.predict(params, Xte_j)) == yte))
    sk, sk_s = time_host(
        lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=n_estimators,
                                   random_state=0).fit(Xtr, ytr),
        repeats=1)
    sk_acc = float(sk.score(Xte, yte))
    case = f"AdaBoost {n_estimators} stumps fit {n_train}x{d} float32"
    return [Result("adaboost", case, ours_s, sk_s, compile_s, "test accuracy", ours_acc, sk_acc,
                   "sklearn AdaBoostClassifier", f"d acc={ours_acc - sk_acc:+.4f}",
                   extra={"rounds_kept": int(params.n_estimators_used), "sklearn_rounds": len(sk.estimators_)})]
