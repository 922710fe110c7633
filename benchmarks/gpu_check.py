"""One prepared device check: results on the accelerator equal the CPU's, and the large cases' times.

Run on a machine with a GPU (or TPU) as one script within a short budget::

    python -m benchmarks.gpu_check             # large cases (a few minutes on one H100)
    python -m benchmarks.gpu_check --quick     # toy sizes; also runs on a CPU-only machine

For every case the same jitted fit runs on ``jax.devices()[0]`` (the accelerator, when there is
one) and on ``jax.devices("cpu")[0]``; the script prints the largest relative difference of the
results (float32 on both: tolerances are float32's), the accelerator's compile time and median
run time, the CPU's median run time and the speed-up. It exits non-zero when any case differs
by more than its tolerance, so a device run that returns wrong numbers cannot pass unnoticed.

It also times the tree engine's histogram kernel variants (``benchmarks/hist_kernels.py``) on
the device at the issue's size, each checked against the CPU's scan variant, and one CART fit.
A case that raises is reported as FAILED with its error and the script goes on.
"""

from __future__ import annotations

import argparse
import functools
import sys
import traceback
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from benchmarks._harness import time_jax

__all__ = ["main", "cases"]


def _rel(a, b) -> float:
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-30))


def cases(quick: bool) -> list[tuple[str, Callable[[], tuple], Callable, float]]:
    """``(name, make_inputs, fn, rtol)``: ``fn(*inputs)`` is jitted and run on each device."""
    from jaxclassic import linear, metrics
    from jaxclassic.datasets import make_classification, make_regression
    from jaxclassic.model_selection import grid_search, kfold_weights, log_loss_scorer

    n_ols, d_ols = (20_000, 20) if quick else (4_000_000, 200)
    n_log, d_log = (20_000, 20) if quick else (1_000_000, 200)
    n_grid, d_grid = (2_000, 10) if quick else (50_000, 100)
    n_auc = 20_000 if quick else 10_000_000

    def reg():
        X, y = make_regression(jax.random.key(0), n_ols, d_ols, n_informative=d_ols // 2, noise=1.0)
        return X, y

    def clf(n, d):
        def make():
            X, y = make_classification(jax.random.key(1), n, d, n_informative=d // 2, flip_y=0.05)
            return X, y
        return make

    def auc_inputs():
        k1, k2 = jax.random.split(jax.random.key(2))
        y = jax.random.bernoulli(k1, 0.3, (n_auc,)).astype(jnp.int32)
        score = jnp.round(jax.random.normal(k2, (n_auc,)) + y, 2)  # rounded: many ties
        return y, score

    alphas = jnp.logspace(-3, 3, 100)
    l2s = jnp.logspace(-2, 3, 50)

    def ridge_grid(X, y):
        return jax.vmap(lambda a: linear.fit_ridge(X, y, alpha=a).coef)(alphas)

    def logistic_grid(X, y):
        folds = kfold_weights(X.shape[0], 10, jax.random.key(3))
        res = grid_search(linear.fit_logistic, log_loss_scorer(linear.predict_proba), X, y,
                          {"l2": l2s}, folds, refit=False)
        return res.mean_scores

    out = [
        ("OLS %dx%d" % (n_ols, d_ols), reg, lambda X, y: linear.fit_ols(X, y).coef, 1e-3),
        ("ridge 100 alphas %dx%d" % (n_ols, d_ols), reg, ridge_grid, 1e-3),
        ("logistic Newton %dx%d" % (n_log, d_log), clf(n_log, d_log),
         lambda X, y: linear.fit_logistic(X, y, l2=1.0).coef, 1e-3),
        ("logistic grid 50 l2 x 10 folds %dx%d" % (n_grid, d_grid), clf(n_grid, d_grid),
         logistic_grid, 1e-3),
        ("lasso path 100 alphas %dx%d" % (n_grid, d_grid), clf(n_grid, d_grid),
         lambda X, y: linear.lasso_path(X, y.astype(X.dtype), n_alphas=100).coefs, 1e-2),
        ("roc_auc n=%d (ties)" % n_auc, auc_inputs, metrics.roc_auc, 1e-4),
    ]
    return out + tree_cases(quick)


def tree_cases(quick: bool):
    """Histogram kernel variants (one tree level) and a CART fit, device vs CPU."""
    from benchmarks import hist_kernels as hk

    n, n_features, n_bins = (20_000, 8, 64) if quick else (1_000_000, 28, 256)
    out = []
    for n_nodes in (1, 32):
        def make(n_nodes=n_nodes):
            return hk.make_inputs(n, n_features, n_bins, n_nodes)
        for name, fn in hk.VARIANTS.items():
            if name == "flat_segment_sum" and n_nodes > 1 and not quick:
                continue  # its L*F*B target is the measured slow one; one size is enough
            out.append((f"hist {name} L={n_nodes} {n}x{n_features}x{n_bins}", make,
                        functools.partial(fn, n_nodes=n_nodes, n_bins=n_bins), 1e-4))
    try:
        from jaxclassic import tree
    except ImportError:
        return out
    if not hasattr(tree, "fit_cart"):
        return out
    n_cart = 2_000 if quick else 1_000_000
    cart_depth = 3 if quick else 8

    def cart_inputs():
        from jaxclassic.datasets import make_classification
        X, y = make_classification(jax.random.key(4), n_cart, 28, n_informative=14, flip_y=0.05)
        return X, y

    def cart_fit(X, y):
        params = tree.fit_cart(X, y, task="classification", max_depth=cart_depth, n_bins=255, n_classes=2)
        return tree.predict_proba(params, X[:10_000])

    out.append((f"CART depth {cart_depth} {n_cart}x28 (probabilities)", cart_inputs, cart_fit, 1e-4))
    try:
        from jaxclassic import ensemble
    except ImportError:
        return out
    n_boost = 2_000 if quick else 200_000
    rounds = 3 if quick else 100
    depth = 2 if quick else 6
    forest_depth = 3 if quick else 10

    def boost_inputs():
        from jaxclassic.datasets import make_classification
        X, y = make_classification(jax.random.key(5), n_boost, 28, n_informative=14, flip_y=0.05)
        return X, y

    def boost_fit(X, y):
        params = ensemble.fit_xgboost(X, y, loss="log_loss", n_estimators=rounds, max_depth=depth,
                                      learning_rate=0.1, max_bin=256)
        return ensemble.predict_proba(params, X[:10_000])

    def forest_fit(X, y):
        params = ensemble.fit_random_forest(X, y, task="classification", n_estimators=rounds,
                                            max_depth=forest_depth, n_bins=255, n_classes=2,
                                            key=jax.random.key(6))
        return ensemble.predict_proba(params, X[:10_000])

    # rtol: float32 sums in a different order move a few near-tied splits; probabilities
    # of a boosted model of 100 rounds then differ by ~1e-3 at most on a handful of rows
    out.append((f"XGBoost {rounds} rounds depth {depth} {n_boost}x28", boost_inputs, boost_fit, 5e-2))
    out.append((f"forest {rounds} trees depth {forest_depth} {n_boost}x28", boost_inputs, forest_fit, 5e-2))
    return out


def _run_case(make_inputs, fn, device, cpu):
    inputs = make_inputs()
    outs, times = {}, {}
    for label, dev in (("device", device), ("cpu", cpu)):
        args_dev = jax.device_put(inputs, dev)
        with jax.default_device(dev):
            out, compile_s, run_s = time_jax(lambda: fn(*args_dev), repeats=1 if label == "cpu" else 3)
        outs[label], times[label] = out, (compile_s, run_s)
    return outs, times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default=None, help="substring of the case names to run")
    parser.add_argument("--skip", default=None, help="substring of the case names to leave out")
    args = parser.parse_args(argv)
    device = jax.devices()[0]
    cpu = jax.devices("cpu")[0]
    print(f"device: {device} ({jax.default_backend()}), reference: {cpu}, jax {jax.__version__}")
    header = f"{'case':<44} {'rel diff':>9} {'rtol':>7} {'compile s':>9} {'device s':>9} {'cpu s':>9} {'speed-up':>8}"
    print(header)
    failed = []
    for name, make_inputs, fn, rtol in cases(args.quick):
        if (args.only and args.only not in name) or (args.skip and args.skip in name):
            continue
        try:
            outs, times = _run_case(make_inputs, fn, device, cpu)
        except Exception as exc:  # report and go on: one broken case must not hide the others
            traceback.print_exc()
            print(f"{name:<44} FAILED: {type(exc).__name__}: {exc}"[:300], flush=True)
            failed.append(name)
            continue
        diff = _rel(outs["device"], outs["cpu"])
        ok = diff <= rtol
        failed += [] if ok else [name]
        speed = times["cpu"][1] / times["device"][1]
        print(f"{name:<44} {diff:9.1e} {rtol:7.0e} {times['device'][0]:9.3f} {times['device'][1]:9.4f} "
              f"{times['cpu'][1]:9.4f} {speed:7.1f}x" + ("" if ok else "  MISMATCH"), flush=True)
    if failed:
        print("FAILED: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
