r"""Safe model files: params pytrees saved as one ``.npz`` of arrays plus a JSON header.

A file written by :func:`save` is a numpy ``.npz`` archive (a zip of ``.npy`` arrays). Every
array leaf of the params pytree is one entry ``a0, a1, ...``, written by :func:`numpy.savez`
with its dtype and shape, so the round trip is bitwise exact. One more entry,
``__jaxclassic__``, holds the header: UTF-8 JSON as a ``uint8`` array, with

* ``format`` (``"jaxclassic-model"``) and ``format_version`` (:data:`FORMAT_VERSION`),
* ``package_version`` (the writer's ``jaxclassic.__version__``),
* ``kind``: the qualified name of the params type (``"jaxclassic.linear.logistic.LogisticParams"``),
* ``tree``: the structure of the params, each node a small JSON object (a NamedTuple's fields,
  tuples, lists, ``None``, Python ``int`` / ``bool`` / ``float`` / ``str`` static fields, and
  references ``{"t": "array", "k": "a3"}`` to the arrays),
* ``metadata``: the caller's keyword arguments of :func:`save` (hyperparameters, feature
  names, classes, anything JSON can hold).

Loading executes no code from the file: arrays are read with ``allow_pickle=False``, the
header is parsed by :func:`json.loads`, and every type named in it is looked up in an explicit
table of the package's own params types (:func:`params_types`: every ``NamedTuple`` and
dataclass defined at module level in ``jaxclassic``'s functional core, found by walking its
subpackages once), never imported by name from the file. A name not in the table is an error.

Python floats are stored as their exact hexadecimal form (:meth:`float.hex`), so ``nan``,
``inf`` and the last bit survive. Typed PRNG key arrays are stored as their key data and
rewrapped with their implementation. Arrays that were ``jax.Array`` leaves come back as
``jax.Array`` (numpy leaves as numpy), except 64-bit arrays while ``jax_enable_x64`` is off:
they stay numpy arrays, so their bits are kept (a jax array would be cast to 32 bits).

Not saved: params types created at run time (a Gaussian process with a user kernel function,
an SVM with a callable kernel): :func:`save` raises ``TypeError`` naming the type or field.

Saved pipelines (format version 2): :func:`save` also writes a scikit-learn ``Pipeline`` or
``ColumnTransformer`` whose steps are jaxclassic estimators and scikit-learn's array-state
preprocessors (``StandardScaler``, ``MinMaxScaler``, ``OneHotEncoder``, ``SimpleImputer``,
``PolynomialFeatures``, ``CountVectorizer``), each step as its constructor parameters and an
allow-listed set of fitted attributes (:mod:`jaxclassic.estimators._pipeline_io`), still
without pickle; :func:`load` rebuilds it, warning when the file was written under another
scikit-learn version. A step that cannot be saved is a ``ValueError`` naming its path
(``pipeline step 'prep' > 'num' (FunctionTransformer) ...``), raised before any file is
written. Version 2 adds the nodes such files need (scikit-learn steps, slices, string ->
integer maps, object arrays of strings, ints and missing values); a file is written with the
oldest version that holds it, so params files stay version 1.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import pkgutil
import secrets
import zipfile
from pathlib import Path
from typing import Any, Callable

import numpy as np

__all__ = ["save", "load", "read_metadata", "params_types", "export_xgboost", "FORMAT", "FORMAT_VERSION"]

#: the ``format`` entry of every file's header
FORMAT = "jaxclassic-model"
#: the newest layout this module writes; it reads files of this version and older. A file is
#: written with the oldest version that can hold it: 1 for params and estimators (arrays,
#: params types, Python values), 2 where it needs a node added in 2 (scikit-learn steps of a
#: saved pipeline, slices, string -> integer maps), so older readers still read the rest
FORMAT_VERSION = 2
#: node types added in format version 2
_VERSION_2_NODES = ("sklearn", "slice", "strmap", "objcells")

#: the cells an object array may hold besides all-str: code -> kind (``objcells`` nodes)
_CELL_STR, _CELL_NONE, _CELL_NAN, _CELL_INT = 0, 1, 2, 3


def _cell_kind(v) -> int:
    if type(v) is str:
        return _CELL_STR
    if v is None:
        return _CELL_NONE
    if type(v) is float and v != v:
        return _CELL_NAN
    if type(v) is int and -2**63 <= v < 2**63:
        return _CELL_INT
    return -1
#: the archive entry holding the JSON header
HEADER_KEY = "__jaxclassic__"

#: subpackages and modules that hold no params types (or must not be imported by the core)
_NOT_WALKED = ("jaxclassic.estimators", "jaxclassic.tour", "jaxclassic.cli", "jaxclassic.io",
               "jaxclassic.plot", "jaxclassic._cache")

_TYPES: dict[str, type] = {}
_WALKED = {"done": False}


class UnsupportedObjectError(TypeError, ValueError):
    """An object that cannot be written to a model file (a ``TypeError`` and a ``ValueError``)."""


def _qualified_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _upgrade(cls, fields: dict, expected) -> dict:
    """A file written before a params type was renamed or grew a field (issue 27), as that type.

    A type lists its renamed fields in ``_renamed_fields`` (old name -> new name); a field
    missing from the file takes the type's default (``_field_defaults`` of a NamedTuple, a
    dataclass field's default) or, where the type defines it, ``_upgrade_fields(fields)``.
    A file whose fields still differ is refused by the caller, naming both lists.
    """
    for old, new in getattr(cls, "_renamed_fields", {}).items():
        if old in fields and new not in fields:
            fields[new] = fields.pop(old)
    missing = [name for name in expected if name not in fields]
    if missing:
        upgrade = getattr(cls, "_upgrade_fields", None)
        if upgrade is not None:
            fields = upgrade(dict(fields))
        defaults = getattr(cls, "_field_defaults", None)
        if defaults is None and dataclasses.is_dataclass(cls):
            defaults = {f.name: f.default for f in dataclasses.fields(cls)
                        if f.default is not dataclasses.MISSING}
        for name in missing:
            if name not in fields and defaults and name in defaults:
                fields[name] = defaults[name]
    return fields


def _is_namedtuple_type(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")


def register_type(cls: type) -> type:
    """Add a module-level NamedTuple or dataclass type to the table :func:`load` resolves
    names against (the estimator layer registers its own types this way)."""
    if not (_is_namedtuple_type(cls) or dataclasses.is_dataclass(cls)):
        raise TypeError(f"cls must be a NamedTuple or dataclass type, got {cls!r}")
    if "<locals>" in cls.__qualname__:
        raise TypeError(f"cls must be defined at module level, got {cls.__qualname__}")
    _TYPES[_qualified_name(cls)] = cls
    return cls


def register_module_types(module) -> None:
    """Register every NamedTuple / dataclass type defined at module level in ``module``."""
    for value in vars(module).values():
        if (isinstance(value, type) and value.__module__ == module.__name__
                and (_is_namedtuple_type(value) or dataclasses.is_dataclass(value))
                and "<locals>" not in value.__qualname__):
            _TYPES[_qualified_name(value)] = value


def params_types() -> dict[str, type]:
    """The table of types a model file may name: qualified name -> type (a copy).

    Every NamedTuple and dataclass defined at module level in the functional core (the
    subpackages of ``jaxclassic`` but the estimator layer, the tour, the command line and
    this module), collected by walking the package on first use.
    """
    if not _WALKED["done"]:
        import jaxclassic

        for info in pkgutil.walk_packages(jaxclassic.__path__, "jaxclassic."):
            if info.name.startswith(_NOT_WALKED):
                continue
            try:
                module = importlib.import_module(info.name)
            except ImportError:  # pragma: no cover - a module of an optional extra
                continue
            register_module_types(module)
        _WALKED["done"] = True
    return dict(_TYPES)


# --------------------------------------------------------------------------- encoding
class _Encoder:
    """Params pytree -> (JSON node, arrays). ``hook(obj, encoder)`` may encode other objects
    (the estimator layer's estimators); it returns None for objects it does not know."""

    def __init__(self, hook: Callable | None = None):
        self.arrays: dict[str, np.ndarray] = {}
        self.hook = hook
        self.types = params_types()
        self.format_version = 1

    def needs(self, node: dict) -> dict:
        """``node``, noting the format version its type needs."""
        if node.get("t") in _VERSION_2_NODES:
            self.format_version = max(self.format_version, 2)
        return node

    def _array(self, a: np.ndarray) -> str:
        key = f"a{len(self.arrays)}"
        self.arrays[key] = a
        return key

    def encode(self, obj: Any, where: str) -> dict:
        import jax

        if obj is None:
            return {"t": "none"}
        if isinstance(obj, bool):
            return {"t": "bool", "v": obj}
        if isinstance(obj, int) and type(obj) is int:
            return {"t": "int", "v": obj}
        if type(obj) is float:
            return {"t": "float", "v": obj.hex()}
        if type(obj) is str:
            return {"t": "str", "v": obj}
        if isinstance(obj, jax.Array):
            if jax.dtypes.issubdtype(obj.dtype, jax.dtypes.prng_key):
                impl = str(jax.random.key_impl(obj))
                return {"t": "key", "k": self._array(np.asarray(jax.random.key_data(obj))),
                        "impl": impl}
            return {"t": "array", "k": self._array(np.asarray(obj)), "jax": True}
        if isinstance(obj, np.ndarray):
            if obj.dtype == object:
                kinds = np.array([_cell_kind(v) for v in obj.ravel()], dtype=np.int8).reshape(obj.shape)
                if kinds.size and kinds.min() >= 0 and kinds.any():
                    # str, Python int, None and NaN cells (OneHotEncoder's categories_ of a column
                    # with gaps, its drop_idx_): the strings, the ints, and a kind code per cell
                    text = np.where(kinds == _CELL_STR, obj, "").astype(str)
                    ints = np.where(kinds == _CELL_INT, obj, 0).astype(np.int64)
                    return self.needs({"t": "objcells", "k": self._array(text), "ints": self._array(ints),
                                       "kinds": self._array(kinds)})
                if not all(type(v) is str for v in obj.ravel()):
                    raise UnsupportedObjectError(
                        f"{where}: an object array can be saved only when it holds str, got "
                        f"{sorted({type(v).__name__ for v in obj.ravel()})}")
                return {"t": "objarray", "k": self._array(obj.astype(str))}
            if obj.dtype.hasobject or obj.dtype.kind == "V":
                raise UnsupportedObjectError(f"{where}: arrays of dtype {obj.dtype} cannot be saved")
            return {"t": "array", "k": self._array(obj), "jax": False}
        if isinstance(obj, np.generic):
            return {"t": "npscalar", "k": self._array(np.asarray(obj))}
        if isinstance(obj, np.dtype):
            return {"t": "npdtype", "v": obj.str}
        if isinstance(obj, type) and issubclass(obj, np.generic):
            return {"t": "nptype", "v": np.dtype(obj).str}
        cls = type(obj)
        if _is_namedtuple_type(cls) or (dataclasses.is_dataclass(cls) and not isinstance(obj, type)):
            name = _qualified_name(cls)
            if self.types.get(name) is not cls:
                raise UnsupportedObjectError(
                    f"{where}: type {cls.__qualname__} (module {cls.__module__}) is not a jaxclassic "
                    "params type (types made at run time, e.g. around a user kernel function, "
                    "cannot be saved)")
            if _is_namedtuple_type(cls):
                fields = {f: self.encode(getattr(obj, f), f"{where}.{f}") for f in cls._fields}
                return {"t": "nt", "kind": name, "v": fields}
            fields = {f.name: self.encode(getattr(obj, f.name), f"{where}.{f.name}")
                      for f in dataclasses.fields(obj)}
            return {"t": "dc", "kind": name, "v": fields}
        if cls is tuple or cls is list:
            return {"t": cls.__name__, "v": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(obj)]}
        if cls is slice:
            return self.needs({"t": "slice", "v": [self.encode(getattr(obj, f), f"{where}.{f}")
                                                   for f in ("start", "stop", "step")]})
        if (cls is dict and len(obj) > 1 and all(type(k) is str for k in obj)
                and len({type(v) for v in obj.values()}) == 1
                and isinstance(next(iter(obj.values())), np.integer)):
            # a vocabulary (CountVectorizer's vocabulary_): two arrays, not one entry per word
            return self.needs({"t": "strmap", "k": self._array(np.array(list(obj), dtype=str)),
                               "values": self._array(np.array(list(obj.values())))})
        if cls is dict:
            return {"t": "dict", "v": [[self.encode(k, f"{where} key"), self.encode(v, f"{where}[{k!r}]")]
                                       for k, v in obj.items()]}
        if self.hook is not None:
            node = self.hook(obj, self, where)
            if node is not None:
                return self.needs(node)
        raise UnsupportedObjectError(
            f"{where}: cannot save an object of type {cls.__module__}.{cls.__qualname__} "
            f"({obj!r:.60}); model files hold arrays, jaxclassic params types, tuples, lists, dicts, "
            "None, bool, int, float and str")


