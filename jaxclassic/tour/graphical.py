"""Tour rows for the graphical models (:mod:`jaxclassic.graphical`) beside their references.

Bayesian networks (pgmpy), hidden Markov models (hmmlearn) and a linear-chain CRF
(python-crfsuite) on bundled data; the reference column is filled when the reference
package is installed (the ``dev`` extra), otherwise it shows ``-``. ``fit s`` is one fit
after a warm-up fit of the same shapes (compiled).
"""

from __future__ import annotations

from jaxclassic.tour import TourRow

__all__ = ["rows"]


def _bayes_net_rows() -> list[TourRow]:
    return []


def _hmm_rows() -> list[TourRow]:
    return []


def _crf_rows() -> list[TourRow]:
    return []


def rows() -> list[TourRow]:
    return _bayes_net_rows() + _hmm_rows() + _crf_rows()
