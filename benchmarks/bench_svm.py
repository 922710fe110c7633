"""Kernel SVM: SVC with the rbf kernel vs scikit-learn's ``SVC`` (LIBSVM), fit and predict.

Data: scikit-learn's ``make_classification(n_train + 2500, 20, random_state=0)``, the first
``n_train`` rows to fit, the last 2,500 to test; ``n_train`` = 10,000 (and 50,000 in full mode;
quick: 1,000 and 250 test rows). Both sides: C = 1, gamma = "scale", tol = 1e-3.

Ours is the public :func:`jaxclassic.svm.fit_kernel_svm` on float32 arrays (the package
default; LIBSVM computes in float64), timed after a compile call (reported apart), with the
default choices (``storage="auto"``: rows on demand at 20 features; ``working_set="auto"``:
pairs on the CPU); a float64 row and a row for the batched working set (ThunderSVM's idea,
``batch_size=256``) show what those choices cost. Prediction: the decision function of the
2,500 test rows from the support vectors only (:func:`jaxclassic.svm.kernel.restrict_to_support`).
Quality: test accuracy and the number of support vectors of each side.

Memory (issue 15, full size only): the 50,000-row fit again, each side in a fresh process, with
the peak resident memory of the whole process (``ru_maxrss``): ours keeps no 50,000 x 50,000
kernel matrix (rows on demand; tiling under ``jaxclassic._tiling.MEMORY_BUDGET``), LIBSVM keeps
its 200 MB kernel cache.

The SMO loop is sequential: each step is a few O(n) passes and two kernel rows inside one
jitted ``while_loop``; its cost per step against LIBSVM's C loop (which also shrinks the active
set) is what bounds the fit (see ``extra``: steps and microseconds per step).
"""

from __future__ import annotations

import numpy as np

from benchmarks._harness import Result, fresh_process, time_host, time_jax

__all__ = ["run"]

N_TEST = 2_500


def _data(n_train: int, n_test: int):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_train + n_test, 20, random_state=0)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def _case(n_train: int, n_test: int, quick: bool, variants: bool) -> list[Result]:
    import jax
    import jax.numpy as jnp
    from sklearn.svm import SVC

    from jaxclassic import svm
    from jaxclassic.svm.kernel import restrict_to_support

    Xtr, ytr, Xte, yte = _data(n_train, n_test)
    repeats = 3 if quick else (2 if n_train <= 10_000 else 1)
    sk, sk_s = time_host(lambda: SVC(C=1.0, gamma="scale").fit(Xtr, ytr), repeats=repeats)
    sk_pred, sk_pred_s = time_host(lambda: sk.predict(Xte), repeats=3)
    sk_acc, sk_nsv = float(np.mean(sk_pred == yte)), int(sk.support_.size)

    rows = []
    settings = [("float32", jnp.float32, {})]
    if variants:
        settings += [("float64", jnp.float64, {}), ("float32 batched q=256", jnp.float32,
                                                   dict(working_set="batch", batch_size=256))]
    for label, dtype, kwargs in settings:
        with jax.enable_x64(dtype == jnp.float64):
            Xj, yj, Xq = jnp.asarray(Xtr, dtype), jnp.asarray(ytr), jnp.asarray(Xte, dtype)
            params, compile_s, fit_s = time_jax(lambda: svm.fit_kernel_svm(Xj, yj, C=1.0, gamma="scale", **kwargs),
                                                repeats=repeats)
            compact = restrict_to_support(params)
            pred, _, pred_s = time_jax(lambda: svm.predict(compact, Xq), repeats=3)
        acc = float(np.mean(np.asarray(pred) == yte))
        n_sv = int(compact.alpha.shape[0])
        n_iter = int(params.n_iter)
        extra = {"n_iter": n_iter, "us_per_step": 1e6 * fit_s / max(n_iter, 1), "converged": bool(params.converged),
                 "sklearn_n_iter": int(np.sum(sk.n_iter_)), "n_sv": n_sv, "sklearn_n_sv": sk_nsv}
        case = f"SVC rbf fit {n_train}x20 {label}"
        rows.append(Result("svm", case, fit_s, sk_s, compile_s, "test accuracy", acc, sk_acc,
                           "sklearn SVC (LIBSVM, float64)", f"n_SV {n_sv} vs {sk_nsv}", extra))
        if label == "float32":
            rows.append(Result("svm", f"SVC rbf predict {n_test} rows ({n_sv} SV) {label}", pred_s, sk_pred_s,
                               None, "test accuracy", acc, sk_acc, "sklearn SVC.predict",
                               f"same labels {float(np.mean(np.asarray(pred) == sk_pred)):.4f}"))
    return rows


_FRESH = """
import sys, time, resource, numpy as np
from sklearn.datasets import make_classification
n, side = int(sys.argv[1]), sys.argv[2]
X, y = make_classification(n + 2500, 20, random_state=0)
X, y = X[:n], y[:n]
t = time.perf_counter()
if side == "ours":
    import jax, jax.numpy as jnp
    from jaxclassic import svm
    p = svm.fit_kernel_svm(jnp.asarray(X, jnp.float32), jnp.asarray(y), C=1.0, gamma="scale")
    jax.block_until_ready(p)
else:
    from sklearn.svm import SVC
    SVC(C=1.0, gamma="scale").fit(X, y)
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def _fresh_process_memory(n_train: int) -> Result:
    """The fit in a fresh process per side: wall time (compile included) and peak RSS."""
    out = {side: tuple(map(float, fresh_process(_FRESH, n_train, side).split()))
           for side in ("ours", "sklearn")}
    return Result("svm", f"SVC rbf fit {n_train}x20, fresh process (compile included): peak memory",
                  out["ours"][0], out["sklearn"][0], None, "peak RSS MB", out["ours"][1],
                  out["sklearn"][1], "sklearn SVC (LIBSVM)",
                  f"peak MB: ours {out['ours'][1]:.0f}, sklearn {out['sklearn'][1]:.0f}",
                  peak_rss_mb=out["ours"][1], extra={"sklearn_peak_rss_mb": out["sklearn"][1]})


def run(quick: bool) -> list[Result]:
    if quick:
        return _case(1_000, 250, True, variants=False)
    return (_case(10_000, N_TEST, False, variants=True) + _case(50_000, N_TEST, False, variants=False)
            + [_fresh_process_memory(50_000)])