class _Decoder:
    """JSON node + arrays -> objects; ``hook(node, decoder)`` decodes the node types it added."""

    def __init__(self, arrays, path, hook: Callable | None = None):
        self.arrays = arrays
        self.path = path
        self.hook = hook
        self.types = params_types()

    def _array(self, node) -> np.ndarray:
        key = node.get("k")
        if not isinstance(key, str) or key not in self.arrays:
            raise ValueError(f"{self.path}: corrupt model file: array entry {key!r} is missing")
        return self.arrays[key]

    def decode(self, node) -> Any:
        import jax

        if not isinstance(node, dict) or "t" not in node:
            raise ValueError(f"{self.path}: corrupt model file: malformed node {node!r:.80}")
        t = node["t"]
        if t == "none":
            return None
        if t in ("bool", "int", "str"):
            return node["v"]
        if t == "float":
            return float.fromhex(node["v"])
        if t == "array":
            a = self._array(node)
            if node.get("jax") and (a.dtype.itemsize < 8 or jax.config.read("jax_enable_x64")):
                return jax.device_put(a)
            return a
        if t == "objarray":
            return self._array(node).astype(object)
        if t == "objcells":
            text, ints = self._array(node), self._array({"k": node.get("ints")})
            kinds = self._array({"k": node.get("kinds")})
            if not text.shape == ints.shape == kinds.shape:
                raise ValueError(f"{self.path}: corrupt model file: object cells of shapes {text.shape}, "
                                 f"{ints.shape}, {kinds.shape}")
            out = text.astype(object)
            out[kinds == _CELL_NONE] = None
            out[kinds == _CELL_NAN] = float("nan")
            for index in zip(*np.nonzero(kinds == _CELL_INT)):
                out[index] = int(ints[index])
            return out
        if t == "npscalar":
            return self._array(node)[()]
        if t == "key":
            return jax.random.wrap_key_data(jax.device_put(self._array(node)), impl=node["impl"])
        if t == "npdtype":
            return np.dtype(node["v"])
        if t == "nptype":
            return np.dtype(node["v"]).type
        if t in ("nt", "dc"):
            kind = node.get("kind")
            cls = self.types.get(kind)
            if cls is None:
                raise ValueError(f"{self.path}: unknown model kind {kind!r}: not a params type of "
                                 "this jaxclassic (written by another version?)")
            fields = {k: self.decode(v) for k, v in node["v"].items()}
            expected = (cls._fields if t == "nt" else tuple(f.name for f in dataclasses.fields(cls)))
            fields = _upgrade(cls, fields, expected)
            if set(fields) != set(expected):
                raise ValueError(f"{self.path}: {kind} has fields {sorted(expected)} in this "
                                 f"jaxclassic, the file has {sorted(fields)}")
            return cls(**fields)
        if t == "tuple":
            return tuple(self.decode(v) for v in node["v"])
        if t == "list":
            return [self.decode(v) for v in node["v"]]
        if t == "dict":
            return {self.decode(k): self.decode(v) for k, v in node["v"]}
        if t == "slice":
            start, stop, step = (self.decode(v) for v in node["v"])
            return slice(start, stop, step)
        if t == "strmap":
            keys, values = self._array(node), self._array({"k": node.get("values")})
            if keys.shape != values.shape or keys.ndim != 1:
                raise ValueError(f"{self.path}: corrupt model file: a map of {keys.shape} keys and "
                                 f"{values.shape} values")
            return dict(zip(keys.tolist(), values))
        if self.hook is not None:
            return self.hook(node, self)
        raise ValueError(f"{self.path}: corrupt model file: unknown node type {t!r}")


