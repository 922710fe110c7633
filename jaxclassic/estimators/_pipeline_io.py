r"""Saved pipelines without pickle: scikit-learn's ``Pipeline``, ``ColumnTransformer`` and
array-state preprocessors in a jaxclassic model file (:mod:`jaxclassic.io`).

A pipeline is written as a tree of nodes, one per step: our estimators as
:func:`~jaxclassic.estimators._base.save_estimator` writes them, and each scikit-learn object
as its class name, its constructor parameters (``get_params(deep=False)``) and its fitted
attributes. Only the classes of :data:`ALLOWED` are written, and of each only the attributes
its allow-list names (those the class sets in ``fit`` in the scikit-learn versions we know):

* ``Pipeline``, ``ColumnTransformer`` (column selectors as given: ints, names, slices, bool
  masks, lists of them; ``"drop"`` / ``"passthrough"``; the remainder), ``FunctionTransformer``
  without a function (the identity, what a ``"passthrough"`` column becomes once fitted);
* ``StandardScaler``, ``MinMaxScaler``, ``OneHotEncoder`` (its ``categories_`` of strings stored
  as strings), ``SimpleImputer`` (and its ``MissingIndicator``), ``PolynomialFeatures``,
  ``CountVectorizer`` (its ``vocabulary_`` as a string -> int map of two arrays).

Loading rebuilds each object as ``cls(**params)`` with its attributes set back, the class
looked up in the same table (never imported by a name read from the file), arrays bitwise:
the reloaded pipeline transforms and predicts exactly as the saved one. Anything else (a
``FunctionTransformer`` around a Python function, a callable tokenizer or column selector,
an estimator of another library, an attribute a newer scikit-learn added) is refused before a
byte is written, with an :class:`~jaxclassic.io.UnsupportedObjectError` (a ``ValueError`` and
a ``TypeError``) naming the step path, e.g. ``pipeline step 'prep' > 'num'
(FunctionTransformer) cannot be saved without pickle: ...``. The file records the
scikit-learn version it was written with; loading under another version warns
(scikit-learn's ``InconsistentVersionWarning``), as scikit-learn's own unpickling does.

References
----------
scikit-learn's model persistence guide (why pickle executes code on load, and the version
warning): https://scikit-learn.org/stable/model_persistence.html
"""

from __future__ import annotations

import warnings

__all__ = ["ALLOWED", "is_saveable_sklearn", "encode_sklearn", "decode_sklearn", "save_pipeline",
           "load_pipeline", "check_sklearn_version"]

#: attributes any allowed object may carry (set by ``fit`` or ``set_output``)
_COMMON = ("n_features_in_", "feature_names_in_", "_sklearn_output_config")

#: class name -> (module, fitted attributes written besides the constructor parameters)
ALLOWED: dict[str, tuple[str, tuple[str, ...]]] = {
    "Pipeline": ("sklearn.pipeline", ()),
    "ColumnTransformer": ("sklearn.compose", (
        "transformers_", "_columns", "_transformer_to_input_indices", "_remainder", "sparse_output_",
        "output_indices_", "_n_features", "_name_to_fitted_passthrough")),
    "FunctionTransformer": ("sklearn.preprocessing", ()),
    "StandardScaler": ("sklearn.preprocessing", ("mean_", "var_", "scale_", "n_samples_seen_")),
    "MinMaxScaler": ("sklearn.preprocessing", (
        "scale_", "min_", "data_min_", "data_max_", "data_range_", "n_samples_seen_")),
    "OneHotEncoder": ("sklearn.preprocessing", (
        "categories_", "drop_idx_", "_drop_idx_after_grouping", "_infrequent_enabled", "_n_features_outs",
        "_infrequent_indices", "_default_to_infrequent_mappings")),
    "PolynomialFeatures": ("sklearn.preprocessing", (
        "n_output_features_", "_min_degree", "_max_degree", "_n_out_full")),
    "SimpleImputer": ("sklearn.impute", ("statistics_", "indicator_", "_fit_dtype", "_fill_dtype")),
    "MissingIndicator": ("sklearn.impute", ("features_", "_n_features", "_precomputed")),
    "CountVectorizer": ("sklearn.feature_extraction.text", (
        "vocabulary_", "fixed_vocabulary_", "stop_words_", "_stop_words_id")),
}

