"""The shared names of :mod:`jaxclassic.gaussian_process`: dispatched on the params type."""

from jaxclassic._dispatch import Dispatcher

__all__ = ["predict"]

predict = Dispatcher(
    "predict",
    "GP posterior mean ``(n,)``, with ``return_std`` its standard deviation or with "
    "``return_cov`` its covariance: ``predict(params, X, return_std=False, return_cov=False, "
    "include_noise=False)`` (see :func:`jaxclassic.gaussian_process.regression.predict_gp`).",
)