def _json_metadata(metadata: dict) -> dict:
    """User metadata as JSON values (numpy arrays become lists, numpy scalars numbers)."""

    def default(value):
        if isinstance(value, np.ndarray):
            return value.tolist()
        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, (tuple, set, frozenset)):
            return list(value)
        raise TypeError(type(value).__name__)

    out = {}
    for key, value in metadata.items():
        try:
            out[key] = json.loads(json.dumps(value, default=default, allow_nan=True))
        except (TypeError, ValueError) as exc:
            raise TypeError(f"metadata {key}={value!r:.60} is not JSON-serialisable ({exc})") from None
    return out


# --------------------------------------------------------------------------- files
def _write(path, content: str, kind: str, tree: dict, arrays: dict, metadata: dict, *,
           format_version: int = 1) -> Path:
    from jaxclassic import __version__

    header = {"format": FORMAT, "format_version": format_version, "package_version": __version__,
              "content": content, "kind": kind, "tree": tree, "metadata": metadata}
    blob = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    path = Path(path)
    if not (path.parent if str(path.parent) else Path(".")).is_dir():
        raise FileNotFoundError(f"cannot save to {path}: no folder {path.parent}")
    # written beside the target and renamed: a failed save never leaves half a file
    fd, tmp = _create_beside(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **{HEADER_KEY: blob}, **arrays)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def _create_beside(path: Path) -> tuple[int, str]:
    """A new, uniquely named temporary file in ``path``'s folder, opened for writing.

    Created with mode ``0o666`` less the process's umask, as :func:`open` creates a file, so
    the renamed model file has the permissions any file written there would have
    (``tempfile.mkstemp`` creates ``0o600``: a model file only its owner could read).
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), str(tmp)
        except FileExistsError:  # pragma: no cover - 48 random bits
            continue
    raise FileExistsError(f"cannot create a temporary file beside {path}")  # pragma: no cover


#: the first bytes of every zip archive (a local file header), so of every ``.npz``
_ZIP_MAGIC = b"PK\x03\x04"


def _check_declared_sizes(archive: zipfile.ZipFile, path) -> None:
    """``ValueError`` if an entry is compressed (a stored entry's size is bounded by the file's)
    or its ``.npy`` header declares more bytes than the entry holds (an edited or corrupt file
    claiming a huge shape), checked before numpy allocates."""
    for info in archive.infolist():
        if info.compress_type != zipfile.ZIP_STORED:  # save writes stored entries; no zip bombs
            raise ValueError(f"{path}: corrupt jaxclassic model file: entry {info.filename} is compressed "
                             "(model files store their arrays uncompressed)")
        with archive.open(info) as fh:
            version = np.lib.format.read_magic(fh)
            read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                           else np.lib.format.read_array_header_2_0)
            shape, _, dtype = read_header(fh)
        declared = int(np.prod(shape, dtype=object)) * dtype.itemsize
        if declared > info.file_size:
            raise ValueError(f"{path}: corrupt jaxclassic model file: entry {info.filename} declares shape "
                             f"{shape} of {dtype} ({declared} bytes) but holds {info.file_size} bytes")


def _read(path, *, arrays: bool = True) -> tuple[dict, dict]:
    """The header and (if ``arrays``) the arrays of a model file, or a ``ValueError`` naming
    what is wrong with it."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no model file at {path}")
    try:
        # np.load reads a file that is neither a zip nor a .npy as a pickle and refuses it with
        # advice to load it "unsafely": not a zip archive, not a model file, say so first
        with open(path, "rb") as fh:
            start = fh.read(16)
        if not start.startswith(_ZIP_MAGIC):
            raise ValueError(f"{path} is not a jaxclassic model file (model files are the zip "
                             f"archives jaxclassic.io.save writes; this file starts with {start!r})")
        with np.load(path, allow_pickle=False) as archive:
            if HEADER_KEY not in archive.files:
                raise ValueError(f"{path} is not a jaxclassic model file (no {HEADER_KEY} entry)")
            _check_declared_sizes(archive.zip, path)
            header = json.loads(archive[HEADER_KEY].tobytes().decode("utf-8"))
            loaded = {k: archive[k] for k in archive.files if k != HEADER_KEY} if arrays else {}
    except ValueError as exc:
        if "jaxclassic model file" in str(exc):
            raise
        raise ValueError(f"{path} is not a readable jaxclassic model file (corrupt or truncated: "
                         f"{exc})") from None
    except (zipfile.BadZipFile, EOFError, OSError, KeyError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not a readable jaxclassic model file (corrupt or truncated: "
                         f"{type(exc).__name__}: {exc})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ValueError(f"{path} is not a jaxclassic model file (its header's format is "
                         f"{header.get('format') if isinstance(header, dict) else header!r:.40})")
    version = header.get("format_version")
    if not isinstance(version, int) or version < 1:
        raise ValueError(f"{path}: corrupt model file: format_version {version!r}")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{path} has model-file format version {version} (written by jaxclassic "
            f"{header.get('package_version')}); this jaxclassic reads format versions up to "
            f"{FORMAT_VERSION}: upgrade jaxclassic to load it")
    for key in ("content", "kind", "tree"):
        if key not in header:
            raise ValueError(f"{path}: corrupt model file: the header has no {key!r}")
    return header, loaded


def save(path, params, **metadata) -> Path:
    r"""Save a params pytree to a safe model file (``.npz`` arrays + JSON header; no pickle).

    The file holds every array leaf bit for bit with its dtype, the structure of the pytree
    (nested NamedTuples, tuples, ``None``, static Python fields) and the metadata, so
    ``load(path)`` rebuilds a pytree equal to ``params`` leaf by leaf, bitwise.

    Parameters
    ----------
    path : str or path-like
        Where to write (any suffix; ``.jc`` is the command line's). Written to a temporary
        file in the same folder and renamed, so a failed save leaves no partial file.
    params : a jaxclassic params NamedTuple, or a scikit-learn Pipeline / ColumnTransformer
        What a ``fit_<model>`` returns (``LogisticParams``, ``ClassificationForest``,
        ``BayesNet``...): any type of :func:`params_types`. Or a ``Pipeline``,
        ``ColumnTransformer`` or one of the preprocessors the module docstring lists (fitted or
        not), its steps jaxclassic estimators or those preprocessors: the header's metadata then
        also holds ``sklearn_version``, and ``feature_names`` / ``classes`` when it has them.
    **metadata
        JSON-serialisable values stored in the header and returned by :func:`read_metadata`,
        e.g. ``hyperparameters={"l2": 1.0}``, ``feature_names=[...]``, ``classes=[...]``
        (numpy arrays and scalars are converted to lists and numbers).

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    UnsupportedObjectError
        (a ``TypeError`` and a ``ValueError``) if ``params`` is not a jaxclassic params type,
        or holds something a model file cannot hold (a callable, a type made at run time); for
        a pipeline, naming the step that cannot be saved. Nothing is written then.
    TypeError
        If a metadata value is not JSON-serialisable.

    Examples
    --------
    >>> import tempfile, os, numpy as np
    >>> from jaxclassic import io, linear
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([1.0, 3.0, 5.0, 7.0])
    >>> params = linear.fit_ols(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "ols.jc")
    >>> _ = io.save(path, params, feature_names=["x"])
    >>> loaded = io.load(path)
    >>> bool((np.asarray(loaded.coef) == np.asarray(params.coef)).all())
    True
    >>> io.read_metadata(path)["feature_names"]
    ['x']

    A pipeline of scikit-learn's preprocessing and our estimators:

    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from jaxclassic.estimators import Ridge
    >>> pipe = make_pipeline(StandardScaler(), Ridge(alpha=0.1)).fit(X, y)
    >>> _ = io.save(path, pipe)
    >>> bool((io.load(path).predict(X) == pipe.predict(X)).all())
    True

    References
    ----------
    numpy's ``.npy`` / ``.npz`` format, NEP 1 (https://numpy.org/neps/nep-0001-npy-format.html).
    """
    if _is_sklearn_layer(params):  # a Pipeline, ColumnTransformer or preprocessor of scikit-learn
        from jaxclassic.estimators._pipeline_io import save_pipeline

        return save_pipeline(path, params, **metadata)
    cls = type(params)
    types = params_types()
    if types.get(_qualified_name(cls)) is not cls or not (_is_namedtuple_type(cls) or dataclasses.is_dataclass(cls)):
        raise UnsupportedObjectError(
            f"params must be a jaxclassic params NamedTuple (what a fit_<model> returns), got "
            f"{cls.__module__}.{cls.__qualname__} (params types made at run time, e.g. around a user "
            "kernel function, cannot be saved)")
    meta = _json_metadata(metadata)
    encoder = _Encoder()
    tree = encoder.encode(params, "params")
    return _write(path, "params", _qualified_name(cls), tree, encoder.arrays, meta,
                  format_version=encoder.format_version)


def load(path, *, with_metadata: bool = False):
    """Load a params pytree written by :func:`save` (no code from the file is executed).

    Parameters
    ----------
    path : str or path-like
    with_metadata : bool, default False
        Also return the metadata (:func:`read_metadata`).

    Returns
    -------
    params : the saved params NamedTuple, or the saved pipeline
        Leaves bitwise equal to the saved ones, of the same dtypes; ``jax.Array`` leaves come
        back as ``jax.Array`` (64-bit ones as numpy while ``jax_enable_x64`` is off). A saved
        pipeline comes back rebuilt step by step, transforming and predicting as the saved one;
        saved under another scikit-learn version it loads with scikit-learn's
        ``InconsistentVersionWarning``.
    metadata : dict, if ``with_metadata``

    Raises
    ------
    FileNotFoundError
        If there is no file at ``path``.
    ValueError
        If the file is not a jaxclassic model file or is corrupt or truncated, names a kind
        this jaxclassic does not know, has a newer format version, or holds a saved estimator
        (load those with the estimator class's ``load``).

    Examples
    --------
    See :func:`save`.
    """
    header, arrays = _read(path)
    if header["content"] == "pipeline":
        from jaxclassic.estimators._pipeline_io import load_pipeline

        pipeline = load_pipeline(path, header, arrays)
        return (pipeline, _metadata(header)) if with_metadata else pipeline
    if header["content"] != "params":
        raise ValueError(f"{path} holds a saved {header['content']} ({header['kind']}), not params: "
                         f"load it with jaxclassic.estimators.{header['kind']}.load")
    kind = header["kind"]
    if kind not in params_types():
        raise ValueError(f"{path}: unknown model kind {kind!r}: not a params type of this jaxclassic "
                         "(written by another version?)")
    params = _Decoder(arrays, path).decode(header["tree"])
    return (params, _metadata(header)) if with_metadata else params


def _is_sklearn_layer(obj) -> bool:
    """A scikit-learn ``Pipeline`` / ``ColumnTransformer`` / preprocessor (not one of our
    estimators: those save themselves), recognised without importing scikit-learn."""
    if _is_namedtuple_type(type(obj)) or not callable(getattr(obj, "get_params", None)):
        return False
    return type(obj).__module__.split(".")[0] == "sklearn"


def _metadata(header: dict) -> dict:
    meta = dict(header.get("metadata") or {})
    meta.update(kind=header["kind"], content=header["content"], format_version=header["format_version"],
                package_version=header.get("package_version"))
    return meta


def read_metadata(path) -> dict:
    """The metadata of a model file without loading its arrays.

    Returns the keyword arguments given to :func:`save` plus ``kind`` (the params type's or
    estimator class's name), ``content`` (``"params"`` or ``"estimator"``), ``format_version``
    and ``package_version``. Raises as :func:`load`.
    """
    header, _ = _read(path, arrays=False)
    return _metadata(header)


# --------------------------------------------------------------------------- XGBoost's JSON
def _xgboost_tree(tree, k: int, tree_id: int, gain) -> dict:
    """One of our array trees as an XGBoost JSON tree (nodes renumbered breadth-first).

    Ours sends ``x <= t`` left, XGBoost ``float32(x) < c``: the two agree on every float32
    ``x`` with ``c`` the float32 just above the largest float32 ``<= t`` (:func:`_split_condition`).
    For the XGBoost family ``t`` is the largest value of the fit's dtype below xgboost's cut
    (:func:`jaxclassic.ensemble._xgb_cuts.left_bounds`), so ``c`` is that cut exactly, and the
    two agree on every ``x`` of the fit's dtype."""
    left_all = np.asarray(tree.children_left)
    right_all = np.asarray(tree.children_right)
    order, new_id = [0], {0: 0}
    i = 0
    while i < len(order):
        node = order[i]
        if left_all[node] >= 0:
            for child in (left_all[node], right_all[node]):
                new_id[int(child)] = len(order)
                order.append(int(child))
        i += 1
    value = np.asarray(tree.value, np.float32)[:, 0]
    threshold = _split_condition(np.asarray(tree.threshold))
    feature = np.asarray(tree.feature)
    cover = np.asarray(tree.weighted_n_node_samples, np.float32)
    gains = np.asarray(gain, np.float32)
    out = {k2: [] for k2 in ("left_children", "right_children", "parents", "split_indices",
                             "split_conditions", "default_left", "base_weights", "loss_changes",
                             "sum_hessian", "split_type")}
    parents = {0: 2147483647}
    for node in order:
        internal = left_all[node] >= 0
        if internal:
            parents[int(left_all[node])] = parents[int(right_all[node])] = new_id[node]
        out["left_children"].append(new_id[int(left_all[node])] if internal else -1)
        out["right_children"].append(new_id[int(right_all[node])] if internal else -1)
        out["parents"].append(parents[node])
        out["split_indices"].append(int(feature[node]) if internal else 0)
        condition = threshold[node] if internal else value[node]
        out["split_conditions"].append(float(condition))
        out["default_left"].append(int(bool(np.asarray(tree.missing_left)[node])) if internal else 0)
        out["base_weights"].append(float(value[node]))
        out["loss_changes"].append(float(gains[node]) if internal else 0.0)
        out["sum_hessian"].append(float(cover[node]))
        out["split_type"].append(0)
    n_features = int(np.asarray(tree.bin_edges).shape[0]) if np.asarray(tree.bin_edges).ndim == 2 else 0
    out.update(id=tree_id, categories=[], categories_nodes=[], categories_segments=[], categories_sizes=[],
               tree_param={"num_deleted": "0", "num_feature": str(n_features), "num_nodes": str(len(order)),
                           "size_leaf_vector": "1"})
    return out


def _split_condition(threshold: np.ndarray) -> np.ndarray:
    """XGBoost's float32 ``c`` with ``float32(x) < c`` iff ``x <= threshold`` for every float32
    ``x``: the float32 just above the largest float32 ``<= threshold`` (NaN stays NaN).

    Rounding a float64 ``threshold`` to nearest could land above it; rounding down cannot."""
    t32 = threshold.astype(np.float32)
    with np.errstate(invalid="ignore"):
        down = np.where(t32.astype(threshold.dtype) > threshold, np.nextafter(t32, np.float32(-np.inf)), t32)
    return np.nextafter(down, np.float32(np.inf))


def _leaf_tree(value: float, tree_id: int, n_features: int) -> dict:
    return {"left_children": [-1], "right_children": [-1], "parents": [2147483647], "split_indices": [0],
            "split_conditions": [float(np.float32(value))], "default_left": [0],
            "base_weights": [float(np.float32(value))], "loss_changes": [0.0], "sum_hessian": [0.0],
            "split_type": [0], "id": tree_id, "categories": [], "categories_nodes": [],
            "categories_segments": [], "categories_sizes": [],
            "tree_param": {"num_deleted": "0", "num_feature": str(n_features), "num_nodes": "1",
                           "size_leaf_vector": "1"}}


def export_xgboost(params, path=None, *, objective: str | None = None) -> dict:
    r"""Our XGBoost-style boosted trees in XGBoost's JSON model format (``Booster.load_model``).

    Every used round becomes one XGBoost tree per output (``K`` per round for softmax), its
    nodes renumbered breadth-first, leaves holding the shrunk leaf weights; splits
    ``x <= t`` become XGBoost's ``x < c`` with :math:`c` the float32 just above the largest
    float32 :math:`\le t` (for a fit of :func:`~jaxclassic.ensemble.fit_xgboost`, whose
    thresholds sit just below xgboost's own cut points, :math:`c` is the cut point itself), the
    default (missing-value) direction is ``missing_left``. Our margin is
    :math:`(\sum_t f_t(x)) + b` (the trees summed first, the base score last) while XGBoost
    starts from its base score: so the file has base score 0 (margin 0; 0.5 for the logistic
    objective) and one last round of one-leaf trees holding :math:`b_k`, which reproduces our
    order of float32 additions. For a float32 fit, ``xgboost.Booster(model_file=path)
    .predict(DMatrix(X), output_margin=True)`` equals our ``decision_function`` bit for bit
    (``tests/test_io.py``); a float64 fit is exported rounded to float32, as XGBoost stores it
    (its leaf values rounded; its splits route every row as ours do).

    Parameters
    ----------
    params : XGBoostParams or XGBoostClassifierParams
        From :func:`jaxclassic.ensemble.fit_xgboost` (``trees`` of shape ``(T, K, M)``).
    path : str or path-like, optional
        Where to write the JSON (``.json``); the dict is returned either way.
    objective : str, optional
        XGBoost's objective (it only transforms the margin). Default: ``"reg:squarederror"``
        for regression params, ``"binary:logistic"`` (one output) or ``"multi:softprob"``
        (``K`` outputs) for classifier params.

    Returns
    -------
    dict
        The JSON document.

    Raises
    ------
    TypeError
        If ``params`` are not XGBoost-style boosted trees.
    ValueError
        If the trees have categorical splits (``categorical_features=``): not exported.

    Examples
    --------
    >>> import numpy as np
    >>> from jaxclassic import ensemble, io
    >>> X = np.arange(8.0, dtype=np.float32)[:, None]; y = (X[:, 0] > 3).astype(np.float32)
    >>> params = ensemble.fit_xgboost(X, y, n_estimators=2, max_depth=1, max_bin=8)
    >>> model = io.export_xgboost(params)
    >>> model["learner"]["objective"]["name"], len(model["learner"]["gradient_booster"]["model"]["trees"])
    ('reg:squarederror', 3)

    References
    ----------
    XGBoost's JSON model schema: https://xgboost.readthedocs.io/en/stable/tutorials/saving_model.html
    """
    from jaxclassic.ensemble.xgboost import XGBoostClassifierParams, XGBoostParams

    if not isinstance(params, XGBoostParams):
        raise TypeError(f"params must be XGBoostParams (from fit_xgboost), got {type(params).__name__}")
    from jaxclassic.tree._params import has_categories

    if has_categories(params.trees):
        raise ValueError("params has categorical splits (fit_xgboost(categorical_features=...)); export_xgboost "
                         "writes numeric splits only: refit without categorical_features (e.g. one-hot codes) to export")
    trees = params.trees
    feature = np.asarray(trees.feature)
    n_used = int(np.asarray(params.best_iteration)) + 1
    K = feature.shape[1]
    n_features = int(np.asarray(params.bin_edges).shape[0])
    classifier = isinstance(params, XGBoostClassifierParams)
    if objective is None:
        objective = ("multi:softprob" if K > 1 else "binary:logistic") if classifier else "reg:squarederror"
    if K > 1 and not objective.startswith("multi:"):
        raise ValueError(f"objective {objective!r} has one output; these params have {K}")
    json_trees, info = [], []
    for t in range(n_used):
        for k in range(K):
            tree_t = type(trees)(*[None if f is None else np.asarray(f)[t, k] for f in trees])
            json_trees.append(_xgboost_tree(tree_t, k, len(json_trees), np.asarray(params.split_gain)[t, k]))
            info.append(k)
    for k in range(K):
        json_trees.append(_leaf_tree(float(np.asarray(params.base_score)[k]), len(json_trees), n_features))
        info.append(k)
    rounds = n_used + 1
    base = "[5E-1]" if objective == "binary:logistic" else "[" + ",".join(["0E0"] * K) + "]" if K > 1 else "[0E0]"
    objective_params = {"binary:logistic": {"reg_loss_param": {"scale_pos_weight": "1"}},
                        "multi:softprob": {"softmax_multiclass_param": {"num_class": str(K)}},
                        "multi:softmax": {"softmax_multiclass_param": {"num_class": str(K)}}}.get(objective, {})
    document = {
        "learner": {
            "attributes": {}, "feature_names": [], "feature_types": [],
            "gradient_booster": {"model": {
                "gbtree_model_param": {"num_parallel_tree": "1", "num_trees": str(len(json_trees))},
                "iteration_indptr": [i * K for i in range(rounds + 1)], "tree_info": info, "trees": json_trees},
                "name": "gbtree"},
            "learner_model_param": {"base_score": base, "boost_from_average": "0",
                                    "num_class": str(K if K > 1 else 0), "num_feature": str(n_features),
                                    "num_target": "1"},
            "objective": {"name": objective, **objective_params},
        },
        "version": [2, 1, 0],
    }
    if path is not None:
        Path(path).write_text(json.dumps(document))
    return document
