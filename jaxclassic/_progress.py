r"""Progress of a long fit, reported from inside its compiled loop (``verbose=``).

A fit here is one compiled program: boosting's rounds are a ``lax.scan``, EM, Baum--Welch,
L-BFGS and SMO are a ``lax.while_loop`` (:mod:`jaxclassic._solver`). No Python runs between
two rounds, so progress cannot be printed by the loop's caller; it is sent out of the running
program with :func:`jax.debug.callback`, which XLA runs on the host when the step reaches it.

**The flag is static.** ``verbose`` is an ``int >= 0`` (scikit-learn's meaning: 0 is silent).
With ``verbose=0`` a fit builds no callback at all: the program compiled is the one the fit
compiled before ``verbose`` existed (:func:`spec` returns None and :func:`emit` adds nothing
to the trace). With ``verbose=k > 0`` the loop body calls :func:`emit` once a step with the
step's index and its metrics (values the loop computes anyway: the training loss of a
boosting round and its validation loss where ``eval_set`` is given, the log-likelihood of an
EM iteration, the objective of an L-BFGS iteration, the duality gap of an SMO chunk); the
host side then

* advances a ``tqdm`` bar (when tqdm is installed: the optional extra
  ``jaxclassic[progress]``), on ``stderr``, and
* writes a line every ``k`` steps and after the last step, in xgboost's format
  (``[3]\ttrain-logloss:0.41234\tvalid-logloss:0.45678``; five decimals), above the bar
  (``tqdm.write``) or, without tqdm, to ``stderr``.

So ``verbose=1`` prints every step (xgboost's ``verbose_eval=True``), ``verbose=10`` every
tenth (xgboost's ``verbose_eval=10``, scikit-learn's ``verbose_interval``).

**Where it applies.** To one fit, called at the top level or under the user's ``jit`` (the
callback is part of the program; a fit traced by the user's ``jit`` reports without a bar,
as plain lines). Under ``vmap`` (a grid of hyperparameters, cross-validation folds) the
steps of the batch's members are the same steps: the host reports each step once (the first
member's values), so progress there shows the loop advancing, not each member's metrics. A
fit split over the CPU's cores (:mod:`jaxclassic._cores`) reports each step once too (every
device holds the same, all-reduced metrics). Fits that are one vmapped program over their
members with no loop around it (a forest's trees, bagging) have no steps to report between:
their estimators print one line when the program has run (:func:`done`).

The host side here is all a fit needs: :func:`check_verbose` (before tracing),
:func:`spec` (the static description of what is reported), :func:`emit` (inside the loop)
and :func:`reporting` (around the program's call: opens the bar, waits for the program's
callbacks, closes it).

References
----------
JAX documentation, "External callbacks" (``jax.debug.callback``); xgboost's
``verbose_eval`` of ``xgboost.train``; tqdm (da Costa-Luis et al., Zenodo 2019).
"""

from __future__ import annotations

import contextlib
import math
import numbers
import sys
import threading
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import jax
import numpy as np

__all__ = [
    "Progress",
    "METRIC_NAMES",
    "SMO_STRIDE",
    "check_verbose",
    "spec",
    "boosting_spec",
    "smo_spec",
    "emit",
    "reporting",
    "done",
]


@dataclass(frozen=True)
class Progress:
    r"""The static description of what a fit reports (hashable: part of the compiled program's
    key when ``verbose > 0``; ``every`` is not, so every ``verbose > 0`` runs one program).

    Attributes
    ----------
    desc : str
        The bar's label, the fit's name (``"fit_xgboost"``).
    names : tuple of str
        One label per reported value (``("train-logloss", "valid-logloss")``).
    every : int
        A line every ``every`` steps (the ``verbose`` value).
    transforms : tuple of str or None
        Per value, a host-side transform of the program's value into the printed metric:
        ``"rmse"`` prints :math:`\sqrt{2 v}` of a mean half squared error :math:`v`, None as is.
    unit : str
        The bar's unit (``"round"``, ``"it"``).
    stride : int
        Report the steps ``0, stride, 2 stride, ...`` only (a loop of many cheap steps, pair
        SMO's: one host callback a step would cost more than the step).
    """

    desc: str
    names: tuple
    every: int = field(default=1, compare=False, repr=False)
    transforms: tuple = ()
    unit: str = "it"
    stride: int = 1


