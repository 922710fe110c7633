"""Decision trees: one CART tree of depth 8 vs scikit-learn and one LightGBM tree, and the
histogram kernel of one tree level in each measured variant.

Data: ``make_classification`` (full: 1,000,000 x 28 float32, 14 informative, 5% flipped
labels; quick: 5,000 x 8), the last 20% held out. Ours is the public ``tree.fit_cart``
(validation and binning included, 255 bins), timed after a compile call; scikit-learn's
``DecisionTreeClassifier(max_depth=8)`` (exact splits on float32) and LightGBM's
``LGBMClassifier(n_estimators=1, max_depth=8, num_leaves=256, max_bin=255)`` (one boosting
tree, histogram splits) are timed on the same numpy arrays. Quality: held-out accuracy.

The histogram rows time one level of the engine's kernel (``benchmarks/hist_kernels.py``) at
the same size with L = 1 and 32 nodes, each checked against the scan variant (the engine's).
"""

from __future__ import annotations

import numpy as np

from benchmarks._harness import Result, time_host, time_jax

__all__ = ["run"]


def _cart_rows(quick: bool) -> list[Result]:
    import jax
    import jax.numpy as jnp
    from sklearn.tree import DecisionTreeClassifier

    from jaxclassic import tree
    from jaxclassic.datasets import make_classification

    n, d = (5_000, 8) if quick else (1_000_000, 28)
    X, y = make_classification(n, d, n_informative=d // 2, flip_y=0.05, key=jax.random.key(0))
    X, y = np.asarray(X, np.float32), np.asarray(y)
    n_train = int(0.8 * n)
    Xtr, ytr, Xte, yte = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
    Xtr_j, ytr_j, Xte_j = jnp.asarray(Xtr), jnp.asarray(ytr), jnp.asarray(Xte)
    depth = 8

    def ours():
        return tree.fit_cart(Xtr_j, ytr_j, task="classification", max_depth=depth, n_bins=255,
                             n_classes=2)

    params, compile_s, ours_s = time_jax(ours, repeats=3)
    ours_acc = float(np.mean(np.asarray(tree.predict(params, Xte_j)) == yte))
    sk, sk_s = time_host(lambda: DecisionTreeClassifier(max_depth=depth, random_state=0).fit(Xtr, ytr),
                         repeats=1 if quick else 2)
    sk_acc = float(sk.score(Xte, yte))
    case = f"CART depth {depth} fit {n_train}x{d} float32"
    rows = [Result("tree", case, ours_s, sk_s, compile_s, "test accuracy", ours_acc, sk_acc,
                   "sklearn DecisionTreeClassifier", f"d acc={ours_acc - sk_acc:+.4f}")]
    try:
        import lightgbm as lgb
    except ImportError:  # pragma: no cover - lightgbm is in the dev extra
        return rows
    booster_kwargs = dict(n_estimators=1, max_depth=depth, num_leaves=2**depth, max_bin=255,
                          learning_rate=1.0, min_child_samples=1, min_child_weight=0.0,
                          min_split_gain=0.0, reg_lambda=0.0, subsample=1.0, colsample_bytree=1.0,
                          verbose=-1, n_jobs=-1)
    lg, lg_s = time_host(lambda: lgb.LGBMClassifier(**booster_kwargs).fit(Xtr, ytr),
                         repeats=1 if quick else 2)
    lg_acc = float(np.mean(lg.predict(Xte) == yte))
    rows.append(Result("tree", case, ours_s, lg_s, compile_s, "test accuracy", ours_acc, lg_acc,
                       "LightGBM, one tree", f"d acc={ours_acc - lg_acc:+.4f}"))
    return rows


def _hist_rows(quick: bool) -> list[Result]:
    from benchmarks import hist_kernels as hk

    n, n_features, n_bins = (20_000, 8, 64) if quick else (1_000_000, 28, 256)
    rows = []
    for n_nodes in (1, 32):
        inputs = hk.make_inputs(n, n_features, n_bins, n_nodes)
        base, _, base_s = time_jax(lambda: hk.scan_segment_sum(*inputs, n_nodes=n_nodes, n_bins=n_bins))
        base = np.asarray(base)
        for name, fn in hk.VARIANTS.items():
            if name == "scan_segment_sum":
                continue
            if name in ("onehot_matmul", "sort_segment_sum") and not quick and n_nodes > 1:
                continue  # seconds per call on a CPU at L = 1 already; one size says enough
            out, compile_s, s = time_jax(lambda: fn(*inputs, n_nodes=n_nodes, n_bins=n_bins),
                                         repeats=2 if name == "onehot_matmul" else 5)
            diff = float(np.max(np.abs(np.asarray(out) - base)))
            # "ours" is the engine's kernel (scan); the "reference" column is the variant
            rows.append(Result("tree", f"histogram level L={n_nodes} {n}x{n_features}x{n_bins}",
                               base_s, s, compile_s, "max|diff|", None, None, f"variant {name}",
                               f"{diff:.1e}"))
    return rows


def run(quick: bool) -> list[Result]:
    return _hist_rows(quick) + _cart_rows(quick)
