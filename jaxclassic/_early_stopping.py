r"""Early stopping: stop an iterative fit at the arg-min of a validation loss once it has not
improved for ``patience`` iterations (ground module: SGD, boosting and model selection share it).

* :func:`early_stopping` — the rule over a whole recorded sequence of validation losses;
* :func:`early_stopping_init` / :func:`early_stopping_update` — the same rule one step at a
  time, a pytree state to carry inside a ``lax.while_loop`` / ``lax.scan`` of an iterative fit.

An iteration improves when its loss is below ``best_value - min_delta``; training stops at
the first iteration ``t`` with ``t - best_iter >= patience`` (XGBoost's ``early_stopping_rounds``
and scikit-learn's ``n_iter_no_change`` count the same way).

References
----------
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §11.5.2.
Prechelt, "Early Stopping — But When?", *Neural Networks: Tricks of the Trade*, 1998.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from jaxclassic.validation import check_array, check_int, check_scalar, default_float_dtype, is_traced

__all__ = ["EarlyStopping", "EarlyStoppingState", "early_stopping", "early_stopping_init", "early_stopping_update"]


class EarlyStoppingState(NamedTuple):
    """Running state of the early-stopping rule (a pytree: carry it in a loop).

    Attributes
    ----------
    best_value : float scalar
        Lowest validation loss seen so far.
    best_iter : int32 scalar
        Iteration (0-based) where it was seen (-1 before any).
    n_iter : int32 scalar
        Iterations looked at (frozen once ``stop`` is set).
    stop : bool scalar
        Whether patience has run out.
    """

    best_value: jax.Array
    best_iter: jax.Array
    n_iter: jax.Array
    stop: jax.Array


class EarlyStopping(NamedTuple):
    """Outcome of :func:`early_stopping`.

    Attributes
    ----------
    best_iter : int32 scalar
        Arg-min of the validation loss among the iterations run: the iterate to keep.
    stop_iter : int32 scalar
        The last iteration run (where patience ran out, or the last one given).
    best_value : float scalar
        The validation loss at ``best_iter``.
    stopped : bool scalar
        Whether patience ran out before the end of the sequence.
    """

    best_iter: jax.Array
    stop_iter: jax.Array
    best_value: jax.Array
    stopped: jax.Array


def early_stopping_init(dtype=None) -> EarlyStoppingState:
    """The state before the first iteration (``best_value = inf``)."""
    dtype = dtype or default_float_dtype()
    return EarlyStoppingState(
        jnp.asarray(jnp.inf, dtype), jnp.int32(-1), jnp.int32(0), jnp.asarray(False)
    )


def early_stopping_update(
    state: EarlyStoppingState, value: Any, *, patience: int | jax.Array, min_delta: float | jax.Array = 0.0
) -> EarlyStoppingState:
    r"""Account for one more iteration's validation loss ``value``.

    An iteration improves when ``value < best_value - min_delta``; training stops once
    ``patience`` consecutive iterations did not improve, i.e. at the first ``t`` with
    ``t - best_iter >= patience``. After ``stop`` the state no longer changes. Pure and
    jittable: carry the state through a ``lax.scan`` / ``lax.while_loop`` and end the loop on
    ``state.stop``.
    """
    value = jnp.asarray(value, state.best_value.dtype)
    t = state.n_iter
    better = value < state.best_value - min_delta
    best_value = jnp.where(better, value, state.best_value)
    best_iter = jnp.where(better, t, state.best_iter).astype(jnp.int32)
    stop = (t - best_iter) >= patience
    new = EarlyStoppingState(best_value, best_iter, t + 1, stop)
    return jax.tree_util.tree_map(lambda old, upd: jnp.where(state.stop, old, upd), state, new)


def early_stopping(val_losses: Any, patience: int, *, min_delta: float = 0.0) -> EarlyStopping:
    r"""Where to stop an iterative fit: arg-min of the validation loss, with patience.

    Scans ``val_losses[0], val_losses[1], ...`` (lower is better; negate a score) and stops
    at the first iteration ``t`` with no improvement (by more than ``min_delta``) over the
    best loss for ``patience`` iterations running: :math:`t - t^\star \ge` ``patience`` where
    :math:`t^\star = \arg\min_{s \le t} \mathrm{loss}_s`. The iterate to keep is
    :math:`t^\star`. Pure and jittable, e.g. to pick the number of boosting rounds from a
    staged validation loss.

    Parameters
    ----------
    val_losses : (T,) float array
        Validation loss after each iteration.
    patience : int >= 1
        Iterations without improvement tolerated before stopping.
    min_delta : float >= 0
        Smallest decrease that counts as an improvement.

    Returns
    -------
    EarlyStopping
        ``(best_iter, stop_iter, best_value, stopped)``.

    Example
    -------
    >>> r = early_stopping(jnp.array([5., 4., 3., 3.5, 3.2, 3.1, 2.0]), patience=3)
    >>> int(r.best_iter), int(r.stop_iter), bool(r.stopped)
    (2, 5, True)
    """
    if not is_traced(val_losses):
        val_losses = check_array(val_losses, "val_losses", ndim=1, allow_nan=True)
    elif val_losses.ndim != 1:
        raise ValueError(f"val_losses must be 1-d, got an array of shape {val_losses.shape}")
    if not is_traced(patience):
        patience = check_int(patience, "patience", low=1)
    check_scalar(min_delta, "min_delta", low=0.0)
    dtype = val_losses.dtype if jnp.issubdtype(val_losses.dtype, jnp.floating) else jnp.float32

    def step(state, value):
        return early_stopping_update(state, value, patience=patience, min_delta=min_delta), None

    state, _ = jax.lax.scan(step, early_stopping_init(dtype), val_losses)
    return EarlyStopping(state.best_iter, state.n_iter - 1, state.best_value, state.stop)
