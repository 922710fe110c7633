"""Random forests: 100 trees of depth 10 vs scikit-learn's RandomForestClassifier(n_jobs=-1).

Data: scikit-learn's ``make_classification(200_000, 28, n_informative=14, n_redundant=4,
random_state=0)`` as float32, the first 80% for training and the last 20% held out (quick:
4,000 x 8, 10 trees of depth 4, 32 bins). Ours is the public
``ensemble.fit_random_forest`` (validation, binning on the host with 255 quantile bins, the
bootstrap draw, every tree in one vmap; ``max_width=512`` so depth-10 trees are exact, and on
an accelerator 50 trees per vmap batch), timed after a compile call; scikit-learn's
``RandomForestClassifier(n_estimators=100, max_depth=10, n_jobs=-1)`` (exact splits,
``max_features="sqrt"`` as ours) on the same numpy arrays. Quality: held-out accuracy, and the
ROC AUC of the class-1 probability in ``agreement``.

Run: ``python -m benchmarks.run --only forest`` (full size) or with ``--quick``. On a host with
more than one core the case runs again in a fresh process whose cores are JAX devices
(``jaxclassic.distributed.use_cpu_cores()``: one block of trees per core, issue 26).

Measured 2026-11-29 (quiet 2-core host, jax 0.10.2): ours 12.5 s (CPU use 1.54), with the
cores as devices 8.6 s (1.81), vs scikit-learn n_jobs=-1 24.7-25.9 s (1.97); accuracy 0.9458
vs 0.9478, AUC 0.9859 vs 0.9864.

Measured (2026-11-26, one NVIDIA H200, 16 CPU cores, jax 0.11.2 float32, scikit-learn 1.9.1):
ours 0.49 s (compile 8.3 s) vs scikit-learn 5.15 s on the 16 cores (10.5x); test accuracy
0.9473 vs 0.9478, AUC 0.9862 vs 0.9864. Quick mode on 2 loaded CPU cores: 0.02 s (compile
12 s) vs 0.10 s, accuracy 0.834 vs 0.830.
"""

from __future__ import annotations

import numpy as np

from benchmarks._harness import Result, last_cpu_use, on_cores, time_host, time_jax

__all__ = ["run"]


def _case(quick: bool, label: str = "") -> list[Result]:
    import jax
    import jax.numpy as jnp
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.metrics import roc_auc_score

    from jaxclassic import ensemble

    if quick:
        n, d, n_trees, depth, n_bins, width = 4_000, 8, 10, 4, 32, None
        X, y = make_classification(n, d, n_informative=4, n_redundant=2, random_state=0)
    else:
        n, d, n_trees, depth, n_bins, width = 200_000, 28, 100, 10, 255, 512
        X, y = make_classification(n, d, n_informative=14, n_redundant=4, random_state=0)
    X = X.astype(np.float32)
    n_train = int(0.8 * n)
    Xtr, ytr, Xte, yte = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
    Xtr_j, ytr_j, Xte_j = jnp.asarray(Xtr), jnp.asarray(ytr), jnp.asarray(Xte)
    chunk = None if jax.default_backend() == "cpu" else 50

    def ours():
        return ensemble.fit_random_forest(Xtr_j, ytr_j, n_estimators=n_trees, max_depth=depth, n_bins=n_bins,
                                          max_width=width, key=jax.random.key(0), n_classes=2, chunk_size=chunk)

    forest, compile_s, ours_s = time_jax(ours, repeats=1 if quick else 2)
    ours_cpu = last_cpu_use()
    proba = np.asarray(ensemble.predict_proba(forest, Xte_j))
    ours_acc = float(np.mean(proba.argmax(axis=1) == yte))
    ours_auc = float(roc_auc_score(yte, proba[:, 1]))
    sk, sk_s = time_host(lambda: RandomForestClassifier(n_estimators=n_trees, max_depth=depth, n_jobs=-1,
                                                        random_state=0).fit(Xtr, ytr), repeats=1 if quick else 2)
    sk_cpu = last_cpu_use()
    sk_acc = float(sk.score(Xte, yte))
    sk_auc = float(roc_auc_score(yte, sk.predict_proba(Xte)[:, 1]))
    case = f"forest {n_trees} trees depth {depth} fit {n_train}x{d} float32{label}"
    return [Result("forest", case, ours_s, sk_s, compile_s, "test accuracy", ours_acc, sk_acc,
                   "sklearn RandomForestClassifier n_jobs=-1",
                   f"AUC {ours_auc:.4f} vs {sk_auc:.4f}; d acc={ours_acc - sk_acc:+.4f}", ours_cpu=ours_cpu,
                   ref_cpu=sk_cpu)]


def run(quick: bool) -> list[Result]:
    return _case(quick) + on_cores("bench_forest", "_case", quick)  # the CPU's cores as devices too