#: xgboost's names of the evaluation metrics of the package's losses (mean loss -> metric)
METRIC_NAMES = {"squared": ("rmse", "rmse"), "log_loss": ("logloss", None), "softmax": ("mlogloss", None),
                "absolute": ("mae", None)}


def check_verbose(verbose: Any, name: str = "verbose") -> int:
    """``verbose`` as an ``int >= 0``: a bool is 0 or 1 (xgboost's ``verbose=True``); any
    other type raises a TypeError and a negative value a ValueError, both naming it."""
    if isinstance(verbose, (bool, np.bool_)):
        return int(verbose)
    if not isinstance(verbose, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an int >= 0 (or a bool), got {type(verbose).__name__} {verbose!r}")
    if verbose < 0:
        raise ValueError(f"{name} must be >= 0, got {verbose}")
    return int(verbose)


def spec(verbose: Any, desc: str, names, *, transforms=None, unit: str = "it", stride: int = 1) -> Progress | None:
    """The :class:`Progress` of a fit, or None when ``verbose`` is 0 (nothing is reported and
    nothing is added to the program). ``verbose`` is checked (:func:`check_verbose`).

    >>> spec(0, "fit_demo", ("loss",)) is None
    True
    >>> p = spec(10, "fit_demo", ("loss",))
    >>> p.every, p == spec(1, "fit_demo", ("loss",))  # the interval is not part of the program
    (10, True)
    """
    every = check_verbose(verbose)
    if every == 0:
        return None
    names = tuple(names)
    transforms = tuple(transforms) if transforms is not None else (None,) * len(names)
    return Progress(desc, names, every, transforms, unit, stride)


def boosting_spec(verbose: Any, desc: str, loss_name, has_eval: bool = False) -> Progress | None:
    """The :class:`Progress` of a boosting fit (None when silent): xgboost's metric of the
    loss (:data:`METRIC_NAMES`; ``loss`` for a user's loss) on the training rows, and on the
    ``eval_set`` (``valid-``)."""
    metric, transform = METRIC_NAMES.get(loss_name, ("loss", None))
    names, transforms = [f"train-{metric}"], [transform]
    if has_eval:
        names.append(f"valid-{metric}")
        transforms.append(transform)
    return spec(verbose, desc, names, transforms=transforms, unit="round")


#: pair SMO reports every this many steps (its steps are a few vector operations each)
SMO_STRIDE = 1000


def smo_spec(verbose: Any, desc: str, working_set: str) -> Progress | None:
    """The :class:`Progress` of an SMO fit: the maximal violating pair's gap, every
    :data:`SMO_STRIDE` steps of pair SMO, every step (a block of variables) of batched SMO."""
    return spec(verbose, desc, ("gap",), unit="step", stride=SMO_STRIDE if working_set == "pair" else 1)


def emit(progress: Progress | None, step, *values, live=True, last: bool = False) -> None:
    """Inside a traced loop: report step ``step`` (0-based) with ``values`` (one scalar per
    ``progress.names``) to the host. ``live`` (a traced bool) False: a step that did no work
    (a padded round past ``n_estimators``, a round after an early stop), not reported.
    With ``progress`` None, nothing: the trace is the one without reporting. ``last``: the
    loop's final step, reported whatever ``progress.stride`` (after the loop)."""
    if progress is None:
        return
    callback = partial(_deliver, progress)
    if progress.stride == 1 or last:
        jax.debug.callback(callback, step, live, *values)
    else:
        jax.lax.cond(step % progress.stride == 0, lambda: jax.debug.callback(callback, step, live, *values),
                     lambda: None)


# --------------------------------------------------------------------------- host side
class _Sink:
    """One fit's reporting on the host: the bar (or None), the steps seen, the last line."""

    def __init__(self, progress: Progress, total: int | None, bar: bool):
        self.progress = progress
        self.seen: set[int] = set()
        self.last_step = -1
        self.last_line = None
        self.printed = -1
        self.lock = threading.Lock()
        self.total, self.want_bar, self.bar = total, bar, None  # the bar opens at the first step:
        # its clock then times the steps, not the program's compilation

    def write(self, line: str) -> None:
        if self.bar is not None:
            self.bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr, flush=True)

    def take(self, step: int, line: str) -> None:
        with self.lock:
            if step in self.seen:  # another device or vmap member's copy of this step
                return
            self.seen.add(step)
            if step > self.last_step:
                self.last_step, self.last_line = step, line
            if self.want_bar and self.bar is None:
                self.want_bar = False
                self.bar = _make_bar(self.progress, self.total)
            if self.bar is not None and step + 1 > self.bar.n:
                self.bar.update(step + 1 - self.bar.n)
                self.bar.set_postfix_str(line.split("\t", 1)[-1].replace("\t", " "), refresh=False)
            if (step // self.progress.stride) % self.progress.every == 0:
                self.write(line)
                self.printed = max(self.printed, step)

    def close(self) -> None:
        with self.lock:
            if self.last_line is not None and self.printed < self.last_step:
                self.write(self.last_line)  # the last step always has its line
            if self.bar is not None:
                self.bar.close()


_active: list[_Sink] = []
_active_lock = threading.Lock()


def _make_bar(progress: Progress, total):
    try:
        from tqdm.auto import tqdm
    except ImportError:  # the optional extra jaxclassic[progress] is not installed: lines only
        return None
    return tqdm(total=total, desc=progress.desc, unit=progress.unit, file=sys.stderr, leave=True,
                dynamic_ncols=True)


def _format(value, transform) -> str:
    a = np.asarray(value, dtype=np.float64).reshape(-1)
    v = float(a[0]) if a.size else math.nan  # a vmapped batch: the first member (module docstring)
    if transform == "rmse":
        v = math.sqrt(2 * v) if v >= 0 else math.nan
    return f"{v:.5f}"


def _line(progress: Progress, step: int, values) -> str:
    fields = [f"{name}:{_format(v, t)}" for name, v, t in zip(progress.names, values, progress.transforms)]
    return "\t".join([f"[{step}]"] + fields)


def _deliver(progress: Progress, step, live, *values) -> None:
    """The callback run on the host by the program: one step's report."""
    steps = np.asarray(step).reshape(-1)
    lives = np.broadcast_to(np.asarray(live).reshape(-1), steps.shape)
    if not lives.any():
        return
    # a vmapped batch: the steps of the members are the same step (module docstring)
    first = int(np.argmax(lives))
    step_i = int(steps[first])
    line = _line(progress, step_i, [np.asarray(v).reshape(-1)[first:first + 1] if np.size(v) > 1 else v
                                    for v in values])
    with _active_lock:
        sink = next((s for s in reversed(_active) if s.progress == progress), None)
    if sink is None:  # traced by the user's jit and run later: no bar, plain lines
        if (step_i // progress.stride) % progress.every == 0:
            print(f"{progress.desc} {line}", file=sys.stderr, flush=True)
        return
    sink.take(step_i, line)


@contextlib.contextmanager
def reporting(progress: Progress | None, total: int | None = None):
    """Around the call of a program built with ``progress``: the host's bar of ``total``
    steps for its reports, closed (after the program's callbacks have all run, and the last
    step's line written) on exit. With ``progress`` None, nothing."""
    if progress is None:
        yield
        return
    sink = _Sink(progress, total, bar=True)
    with _active_lock:
        _active.append(sink)
    try:
        yield
        jax.effects_barrier()  # the program's callbacks have all run
    finally:
        with _active_lock:
            _active.remove(sink)
        sink.close()


def done(verbose: Any, desc: str, message: str) -> None:
    """A fit without steps to report (one vmapped program over its members): one line after
    the program has run, when ``verbose > 0``."""
    if check_verbose(verbose) > 0:
        print(f"{desc}: {message}", file=sys.stderr, flush=True)
