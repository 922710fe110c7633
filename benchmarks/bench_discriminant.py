"""Generative classifiers: Gaussian NB, categorical NB, LDA, QDA vs scikit-learn, fit time.

Synthetic Gaussian classes (full: 200,000 x 50, 5 classes; quick: 2,000 x 10). Ours is timed
through the public fit (validation included) on jax arrays, scikit-learn's ``fit`` on the
same values as numpy. Quality: training accuracy of each side; agreement: the largest
absolute difference of the predicted probabilities.
"""

from __future__ import annotations

import numpy as np

from benchmarks._harness import Result, time_host, time_jax

__all__ = ["run"]


def run(quick: bool) -> list[Result]:
    import jax.numpy as jnp
    from sklearn import discriminant_analysis as sk_da
    from sklearn import naive_bayes as sk_nb

    from jaxclassic import discriminant as D

    n, d, n_classes = (2_000, 10, 5) if quick else (200_000, 50, 5)
    rng = np.random.default_rng(0)
    y = rng.integers(0, n_classes, n)
    centers = rng.normal(scale=0.15, size=(n_classes, d))
    scales = rng.uniform(0.8, 1.25, size=(n_classes, d))
    X = centers[y] + scales[y] * rng.normal(size=(n, d))
    X = X.astype(np.float32)
    codes = np.clip(np.floor(X + 3), 0, 5).astype(np.int32)  # 6 categories per feature
    Xj, yj, cj = jnp.asarray(X), jnp.asarray(y), jnp.asarray(codes)

    cases = [
        ("GaussianNB", lambda: D.fit_gaussian_nb(Xj, yj), sk_nb.GaussianNB, X),
        ("CategoricalNB", lambda: D.fit_categorical_nb(cj, yj, n_categories=6),
         lambda: sk_nb.CategoricalNB(min_categories=6), codes),
        ("LDA", lambda: D.fit_lda(Xj, yj), lambda: sk_da.LinearDiscriminantAnalysis(solver="lsqr"), X),
        ("QDA", lambda: D.fit_qda(Xj, yj), sk_da.QuadraticDiscriminantAnalysis, X),
    ]
    results = []
    for name, ours_fn, ref_cls, data in cases:
        params, compile_s, ours_s = time_jax(ours_fn, repeats=3 if quick else 5)
        ref, ref_s = time_host(lambda: ref_cls().fit(data, y), repeats=1 if quick else 3)
        inputs = cj if name == "CategoricalNB" else Xj
        proba = np.asarray(D.predict_proba(params, inputs))
        ref_proba = ref.predict_proba(data)
        results.append(Result(
            benchmark="discriminant", case=f"{name} fit {n}x{d} float32", ours_s=ours_s, ref_s=ref_s,
            compile_s=compile_s, metric="train accuracy",
            ours_quality=float(np.mean(proba.argmax(1) == y)),
            ref_quality=float(np.mean(ref_proba.argmax(1) == y)), reference="scikit-learn",
            agreement=f"max|dp|={np.max(np.abs(proba - ref_proba)):.1e}"))
    return results