_CLASSES: dict[str, type] = {}


def _classes() -> dict[str, type]:
    """The allowed classes by name, imported from their fixed modules (once)."""
    if not _CLASSES:
        import importlib

        for name, (module, _) in ALLOWED.items():
            _CLASSES[name] = getattr(importlib.import_module(module), name)
    return _CLASSES


def is_saveable_sklearn(obj) -> bool:
    """Whether ``obj`` is an instance of exactly one of the :data:`ALLOWED` classes."""
    return _classes().get(type(obj).__name__) is type(obj)


def _step_error(where: str, obj, reason: str):
    from jaxclassic.io import UnsupportedObjectError

    return UnsupportedObjectError(f"{where} ({type(obj).__name__}) cannot be saved without pickle: {reason}")


def _child(where: str, name) -> str:
    return f"{where} > {name!r}" if " step " in where else f"{where} step {name!r}"


def refuse(obj, where: str):
    """The error for a step that is neither ours nor allowed (``UnsupportedObjectError``)."""
    from jaxclassic.io import UnsupportedObjectError

    cls = type(obj)
    return UnsupportedObjectError(
        f"{where} ({cls.__name__}) cannot be saved without pickle: only the classes of "
        f"jaxclassic.estimators can be saved, got {cls.__module__}.{cls.__qualname__} (besides them, "
        f"model files hold scikit-learn's {', '.join(ALLOWED)}, whose state is arrays)")


def encode_sklearn(obj, encoder, where: str) -> dict:
    """The node of an allowed scikit-learn object (``encoder``: :class:`jaxclassic.io._Encoder`
    with the estimator layer's hook). Raises ``UnsupportedObjectError`` naming the step."""
    from jaxclassic.io import UnsupportedObjectError

    name = type(obj).__name__
    if name == "FunctionTransformer" and (obj.func is not None or obj.inverse_func is not None):
        func = obj.func if obj.func is not None else obj.inverse_func
        raise _step_error(
            where, obj, f"it holds the Python function {getattr(func, '__qualname__', func)!r}; a model "
            "file holds no code (only FunctionTransformer() without a function, the identity, is saved)")
    params = obj.get_params(deep=False)
    allowed = set(ALLOWED[name][1]) | set(_COMMON)
    state = {k: v for k, v in vars(obj).items() if k not in params}
    unknown = sorted(k for k in state if k not in allowed)
    if unknown:
        raise _step_error(
            where, obj, f"attribute(s) {unknown} are not on jaxclassic's list of {name}'s fitted "
            "state (a scikit-learn version newer than this jaxclassic knows?)")

    def encode(key, value, kind):
        if name in ("Pipeline", "ColumnTransformer") and key in ("steps", "transformers", "transformers_"):
            return {"t": "list", "v": [_encode_step(item, encoder, where) for item in value]}
        if name == "ColumnTransformer" and key == "remainder" and not isinstance(value, str):
            return encoder.encode(value, _child(where, "remainder"))
        if callable(value) and not isinstance(value, type):
            raise _step_error(
                where, obj, f"{kind} {key} is the Python callable {getattr(value, '__qualname__', value)!r}; "
                "a model file holds no code")
        try:
            return encoder.encode(value, f"{where}.{key}")
        except UnsupportedObjectError as exc:
            if " cannot be saved without pickle: " in str(exc):
                raise  # a nested step's error, already naming its path
            raise _step_error(where, obj, f"{kind} {key}: {exc}") from None

    memo = encoder.__dict__.setdefault("_memo", {})
    if id(obj) in memo:
        return {"t": "estref", "id": memo[id(obj)]}
    memo[id(obj)] = len(memo)
    return {"t": "sklearn", "id": memo[id(obj)], "class": name,
            "params": {k: encode(k, v, "parameter") for k, v in params.items()},
            "state": {k: encode(k, v, "attribute") for k, v in state.items()}}


