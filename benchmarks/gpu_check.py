"""One prepared device check: results on the accelerator equal the CPU's, and the large cases' times.

Run on a machine with a GPU (or TPU) as one script within a short budget::

    python -m benchmarks.gpu_check             # large cases (<= 8 minutes on one H100)
    python -m benchmarks.gpu_check --quick     # toy sizes; also runs on a CPU-only machine

For every case the same jitted fit runs on ``jax.devices()[0]`` (the accelerator, when there is
one) and on ``jax.devices("cpu")[0]``; the script prints the largest relative difference of the
results (float32 on both: tolerances are float32's), the accelerator's compile time and median
run time, the CPU's median run time and the speed-up. It exits non-zero when any case differs
by more than its tolerance, so a device run that returns wrong numbers cannot pass unnoticed.

It also times the tree engine's histogram kernel variants (``benchmarks/hist_kernels.py``) on
the device at the issue's size, each checked against the CPU's scan variant, and one CART fit.
Every family has a case (:func:`family_cases`: kernel SVC, k-means, KNN, GMM, GP, naive Bayes
and LDA, HMM, lasso, AdaBoost, beside the linear, metric and tree cases).
A case that raises is reported as FAILED with its error and the script goes on.

Then the issue's large cases (:func:`large_cases`) run on the device only (a 16-core CPU
would take longer than the whole budget), timed: GBDT 10,000,000 x 28 x 100 rounds (beside
xgboost ``device="cuda"`` when xgboost is installed and the device is a GPU), k-means
10,000,000 x 16, KNN 1,000,000 x 10,000 queries x 128, kernel SVC 100,000 (SMO capped at
``SVC_LARGE_MAX_ITER`` steps: its time is the figure, ``converged`` is printed), logistic
10,000,000 x 100, HMM 10,000 sequences. Their data are generated on the device. Each row
also prints the peak memory so far (the device's ``peak_bytes_in_use``; the process's peak RSS
on a CPU backend).

Budget: ``--budget`` seconds (full mode: 450) — a case that would end after it (a large case
by its estimated time, any other once the budget is spent) is reported as SKIPPED (not a
failure) and can be run alone with ``--only``; ``--only "[large]"`` runs the large cases alone.
Estimate of the full run on one H100 (not measured: no GPU was lent when it was written;
from the FLOP and byte counts, the forest case's measured H200 rate and the CPU sides' sizes):
about 4 min for the linear / metric / tree cases (their CPU sides dominate), 1.5 min for the
family cases (CPU sides of 1-10 s each, GPU compiles of 2-10 s), 3.5 min for the large cases
(GBDT ~6e9 row-level histogram updates, ~30 s a run, 100 s with compile, binning and xgboost;
SVC 100k ~60 s; the rest 10-15 s each: KNN 2.6 TFLOP, logistic 10 Newton Hessians of 2e11 FLOP,
k-means 50 passes over 640 MB, HMM 20 EM passes of 100 steps). That is ~9 min: the 450 s
budget ends the first run by ~8 min with the last large cases SKIPPED; ``--only "[large]"``
then runs them (~3.5 min).
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
import traceback
import warnings
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
        X, y = make_regression(n_ols, d_ols, n_informative=d_ols // 2, noise=1.0, key=jax.random.key(0))
        return X, y

    def clf(n, d):
        def make():
            X, y = make_classification(n, d, n_informative=d // 2, flip_y=0.05, key=jax.random.key(1))
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
        folds = kfold_weights(X.shape[0], 10, key=jax.random.key(3))
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
    return out + tree_cases(quick) + family_cases(quick)


def _pallas_hist(codes_T, stats, node, *, n_nodes, n_bins):
    """hist_kernels' ``(L, F, B, S)`` layout from the engine's Pallas kernel."""
    from jaxclassic.tree import _hist_pallas

    return _hist_pallas.hist(codes_T, stats, node, n_nodes, n_bins).transpose(3, 2, 0, 1)


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
        # the engine's Pallas kernel (jaxclassic/tree/_hist_pallas.py): on the device the
        # Triton kernel (atomic adds), on the CPU side the XLA kernel (lax.platform_dependent)
        out.append((f"hist pallas_atomic L={n_nodes} {n}x{n_features}x{n_bins}", make,
                    functools.partial(_pallas_hist, n_nodes=n_nodes, n_bins=n_bins), 1e-4))
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
        X, y = make_classification(n_cart, 28, n_informative=14, flip_y=0.05, key=jax.random.key(4))
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
        X, y = make_classification(n_boost, 28, n_informative=14, flip_y=0.05, key=jax.random.key(5))
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


def _quiet(fn):
    """``fn`` with jaxclassic's ConvergenceWarning silenced (a capped EM / SMO run is the case's
    point, not a problem: the device and the CPU are compared after the same iterations)."""
    from jaxclassic.exceptions import ConvergenceWarning

    @functools.wraps(fn)
    def wrapped(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return fn(*args)

    return wrapped


def family_cases(quick: bool):
    """One case per remaining family (kernel SVM, k-means, KNN, GMM, GP, naive Bayes / LDA,
    HMM, lasso, AdaBoost), device vs CPU at moderate sizes (the CPU side must stay short).

    Iterative fits start from the same key on both sides; their float32 sums run in another
    order on the device, so the paths may part at near-ties: the tolerances (1e-3 for EM and
    Lloyd's centres, 1e-2 for SMO's decision values, whose optimum is only fixed to ``tol``,
    5e-2 for boosted stumps, as the tree cases) allow that and nothing more.
    """
    from jaxclassic import cluster, discriminant, ensemble, gaussian_process, graphical, linear, svm
    from jaxclassic.datasets import make_blobs, make_classification, make_regression
    from jaxclassic.neighbors import kneighbors

    q = quick
    n_svc, d_svc = (300, 8) if q else (10_000, 20)
    n_km, d_km, k_km = (400, 4, 3) if q else (1_000_000, 16, 8)
    n_idx, n_query, d_knn = (400, 50, 8) if q else (200_000, 10_000, 32)
    n_gmm, d_gmm = (400, 3) if q else (200_000, 8)
    n_gp, d_gp = (100, 3) if q else (5_000, 8)
    n_nb, d_nb = (400, 5) if q else (1_000_000, 50)
    n_seq, t_seq = (10, 20) if q else (1_000, 100)
    n_lasso, d_lasso = (300, 10) if q else (100_000, 200)
    n_ada, rounds_ada = (400, 5) if q else (200_000, 50)
    n_rows = 1_000 if q else 10_000  # rows of the predictions compared

    def clf(n, d, key=11):
        return lambda: make_classification(n, d, n_informative=max(2, d // 2), flip_y=0.05,
                                           key=jax.random.key(key))

    def blobs(n, d, k, key):
        return lambda: (make_blobs(n, k, d, key=jax.random.key(key))[0],)

    def knn_inputs():
        k1, k2 = jax.random.split(jax.random.key(12))
        return (jax.random.normal(k1, (n_idx, d_knn)), jax.random.normal(k2, (n_query, d_knn)))

    def gp_inputs():
        X, y = make_regression(n_gp + n_rows, d_gp, noise=1.0, key=jax.random.key(13))
        y = (y - y.mean()) / y.std()
        return X[:n_gp], y[:n_gp], X[n_gp:]

    def seq_inputs():
        k1, k2 = jax.random.split(jax.random.key(14))
        states = jnp.cumsum(jax.random.bernoulli(k1, 0.05, (n_seq * t_seq,))) % 3
        return (jax.random.normal(k2, (n_seq * t_seq, 4)) + 3.0 * states[:, None].astype(jnp.float32),)

    def lasso_inputs():
        return make_regression(n_lasso, d_lasso, n_informative=d_lasso // 10, noise=1.0, key=jax.random.key(15))

    def svc(X, y):
        params = svm.fit_kernel_svm(X, y, C=1.0, kernel="rbf", gamma=1.0 / X.shape[1])
        return svm.decision_function(params, X[:n_rows])

    def kmeans(X):
        return cluster.fit_kmeans(X, k_km, key=jax.random.key(16), max_iter=50).cluster_centers

    def knn(X_index, X_query):
        return kneighbors(X_index, X_query, 10)[0]

    def gmm(X):
        return cluster.fit_gmm(X, 4, key=jax.random.key(17), covariance_type="full", max_iter=30).means

    def gp(X, y, X_new):
        params = gaussian_process.fit_gp(X, y, length_scale=2.0, noise=0.1)
        return gaussian_process.predict(params, X_new)

    def nb_lda(X, y):
        nb = discriminant.predict_proba(discriminant.fit_gaussian_nb(X, y), X[:n_rows])
        lda = discriminant.predict_proba(discriminant.fit_lda(X, y), X[:n_rows])
        return jnp.concatenate([nb, lda])

    def hmm(X):
        params = graphical.fit_hmm(X, [t_seq] * n_seq, 3, emission="gaussian", max_iter=20,
                                   key=jax.random.key(18))
        return params.means

    def lasso(X, y):
        return linear.fit_lasso(X, y, alpha=0.1).coef

    def ada(X, y):
        params = ensemble.fit_adaboost(X, y, n_estimators=rounds_ada, max_depth=1)
        return ensemble.predict_proba(params, X[:n_rows])

    return [
        (f"kernel SVC rbf {n_svc}x{d_svc} (decisions)", clf(n_svc, d_svc), svc, 1e-2),
        (f"k-means k={k_km} {n_km}x{d_km} (centres)", blobs(n_km, d_km, k_km, 19), kmeans, 1e-3),
        (f"KNN k=10 {n_idx}x{d_knn}, {n_query} queries", knn_inputs, knn, 1e-4),
        (f"GMM full 4 comps {n_gmm}x{d_gmm} (means)", blobs(n_gmm, d_gmm, 4, 20), gmm, 1e-3),
        (f"GP rbf {n_gp}x{d_gp} (predictions)", gp_inputs, gp, 1e-3),
        (f"naive Bayes + LDA {n_nb}x{d_nb} (probas)", clf(n_nb, d_nb, 21), nb_lda, 1e-4),
        (f"HMM gaussian {n_seq} seqs x {t_seq} (means)", seq_inputs, _quiet(hmm), 1e-3),
        (f"lasso alpha=0.1 {n_lasso}x{d_lasso}", lasso_inputs, lasso, 1e-3),
        (f"AdaBoost {rounds_ada} stumps {n_ada}x28 (probas)", clf(n_ada, 28, 22), ada, 5e-2),
    ]


#: SMO steps of the 100,000-row SVC timing case (a bound on its time; it reports ``converged``)
SVC_LARGE_MAX_ITER = 200_000


def large_cases(quick: bool):
    """``(name, make_inputs, fn, ref, expected_s)``: the issue's large sizes, timed on the device
    only (``expected_s``: the estimated seconds of the case on one H100, for ``--budget``).

    ``make_inputs()`` runs on the device (data generated there); ``ref``, when not None, takes
    the inputs as numpy arrays and returns a reference's fit + predict seconds, or None when it
    cannot run. In quick mode the sizes and functions are those of :func:`family_cases` (so
    the suite compiles nothing more for them).
    """
    from jaxclassic import ensemble, graphical, linear, svm
    from jaxclassic.cluster import fit_kmeans
    from jaxclassic.datasets import make_blobs, make_classification
    from jaxclassic.neighbors import kneighbors

    q = quick
    # quick: the sizes (and keys) of the quick device-vs-CPU cases, whose programs are reused
    n_gb, rounds, depth = (2_000, 3, 2) if q else (10_000_000, 100, 6)
    n_km, d_km, k_km = (400, 4, 3) if q else (10_000_000, 16, 8)
    n_idx, n_query, d_knn = (400, 50, 8) if q else (1_000_000, 10_000, 128)
    n_svc, d_svc = (300, 8) if q else (100_000, 20)
    n_log, d_log = (20_000, 20) if q else (10_000_000, 100)
    n_seq, t_seq = (10, 20) if q else (10_000, 100)
    n_rows = 1_000 if q else 10_000

    def clf(n, d, key):
        return lambda: make_classification(n, d, n_informative=max(2, d // 2), flip_y=0.05,
                                           key=jax.random.key(key))

    def gbdt(X, y):
        params = ensemble.fit_xgboost(X, y, loss="log_loss", n_estimators=rounds, max_depth=depth,
                                      learning_rate=0.1, max_bin=256)
        return ensemble.predict_proba(params, X[:10_000])

    def gbdt_ref(X, y):
        if jax.default_backend() != "gpu":
            return None
        try:
            import xgboost
        except ImportError:
            return None
        import time

        model = xgboost.XGBClassifier(n_estimators=rounds, max_depth=depth, learning_rate=0.1, max_bin=256,
                                      tree_method="hist", device="cuda")
        t0 = time.perf_counter()
        try:
            model.fit(X, y)
            model.predict_proba(X[:10_000])
        except Exception as exc:  # the reference's failure is not ours: report, no figure
            print(f"xgboost device='cuda' failed: {type(exc).__name__}: {exc}"[:300], flush=True)
            return None
        return time.perf_counter() - t0

    def kmeans_inputs():
        return (make_blobs(n_km, k_km, d_km, key=jax.random.key(19))[0],)

    def kmeans(X):
        return fit_kmeans(X, k_km, key=jax.random.key(16), max_iter=50).cluster_centers

    def knn_inputs():
        k1, k2 = jax.random.split(jax.random.key(12))
        return (jax.random.normal(k1, (n_idx, d_knn)), jax.random.normal(k2, (n_query, d_knn)))

    def knn(X_index, X_query):
        return kneighbors(X_index, X_query, 10)[0]

    def svc(X, y):
        params = svm.fit_kernel_svm(X, y, C=1.0, kernel="rbf", gamma=1.0 / X.shape[1],
                                    max_iter=SVC_LARGE_MAX_ITER if not q else None)
        return svm.decision_function(params, X[:n_rows]), params.converged

    def logistic(X, y):
        return linear.fit_logistic(X, y, l2=1.0).coef

    def seq_inputs():
        k1, k2 = jax.random.split(jax.random.key(14))
        states = jnp.cumsum(jax.random.bernoulli(k1, 0.05, (n_seq * t_seq,))) % 3
        return (jax.random.normal(k2, (n_seq * t_seq, 4)) + 3.0 * states[:, None].astype(jnp.float32),)

    def hmm(X):
        return graphical.fit_hmm(X, [t_seq] * n_seq, 3, emission="gaussian", max_iter=20,
                                 key=jax.random.key(18)).means

    # the long, uncertain cases first, while the budget lasts; the last number is the
    # estimated seconds on one H100 (data, compile, two runs, reference), used by --budget
    return [
        (f"[large] GBDT {rounds} rounds depth {depth} {n_gb}x28", clf(n_gb, 28, 5), gbdt, gbdt_ref,
         0 if q else 100),
        (f"[large] kernel SVC rbf {n_svc}x{d_svc}", clf(n_svc, d_svc, 11), _quiet(svc), None,
         0 if q else 60),
        (f"[large] logistic Newton {n_log}x{d_log}", clf(n_log, d_log, 1), logistic, None, 0 if q else 15),
        (f"[large] KNN k=10 {n_idx}x{d_knn}, {n_query} queries", knn_inputs, knn, None, 0 if q else 10),
        (f"[large] k-means k={k_km} {n_km}x{d_km}", kmeans_inputs, kmeans, None, 0 if q else 10),
        (f"[large] HMM gaussian {n_seq} seqs x {t_seq}", seq_inputs, _quiet(hmm), None, 0 if q else 15),
    ]


def _memory_note(device) -> str:
    """The device's peak memory so far (``memory_stats``: GPUs and TPUs), else the process's
    peak RSS (the CPU backend's buffers live in host memory); both are peaks of the whole run
    so far, so a case's own figure is the first to exceed the previous ones."""
    stats = device.memory_stats() if hasattr(device, "memory_stats") else None
    if stats and "peak_bytes_in_use" in stats:
        return f"  peak {stats['peak_bytes_in_use'] / 2**30:.2f} GiB device"
    from benchmarks._harness import peak_rss_mb

    return f"  peak {peak_rss_mb() / 1024:.2f} GiB RSS"


def _run_timing(make_inputs, fn, ref, device):
    """Device-only timing: ``(output, compile_s, run_s, ref_s)``."""
    with jax.default_device(device):
        # committed to the device, as _run_case's inputs (so quick mode reuses their programs)
        inputs = jax.block_until_ready(jax.device_put(make_inputs(), device))
        out, compile_s, run_s = time_jax(lambda: fn(*inputs), repeats=1)
    ref_s = ref(*[np.asarray(a) for a in inputs]) if ref is not None else None
    return out, compile_s, run_s, ref_s


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
    parser.add_argument("--budget", type=float, default=None,
                        help="seconds after which the remaining cases are skipped (full mode: 450)")
    args = parser.parse_args(argv)
    budget = args.budget if args.budget is not None else (None if args.quick else 450.0)
    start = time.perf_counter()
    device = jax.devices()[0]
    cpu = jax.devices("cpu")[0]
    print(f"device: {device} ({jax.default_backend()}), reference: {cpu}, jax {jax.__version__}")
    header = f"{'case':<44} {'rel diff':>9} {'rtol':>7} {'compile s':>9} {'device s':>9} {'cpu s':>9} {'speed-up':>8}"
    print(header)
    failed, skipped = [], []

    def selected(name):
        return not ((args.only and args.only not in name) or (args.skip and args.skip in name))

    def over_budget(name, expected_s=0.0):
        if budget is not None and time.perf_counter() - start + expected_s > budget:
            print(f"{name:<44} SKIPPED (budget of {budget:.0f} s spent)", flush=True)
            skipped.append(name)
            return True
        return False

    for name, make_inputs, fn, rtol in cases(args.quick):
        if not selected(name) or over_budget(name):
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
    for name, make_inputs, fn, ref, expected_s in large_cases(args.quick):
        if not selected(name) or over_budget(name, expected_s):
            continue
        try:
            out, compile_s, run_s, ref_s = _run_timing(make_inputs, fn, ref, device)
        except Exception as exc:
            traceback.print_exc()
            print(f"{name:<44} FAILED: {type(exc).__name__}: {exc}"[:300], flush=True)
            failed.append(name)
            continue
        finite = all(bool(np.all(np.isfinite(np.asarray(leaf, np.float64))))
                     for leaf in jax.tree_util.tree_leaves(out))
        note = "" if ref_s is None else f"  xgboost cuda {ref_s:.3f} s ({ref_s / run_s:.2g}x)"
        if isinstance(out, tuple):  # (result, converged)
            note += f"  converged={bool(out[1])}"
        note += _memory_note(device)
        print(f"{name:<44} {'timing':>9} {'-':>7} {compile_s:9.3f} {run_s:9.4f} {'-':>9} {'-':>8}"
              + note + ("" if finite else "  NON-FINITE"), flush=True)
        failed += [] if finite else [name]
    if skipped:
        print("SKIPPED (budget): " + ", ".join(skipped))
    if failed:
        print("FAILED: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
