"""Token-feature extraction for the CRF: feature dicts -> padded sparse indices.

A sequence is a list of *items*, one per token. An item is

- a ``dict`` in sklearn-crfsuite's convention: ``{"pos": "NN"}`` is the indicator attribute
  ``"pos:NN"``; ``{"bias": 1.0}`` or ``{"BOS": True}`` the indicator ``"bias"`` / ``"BOS"``;
  a value ``False``/``0`` is an absent attribute. Real values other than 0 and 1 are not
  supported by the sparse form (use the dense ``(n_seq, T, F)`` form of
  :func:`jaxclassic.graphical.crf.fit_crf` for real-valued features);
- a ``str`` (a token, or an attribute name): the one indicator attribute ``"token:<str>"``
  (no implicit bias);
- a list/tuple of ``str``: each is an indicator attribute (crfsuite's ItemSequence of lists).

:func:`index_features` maps the attributes to indices of a vocabulary (built on the training
sequences, attributes in order of first appearance; unknown attributes at prediction time are
dropped, as in crfsuite) and pads to ``(n_seq, T, K)`` with ``-1``.
"""

from __future__ import annotations

import numbers
from typing import Sequence

import numpy as np

__all__ = ["item_attributes", "index_features", "chunking_features"]


def item_attributes(item) -> list[str]:
    """The indicator attribute names of one token item (see the module docstring)."""
    if isinstance(item, str):
        return [f"token:{item}"]
    if isinstance(item, dict):
        out = []
        for name, value in item.items():
            if isinstance(value, str):
                out.append(f"{name}:{value}")
            elif isinstance(value, (bool, np.bool_)):
                if value:
                    out.append(str(name))
            elif isinstance(value, numbers.Real):
                if value == 1:
                    out.append(str(name))
                elif value != 0:
                    raise ValueError(
                        f"feature {name!r} has value {value!r}: only indicator features (str values, "
                        "True/False, 1/0) are supported by the sparse form; use dense features for "
                        "real values")
            else:
                raise TypeError(f"feature {name!r} has a value of type {type(value).__name__}: "
                                "expected str, bool or a number")
        return out
    if isinstance(item, (list, tuple)) and all(isinstance(a, str) for a in item):
        return list(item)
    raise TypeError(f"a token item must be a dict, a str or a list of str, got {type(item).__name__}")


def index_features(
    sequences: Sequence[Sequence],
    vocabulary: dict[str, int] | None = None,
    *,
    max_length: int | None = None,
    max_active: int | None = None,
):
    """Map sequences of token items to padded sparse feature indices.

    Parameters
    ----------
    sequences : list of sequences of items (dict / str / list of str)
    vocabulary : dict str -> int, optional
        A fixed vocabulary (prediction); ``None`` builds one from ``sequences`` (training).
    max_length : int, optional
        Pad ``T`` to this (>= the longest sequence); defaults to the longest sequence.
    max_active : int, optional
        Pad ``K`` to this (>= the most attributes of one token); defaults to that maximum.

    Returns
    -------
    indices : (n_seq, T, K) int32, ``-1`` padding
    lengths : (n_seq,) int32
    vocabulary : dict str -> int

    Example
    -------
    >>> idx, lengths, vocab = index_features([[{"pos": "NN", "bias": 1.0}, {"pos": "VB"}]])
    >>> idx[0].tolist(), lengths.tolist(), sorted(vocab)
    ([[0, 1], [2, -1]], [2], ['bias', 'pos:NN', 'pos:VB'])
    """
    grow = vocabulary is None
    vocabulary = {} if vocabulary is None else vocabulary
    coded = []
    for s, seq in enumerate(sequences):
        if isinstance(seq, (str, bytes)):
            raise TypeError(f"X[{s}] must be a sequence of token items, got a {type(seq).__name__}")
        rows = []
        for item in seq:
            ids = []
            for name in item_attributes(item):
                if name not in vocabulary:
                    if not grow:
                        continue
                    vocabulary[name] = len(vocabulary)
                ids.append(vocabulary[name])
            rows.append(ids)
        coded.append(rows)
    lengths = np.array([len(r) for r in coded], dtype=np.int32)
    T = int(lengths.max()) if len(coded) else 0
    T = T if max_length is None else max(T, max_length)
    K = max((len(ids) for rows in coded for ids in rows), default=0)
    K = max(K if max_active is None else max(K, max_active), 1)
    out = np.full((len(coded), T, K), -1, dtype=np.int32)
    for s, rows in enumerate(coded):
        for t, ids in enumerate(rows):
            out[s, t, : len(ids)] = ids
    return out, lengths, vocabulary


def chunking_features(pos_tags: Sequence[str]) -> list[dict]:
    """The token features of the CoNLL-2000 chunking comparison (data README).

    Per token: ``bias``, ``pos``, the previous and next POS (``BOS``/``EOS`` at the ends)
    and the previous|current POS pair, as sklearn-crfsuite style dicts.

    Example
    -------
    >>> chunking_features(["DT", "NN"])[1]
    {'bias': 1.0, 'pos': 'NN', 'prev': 'DT', 'prev|pos': 'DT|NN', 'EOS': True}
    """
    out = []
    for i, tag in enumerate(pos_tags):
        f = {"bias": 1.0, "pos": tag}
        if i > 0:
            f["prev"] = pos_tags[i - 1]
            f["prev|pos"] = pos_tags[i - 1] + "|" + tag
        else:
            f["BOS"] = True
        if i < len(pos_tags) - 1:
            f["next"] = pos_tags[i + 1]
        else:
            f["EOS"] = True
        out.append(f)
    return out
