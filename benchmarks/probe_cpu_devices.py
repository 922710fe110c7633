"""Issue 26 probe: a whole boosting fit with the CPU's cores as JAX devices, rows sharded.

The issue's first suggestion is to treat the host's cores as JAX devices
(``jax_num_cpu_devices``) and run the same row-sharded program as :mod:`jaxclassic.distributed`
(``shard_rows`` then ``jax.jit`` of the fit: XLA's SPMD partitioner adds the all-reduces).
This script measures that for gradient boosting and XGBoost-style boosting in a fresh process
per device count, so that the setting is made before JAX starts its backend::

    python -m benchmarks.probe_cpu_devices DEVICES ROWS ROUNDS {gb,xgb}
    python -m benchmarks.probe_cpu_devices 1 200000 20 gb      # 160,000 training rows x 28

It prints one JSON line: the first call (compile + run), the best of three warm fits, CPU
utilisation (process CPU seconds / wall seconds) and the held-out AUC. Data as
``bench_boosting`` (``make_classification(n, 28, n_informative=14, n_redundant=4,
random_state=0)``, float32, the first 80 % for training), depth 6, learning rate 0.1.

Measured 2026-11-29 on the quiet 2-core host (jax 0.10.2), ``fit_gradient_boosting`` with
``loss="log_loss"``, 20 rounds, 160,000 x 28:

========  =========  =======  ========  =====
devices   first s    fit s    CPU use   AUC
========  =========  =======  ========  =====
1         7.29       2.462    1.29      0.9725
2         46.12      40.736   1.96      0.9725
========  =========  =======  ========  =====

Sixteen times slower on two devices: the partitioned program keeps both cores busy (1.96)
doing something else than the histograms. ``fit_xgboost`` under ``jax.jit`` on two CPU
devices does not finish: XLA warns of an "involuntary full rematerialization" of ``X`` to
``{maximal device=0}``, one device then waits in an all-reduce rendezvous that the other never
joins, and XLA aborts the process after 40 s (``rendezvous.cc``: "Termination timeout ...
exceeded"); 4,000 rows are enough (``xgb`` with ``2 4000 5``). The same call on one device,
and the eager ``fit_xgboost`` on the two-device sharded arrays, finish. So the automatic
partitioning of the whole fit is not the way to the cores; the shared note's probe
(``shared/notes/cores-as-devices.md``: one histogram 52 -> 17 ms on two devices) used
``shard_map`` around the histogram alone, which is where a design should start.
"""

from __future__ import annotations

import json
import sys
import time


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    n_devices, n, rounds, which = int(argv[0]), int(argv[1]), int(argv[2]), argv[3]
    import jax

    jax.config.update("jax_num_cpu_devices", n_devices)  # before the backend starts
    import numpy as np
    from sklearn.datasets import make_classification
    from sklearn.metrics import roc_auc_score

    from jaxclassic import distributed, ensemble

    X, y = make_classification(n, 28, n_informative=14, n_redundant=4, random_state=0)
    X = X.astype(np.float32)
    n_train = int(0.8 * n)
    mesh = distributed.make_mesh(n_devices)
    Xs, ys, ws = distributed.shard_rows(X[:n_train], y[:n_train], mesh=mesh)
    kw = dict(loss="log_loss", n_estimators=rounds, max_depth=6, learning_rate=0.1, n_classes=2)
    if which == "xgb":
        fit = jax.jit(lambda X, y, w: ensemble.fit_xgboost(X, y, max_bin=256, sample_weight=w, **kw))
    else:
        fit = jax.jit(lambda X, y, w: ensemble.fit_gradient_boosting(X, y, sample_weight=w, **kw))
    t = time.perf_counter()
    params = jax.block_until_ready(fit(Xs, ys, ws))
    first = time.perf_counter() - t
    best, cpu = float("inf"), 0.0
    for _ in range(3):
        c, t = time.process_time(), time.perf_counter()
        jax.block_until_ready(fit(Xs, ys, ws))
        wall = time.perf_counter() - t
        if wall < best:
            best, cpu = wall, (time.process_time() - c) / wall
    proba = np.asarray(ensemble.predict_proba(params, X[n_train:]))[:, 1]
    print(json.dumps(dict(devices=n_devices, n_train=n_train, rounds=rounds, which=which, first_s=round(first, 2),
                          fit_s=round(best, 3), cpu_util=round(cpu, 2),
                          auc=round(float(roc_auc_score(y[n_train:], proba)), 4))))


if __name__ == "__main__":
    main()
