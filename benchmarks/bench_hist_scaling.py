"""Boosting's scaling law: time per round against rows, depth and bins, ours and xgboost.

Issue 26 asks for the scaling law of the histogram boosting fit (time per round vs rows, vs
depth, vs bins). Each case fits ``ensemble.fit_xgboost`` (log-loss, learning rate 0.1,
``reg_lambda = 1``) and ``xgboost.XGBClassifier(tree_method="hist")`` with the same depth and
``max_bin`` on ``make_classification(n, 28, n_informative=14, n_redundant=4, random_state=0)``
as float32, for 20 and for 40 rounds; the time per round is the difference over the 20 extra
rounds (binning, set-up and the compile drop out; ours: the best of 2 timed calls after a
compile call; xgboost: the best of 2). From the base case (160,000 rows, depth 6, 256 bins)
one axis moves at a time: rows 40,000 / 160,000 / 640,000; depth 4 / 6 / 8; bins 32 / 64 /
256. Each axis's last row also gives the exponents ``b`` of ``time per round ∝ x^b`` (least
squares on the logarithms; for depth too, over 4..8). In ``--quick`` runs, too short for the
difference to rise above the noise, the time per round is the 6-round fit over 6. On a host with more than one core the whole set
runs again in a fresh process whose cores are JAX devices (``use_cpu_cores``, issue 26).

Run: ``python -m benchmarks.run --only hist_scaling`` (``--quick``: 2 small cases).
"""

from __future__ import annotations

import numpy as np

from benchmarks._harness import Result, on_cores, time_host, time_jax

__all__ = ["run"]

BASE = dict(n=160_000, depth=6, bins=256)
AXES = {"rows": ("n", (40_000, 160_000, 640_000)), "depth": ("depth", (4, 6, 8)), "bins": ("bins", (32, 64, 256))}


def _per_round(n, depth, bins, rounds, quick):
    import jax.numpy as jnp
    import xgboost as xgb
    from sklearn.datasets import make_classification

    from jaxclassic import ensemble

    X, y = make_classification(n, 28, n_informative=14, n_redundant=4, random_state=0)
    X = X.astype(np.float32)
    Xj, yj = jnp.asarray(X), jnp.asarray(y)
    ours, ref = [], []
    for r in rounds:
        kw = dict(n_estimators=r, max_depth=depth, learning_rate=0.1)
        _, _, s = time_jax(lambda: ensemble.fit_xgboost(Xj, yj, loss="log_loss", max_bin=bins, reg_lambda=1.0, **kw),
                           repeats=1 if quick else 2)
        ours.append(s)
        _, s = time_host(lambda: xgb.XGBClassifier(tree_method="hist", max_bin=bins, **kw).fit(X, y),
                         repeats=1 if quick else 2)
        ref.append(s)
    extra = rounds[1] - rounds[0]
    if ours[1] > ours[0] and ref[1] > ref[0]:
        return (ours[1] - ours[0]) / extra, (ref[1] - ref[0]) / extra, "difference"
    # runs too short for the difference to rise above the noise (--quick): whole fit / rounds
    return ours[1] / rounds[1], ref[1] / rounds[1], "whole fit / rounds"


def _exponent(x, t):
    x, t = np.log(np.asarray(x, float)), np.log(np.maximum(np.asarray(t, float), 1e-9))
    return float(np.polyfit(x, t, 1)[0])


def _cases(quick: bool, label: str = "") -> list[Result]:
    rounds = (3, 6) if quick else (20, 40)
    if quick:
        plan = {"rows": ("n", (2_000, 8_000))}
        base = dict(n=2_000, depth=3, bins=32)
    else:
        plan, base = AXES, BASE
    measured: dict[tuple, tuple[float, float]] = {}
    results = []
    for axis, (key, values) in plan.items():
        xs, ours, refs = [], [], []
        for v in values:
            config = dict(base, **{key: v})
            point = (config["n"], config["depth"], config["bins"])
            if point not in measured:
                measured[point] = _per_round(*point, rounds, quick)
            o, r, how = measured[point]
            xs.append(v)
            ours.append(o)
            refs.append(r)
            results.append(Result(
                benchmark="hist_scaling", case=f"per round, {point[0]} rows, depth {point[1]}, {point[2]} bins{label}",
                ours_s=o, ref_s=r, compile_s=None, metric="s / round", ours_quality=o, ref_quality=r,
                reference="xgboost hist", agreement=f"axis {axis} ({how})"))
        # the axis's law on its last row: time / round ∝ x^b, b by least squares on the logs
        results[-1].agreement += (f"; b over {axis} {values}: ours {_exponent(xs, ours):.2f}, "
                                  f"xgboost {_exponent(xs, refs):.2f}")
    return results


def run(quick: bool) -> list[Result]:
    return _cases(quick) + on_cores("bench_hist_scaling", "_cases", quick)  # the CPU's cores as devices too


if __name__ == "__main__":
    import argparse

    from benchmarks.run import format_table

    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    print(format_table(run(parser.parse_args().quick)))
