r"""Multiclass probabilities from one-vs-one pairwise probabilities: pairwise coupling.

Given, for every pair of classes :math:`i \ne j`, an estimate :math:`r_{ij} \approx
P(y = i \mid y \in \{i, j\}, x)` (:math:`r_{ji} = 1 - r_{ij}`; for SVMs, Platt's sigmoid of the
pair's decision value), Wu, Lin & Weng's second method finds class probabilities :math:`p` by

.. math::

    \min_p\ \tfrac12\sum_i\sum_{j \ne i}(r_{ji}\,p_i - r_{ij}\,p_j)^2
    = \tfrac12\, p^\top Q p \quad\text{s.t.}\quad \textstyle\sum_i p_i = 1,
    \qquad Q_{ii} = \sum_{j\ne i} r_{ji}^2,\ \ Q_{ij} = -r_{ji}\,r_{ij},

whose solution is non-negative without the constraint :math:`p \ge 0` (their Theorem 2). LIBSVM
(``multiclass_probability``, what scikit-learn's ``SVC.predict_proba`` runs) approaches it by a
fixed-point iteration stopped at :math:`\max_t |(Qp)_t - p^\top Qp| < 0.005/K`; here the
optimality system :math:`\begin{pmatrix} Q & e \\ e^\top & 0\end{pmatrix}
\begin{pmatrix} p \\ -b\end{pmatrix} = \begin{pmatrix} 0 \\ 1\end{pmatrix}` is solved exactly
(one ``(K+1) x (K+1)`` solve per row, ``vmap``-ed), so the two differ by LIBSVM's stopping
tolerance (~1e-3). As LIBSVM, each :math:`r_{ij}` is first clipped to :math:`[10^{-7}, 1 - 10^{-7}]`.

References
----------
Wu, Lin & Weng, "Probability estimates for multi-class classification by pairwise coupling",
JMLR 5 (2004) 975-1005, §4 (method 2).
Chang & Lin, "LIBSVM: a library for support vector machines", ACM TIST 2 (2011), §8.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxclassic import _linalg
from jaxclassic.svm import platt

__all__ = ["pairwise_coupling", "ovo_probabilities"]

#: LIBSVM's clipping of the pairwise probabilities
MIN_PROB = 1e-7


def pairwise_coupling(r):
    r"""Class probabilities ``(n, K)`` from pairwise probabilities ``r`` ``(n, K, K)``.

    ``r[:, i, j]`` estimates :math:`P(i \mid i \text{ or } j)` (the diagonal is ignored and
    ``r[:, j, i]`` should be ``1 - r[:, i, j]``). Solves Wu-Lin-Weng's method 2 exactly
    (module docstring).

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> p = jnp.array([0.5, 0.3, 0.2])
    >>> r = p[:, None] / (p[:, None] + p[None, :])   # consistent pairwise probabilities
    >>> [round(float(v), 6) for v in pairwise_coupling(r[None])[0]]
    [0.5, 0.3, 0.2]
    """
    r = jnp.clip(r, MIN_PROB, 1 - MIN_PROB)
    k = r.shape[-1]
    off = 1.0 - jnp.eye(k, dtype=r.dtype)

    def one(rr):
        rt = rr.T * off  # rt[i, j] = r_ji
        Q = -rt * rr * off  # Q_ij = -r_ji r_ij
        Q = Q + jnp.diag(jnp.sum(jnp.square(rt), axis=1))  # Q_ii = sum_j r_ji^2
        system = jnp.block([[Q, jnp.ones((k, 1), r.dtype)], [jnp.ones((1, k), r.dtype),
                                                             jnp.zeros((1, 1), r.dtype)]])
        rhs = jnp.concatenate([jnp.zeros(k, r.dtype), jnp.ones(1, r.dtype)])
        return _linalg.solve(system, rhs)[:k]

    return jax.vmap(one)(r)


def ovo_probabilities(decisions, probA, probB, pairs, n_classes: int):
    r"""``(n, K)`` probabilities of one-vs-one SVMs: Platt's sigmoid per pair, then coupling.

    Parameters
    ----------
    decisions : (n, P) array
        Decision value of pair ``p`` (positive: class ``pairs[p, 1]``).
    probA, probB : (P,) arrays
        Each pair's sigmoid :math:`P(\text{pairs}[p, 1] \mid f) = 1/(1 + e^{Af + B})`.
    pairs : (P, 2) int array
        The pairs :math:`(a, b)`, :math:`a < b`.
    n_classes : int (static)
    """
    second = platt.sigmoid_proba(decisions, probA, probB)[..., 1]  # (n, P): P(b | a or b)
    n = decisions.shape[0]
    r = jnp.full((n, n_classes, n_classes), 0.5, decisions.dtype)
    r = r.at[:, pairs[:, 1], pairs[:, 0]].set(second)
    r = r.at[:, pairs[:, 0], pairs[:, 1]].set(1.0 - second)
    return pairwise_coupling(r)
