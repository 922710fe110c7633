"""Tour rows for Gaussian process regression, beside scikit-learn on the same split.

Diabetes (442 rows, 10 features), a 70/30 split, targets normalised (``normalize_y``): the
covariance ``c * RBF(l) + white noise s`` with its three hyperparameters maximising the log
marginal likelihood from ``c = l = 1``, ``s = 0.1`` (:func:`jaxclassic.gaussian_process.
optimize_hyperparameters`, L-BFGS; scikit-learn's ``GaussianProcessRegressor(ConstantKernel *
RBF + WhiteKernel)`` with its L-BFGS-B from the same start and the same bounds), then the
posterior mean on the test rows. Rows: the test R² and the maximised log marginal likelihood
of each library (both reach the same optimum: the figures agree to the optimisers'
tolerances). Computed in float64 (a ``jax.enable_x64`` scope), as scikit-learn. ``fit s`` is
one jaxclassic optimisation and fit after a warm-up of the same shapes (compiled).
"""

from __future__ import annotations

import numpy as np

from jaxclassic.tour import TourRow, timed

__all__ = ["rows"]


def rows() -> list[TourRow]:
    import jax
    from sklearn import datasets
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process import kernels as sk_kernels
    from sklearn.model_selection import train_test_split

    from jaxclassic import gaussian_process as G
    from jaxclassic import metrics

    X, y = datasets.load_diabetes(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0)
    init = G.GPKernel(1.0, 1.0, 0.1)

    def fit():
        res = G.optimize_hyperparameters(Xtr, ytr, init=init, normalize_y=True)
        return G.fit_gp(Xtr, ytr, normalize_y=True, **res.kernel._asdict())

    with jax.enable_x64(True):
        params, seconds = timed(fit)
        r2 = float(metrics.r2_score(yte, G.predict(params, Xte)))
        lml = float(params.log_marginal_likelihood_value)
    kernel = sk_kernels.ConstantKernel(1.0) * sk_kernels.RBF(1.0) + sk_kernels.WhiteKernel(0.1)
    ref = GaussianProcessRegressor(kernel, normalize_y=True).fit(Xtr, ytr)
    model = "GP regression (c RBF + noise, optimised)"
    return [
        TourRow(model, "diabetes", "test R2", r2, float(ref.score(Xte, yte)), seconds),
        TourRow(model, "diabetes", "log marginal likelihood", lml, float(ref.log_marginal_likelihood_value_),
                seconds),
    ]