def _encode_step(item, encoder, where: str) -> dict:
    """One ``(name, estimator)`` of a Pipeline or ``(name, transformer, columns)`` of a
    ColumnTransformer, the estimator's errors naming ``where > name``."""
    from jaxclassic.io import UnsupportedObjectError

    if not isinstance(item, tuple) or not item or not isinstance(item[0], str):
        raise UnsupportedObjectError(f"{where}: a step must be a (name, estimator, ...) tuple, got {item!r:.60}")
    step, rest = item[0], item[1:]
    nodes = [encoder.encode(step, where), encoder.encode(rest[0], _child(where, step))]
    for columns in rest[1:]:
        if callable(columns):
            raise UnsupportedObjectError(
                f"{_child(where, step)} cannot be saved without pickle: its column selector is the "
                f"callable {columns!r:.60}; give the columns as names, ints, a slice or a bool mask")
        nodes.append(encoder.encode(columns, f"{_child(where, step)} columns"))
    return {"t": "tuple", "v": nodes}


def decode_sklearn(node, decoder):
    """The object of a ``"sklearn"`` node, its class from :data:`ALLOWED` only."""
    cls = _classes().get(node.get("class"))
    if cls is None:
        raise ValueError(f"{decoder.path}: unknown scikit-learn class {node.get('class')!r}: not one "
                         f"jaxclassic saves ({', '.join(ALLOWED)})")
    params = {k: decoder.decode(v) for k, v in node["params"].items()}
    try:
        obj = cls(**params)
    except TypeError as exc:
        raise ValueError(f"{decoder.path}: the saved parameters of {cls.__name__} do not match this "
                         f"scikit-learn's ({exc})") from None
    decoder.__dict__.setdefault("_memo", {})[node["id"]] = obj
    for key, value in node["state"].items():
        obj.__dict__[key] = decoder.decode(value)
    return obj


def _root_where(obj) -> str:
    return {"Pipeline": "pipeline", "ColumnTransformer": "column transformer"}.get(
        type(obj).__name__, type(obj).__name__)


def save_pipeline(path, pipeline, **metadata):
    """Write a ``Pipeline`` / ``ColumnTransformer`` / allowed preprocessor (fitted or not) to
    ``path``: what :func:`jaxclassic.io.save` does for them. Every step is encoded before
    anything is written, so a step that cannot be saved leaves no file."""
    import sklearn

    from jaxclassic import io
    from jaxclassic.estimators._base import _encode_estimator

    if not is_saveable_sklearn(pipeline):
        raise refuse(pipeline, _root_where(pipeline))
    encoder = io._Encoder(hook=_encode_estimator)
    tree = encoder.encode(pipeline, _root_where(pipeline))
    auto = {"sklearn_version": sklearn.__version__}
    names = getattr(pipeline, "feature_names_in_", None) if _fitted(pipeline) else None
    if names is not None:
        auto["feature_names"] = [str(v) for v in names]
    classes = getattr(pipeline, "classes_", None) if _fitted(pipeline) else None
    if classes is not None:
        auto["classes"] = list(classes.tolist())
    meta = io._json_metadata({**auto, **metadata})
    return io._write(path, "pipeline", type(pipeline).__name__, tree, encoder.arrays, meta,
                     format_version=encoder.format_version)


def _fitted(obj) -> bool:
    from sklearn.utils.validation import check_is_fitted

    try:
        check_is_fitted(obj)
    except Exception:  # noqa: BLE001 - NotFittedError, or a pipeline of unfittable steps
        return False
    return True


def check_sklearn_version(saved, what: str) -> None:
    """Warn (scikit-learn's ``InconsistentVersionWarning``) when ``saved`` is not this
    scikit-learn's version."""
    import sklearn

    if saved is not None and saved != sklearn.__version__:
        from sklearn.exceptions import InconsistentVersionWarning

        warnings.warn(InconsistentVersionWarning(estimator_name=what, current_sklearn_version=sklearn.__version__,
                                                 original_sklearn_version=saved), stacklevel=3)


def load_pipeline(path, header, arrays):
    """The pipeline of a ``"pipeline"`` file already read by :func:`jaxclassic.io._read`."""
    from jaxclassic import io
    from jaxclassic.estimators._base import _decode_estimator

    check_sklearn_version((header.get("metadata") or {}).get("sklearn_version"), header["kind"])
    return io._Decoder(arrays, path, hook=_decode_estimator).decode(header["tree"])
