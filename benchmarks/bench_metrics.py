"""Metrics and information measures: jaxclassic vs scikit-learn on the same data.

Ours is timed through the public functions (input validation included) on jax arrays;
scikit-learn on the same values as numpy arrays. Quality figure: the metric's value on both
sides; agreement: their absolute difference.
"""

from __future__ import annotations

import numpy as np

from benchmarks._harness import Result, time_host, time_jax

__all__ = ["run"]


def run(quick: bool) -> list[Result]:
    import jax.numpy as jnp
    from sklearn import metrics as sk

    from jaxclassic import information, metrics

    n = 2_000 if quick else 1_000_000
    n_classes = 10
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    score = np.round(rng.normal(size=n) + y, 2)  # rounded: many tied scores
    weight = rng.uniform(0.5, 2.0, n)
    yc = rng.integers(0, n_classes, n)
    pc = np.where(rng.random(n) < 0.6, yc, rng.integers(0, n_classes, n))
    logits = rng.normal(size=(n, n_classes)) + 2.0 * np.eye(n_classes)[yc]
    proba = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    yr = rng.normal(size=n)
    fr = yr + 0.5 * rng.normal(size=n)
    dev = {k: jnp.asarray(v) for k, v in dict(y=y, score=score, weight=weight, yc=yc, pc=pc,
                                                 proba=proba, yr=yr, fr=fr).items()}

    cases = [
        ("roc_auc (weighted, ties)",
         lambda: metrics.roc_auc(dev["y"], dev["score"], sample_weight=dev["weight"]),
         lambda: sk.roc_auc_score(y, score, sample_weight=weight)),
        ("f1_score macro (10 classes)",
         lambda: metrics.f1_score(dev["yc"], dev["pc"], average="macro", n_classes=n_classes),
         lambda: sk.f1_score(yc, pc, average="macro")),
        ("log_loss (10 classes)",
         lambda: metrics.log_loss(dev["yc"], dev["proba"]),
         lambda: sk.log_loss(yc, proba, labels=np.arange(n_classes))),
        ("r2_score (weighted)",
         lambda: metrics.r2_score(dev["yr"], dev["fr"], sample_weight=dev["weight"]),
         lambda: sk.r2_score(yr, fr, sample_weight=weight)),
        ("mutual_information (nats)",
         lambda: information.mutual_information(dev["yc"], dev["pc"], base="nats"),
         lambda: sk.mutual_info_score(yc, pc)),
    ]
    results = []
    for name, ours_fn, ref_fn in cases:
        ours, compile_s, ours_s = time_jax(ours_fn, repeats=3 if quick else 5)
        ref, ref_s = time_host(ref_fn, repeats=1 if quick else 3)
        ours, ref = float(ours), float(ref)
        results.append(Result(
            benchmark="metrics", case=f"{name} n={n}", ours_s=ours_s, ref_s=ref_s,
            compile_s=compile_s, metric="value", ours_quality=ours, ref_quality=ref,
            reference="sklearn", agreement=f"{abs(ours - ref):.1e}",
        ))
    return results
