"""Saved pipelines (jaxclassic/estimators/_pipeline_io.py through jaxclassic.io.save / load).

The reference is the saved object itself: the reloaded pipeline or preprocessor must hold the
same fitted attributes (arrays bitwise, same dtypes) and transform / predict new rows
identically (``np.array_equal``, not a tolerance: nothing is recomputed). Refusals must name
the step path and leave no file.
"""

from __future__ import annotations

import functools
import json
import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")
pd = pytest.importorskip("pandas")

from sklearn.compose import ColumnTransformer, make_column_selector  # noqa: E402
from sklearn.feature_extraction.text import CountVectorizer  # noqa: E402
from sklearn.impute import SimpleImputer  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import (FunctionTransformer, MinMaxScaler, OneHotEncoder,  # noqa: E402
                                   PolynomialFeatures, StandardScaler)

import jaxclassic.estimators as est  # noqa: E402
from jaxclassic import io  # noqa: E402
from jaxclassic.estimators._base import load_estimator  # noqa: E402
from jaxclassic.estimators._pipeline_io import ALLOWED  # noqa: E402

_RNG = np.random.default_rng(0)
X_NUM = _RNG.normal(size=(24, 3))
X_NEW = _RNG.normal(size=(7, 3)) * 2.0  # new rows, some outside the fitted range
WORDS = np.array(["red", "green", "blue", "grey"])


def _frame(n, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.normal(40, 10, n), "income": rng.normal(3, 1, n),
                         "colour": rng.choice(WORDS[:3], n), "size": rng.choice(["S", "M", "L"], n),
                         "flag": rng.random(n) > 0.5})


FRAME = _frame(40, 1)
FRAME_NEW = _frame(9, 2).assign(colour=["grey"] + list(_frame(9, 2).colour[1:]))  # an unseen category
Y = (FRAME.age / 10 + (FRAME.colour == "red") + _RNG.normal(size=40) > 4.5).astype(int).to_numpy()
DOCS = ["the cat sat on the mat", "a dog sat", "dogs and cats", "the dog ate the cat food",
        "no pets here", "cat cat dog"]
DOCS_NEW = ["a cat and a dog", "unseen words only", "mat"]


def _round_trip(obj, path):
    io.save(path, obj)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # same scikit-learn: no version warning
        return io.load(path)


def _same_array(a, b):
    if a is None or b is None:
        return a is b
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype == object:  # cells of the same type and value (None and NaN included)
        return all(type(u) is type(v) and (u == v or (u != u and v != v)) for u, v in zip(a.ravel(), b.ravel()))
    return np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


def _assert_same_state(a, b):
    assert type(a) is type(b)
    assert a.get_params(deep=False).keys() == b.get_params(deep=False).keys()
    for key, value in vars(a).items():
        other = vars(b)[key]
        if isinstance(value, np.ndarray):
            assert _same_array(value, other), key
        elif isinstance(value, list) and any(isinstance(v, np.ndarray) for v in value):
            assert len(value) == len(other) and all(_same_array(u, v) for u, v in zip(value, other)), key
        elif isinstance(value, dict) and key == "vocabulary_":
            assert value == other and {type(v) for v in other.values()} == {type(v) for v in value.values()}
        elif not hasattr(value, "get_params"):
            assert type(value) is type(other) and (value == other or value != value), key


def _dense(a):
    return a.toarray() if hasattr(a, "toarray") else np.asarray(a)


X_CAT = np.array([["a", "x"], ["b", "y"], ["a", "y"], ["c", "x"], ["a", "x"], ["b", "x"]], dtype=object)
X_CAT_NEW = np.array([["c", "y"], ["a", "x"], ["b", "y"]], dtype=object)
X_GAPS = np.array([["a"], [None], ["b"], [np.nan], ["a"], ["b"]], dtype=object)

#: (preprocessor, training data, new rows)
TRANSFORMERS = {
    "StandardScaler": (StandardScaler(), X_NUM, X_NEW),
    "StandardScaler_no_mean": (StandardScaler(with_mean=False), X_NUM.astype(np.float32), X_NEW),
    "MinMaxScaler": (MinMaxScaler(feature_range=(-1, 2), clip=True), X_NUM, X_NEW),
    "OneHotEncoder": (OneHotEncoder(drop="first", sparse_output=False), X_CAT, X_CAT_NEW),
    "OneHotEncoder_infrequent": (OneHotEncoder(min_frequency=2, handle_unknown="infrequent_if_exist"),
                                 X_CAT, np.array([["z", "x"], ["c", "q"]], dtype=object)),
    "OneHotEncoder_missing": (OneHotEncoder(handle_unknown="ignore"), X_GAPS, X_GAPS[::-1]),
    "SimpleImputer": (SimpleImputer(), np.where(X_NUM > 1, np.nan, X_NUM),
                      np.where(X_NEW > 1, np.nan, X_NEW)),
    "SimpleImputer_strings": (SimpleImputer(strategy="most_frequent", missing_values=None, add_indicator=True),
                              np.array([["a"], [None], ["b"], ["a"]], dtype=object),
                              np.array([[None], ["b"]], dtype=object)),
    "PolynomialFeatures": (PolynomialFeatures(degree=3, interaction_only=True), X_NUM, X_NEW),
    "CountVectorizer": (CountVectorizer(ngram_range=(1, 2), stop_words="english", min_df=1), DOCS, DOCS_NEW),
    "CountVectorizer_vocabulary": (CountVectorizer(vocabulary=["cat", "dog", "mat"], binary=True), DOCS, DOCS_NEW),
    "FunctionTransformer": (FunctionTransformer(), X_NUM, X_NEW),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMERS))
def test_preprocessor_round_trip_transforms_identically(name, tmp_path):
    transformer, X, X_new = TRANSFORMERS[name]
    fitted = transformer.fit(X)
    loaded = _round_trip(fitted, tmp_path / "t.jc")
    _assert_same_state(fitted, loaded)
    expected, got = _dense(fitted.transform(X_new)), _dense(loaded.transform(X_new))
    assert got.dtype == expected.dtype and np.array_equal(got, expected)
    if name == "OneHotEncoder":
        assert loaded.categories_[0].dtype == object and loaded.categories_[0].tolist() == ["a", "b", "c"]


@functools.lru_cache(maxsize=None)
def _mixed_pipeline(model):
    """A ColumnTransformer over a DataFrame's numeric and categorical columns (selectors by
    name, int, slice and bool mask; remainder passthrough) before our classifiers."""

    def prep():
        return ColumnTransformer([
            ("num", Pipeline([("impute", SimpleImputer()), ("scale", StandardScaler())]), ["age", "income"]),
            ("cat", OneHotEncoder(handle_unknown="ignore", sparse_output=False), [2, 3]),
            ("minmax", MinMaxScaler(), slice(0, 1)),
            ("none", "drop", np.array([False, False, False, False, False])),
        ], remainder="passthrough")

    classifier = (est.LogisticRegression(C=0.5) if model == "logistic"
                  else est.XGBoostClassifier(n_estimators=3, max_depth=2, max_bin=8))
    return Pipeline([("prep", prep()), ("clf", classifier)]).fit(FRAME, Y)


@pytest.mark.parametrize("model", ["logistic", pytest.param("xgboost", marks=pytest.mark.full)])
def test_column_transformer_pipeline_predicts_identically(model, tmp_path):
    pipe = _mixed_pipeline(model)
    loaded = _round_trip(pipe, tmp_path / "p.jc")
    assert [name for name, _ in loaded.steps] == ["prep", "clf"]
    assert np.array_equal(loaded.predict_proba(FRAME_NEW), pipe.predict_proba(FRAME_NEW))
    assert np.array_equal(loaded.predict(FRAME_NEW), pipe.predict(FRAME_NEW))
    ct, ct2 = pipe.named_steps["prep"], loaded.named_steps["prep"]
    assert [c for _, _, c in ct2.transformers][2] == slice(0, 1)
    assert ct2.output_indices_ == ct.output_indices_
    assert list(ct2.get_feature_names_out()) == list(ct.get_feature_names_out())
    meta = io.read_metadata(tmp_path / "p.jc")
    assert meta["content"] == "pipeline" and meta["kind"] == "Pipeline" and meta["format_version"] == 2
    assert meta["feature_names"] == list(FRAME.columns) and meta["classes"] == [0, 1]


def test_count_vectorizer_before_our_classifier(tmp_path):
    # MultinomialNB where the estimator layer has it (issue 28), else LogisticRegression on the
    # vectorizer's sparse counts
    model = est.MultinomialNB() if hasattr(est, "MultinomialNB") else est.LogisticRegression()
    pipe = Pipeline([("counts", CountVectorizer()), ("clf", model)]).fit(DOCS, [0, 1, 1, 1, 0, 1])
    loaded = _round_trip(pipe, tmp_path / "text.jc")
    assert loaded.named_steps["counts"].vocabulary_ == pipe.named_steps["counts"].vocabulary_
    assert np.array_equal(loaded.predict_proba(DOCS_NEW), pipe.predict_proba(DOCS_NEW))


def test_unfitted_pipeline_round_trips_its_parameters(tmp_path):
    pipe = Pipeline([("scale", StandardScaler(with_std=False)), ("clf", est.Ridge(alpha=2.0))])
    loaded = _round_trip(pipe, tmp_path / "u.jc")
    assert loaded.named_steps["scale"].with_std is False and loaded.named_steps["clf"].alpha == 2.0
    assert not hasattr(loaded.named_steps["scale"], "mean_")


def test_params_files_keep_format_version_1(tmp_path):
    from jaxclassic import linear

    io.save(tmp_path / "p.jc", linear.fit_ols(X_NUM, X_NUM[:, 0]))
    assert io.read_metadata(tmp_path / "p.jc")["format_version"] == 1


# --------------------------------------------------------------------------- refusals
def _refused(obj, tmp_path, match):
    with pytest.raises(ValueError, match=match):
        io.save(tmp_path / "bad.jc", obj)
    assert not list(tmp_path.iterdir()), "a refused save must write nothing"


def test_function_transformer_with_a_lambda_names_the_step_path(tmp_path):
    pipe = Pipeline([("prep", ColumnTransformer([("num", FunctionTransformer(lambda x: x), [0])])),
                     ("clf", est.LogisticRegression())])
    _refused(pipe, tmp_path, r"^pipeline step 'prep' > 'num' \(FunctionTransformer\) cannot be saved without "
                             r"pickle: it holds the Python function .*<lambda>")


def test_step_of_another_library_names_the_step(tmp_path):
    from sklearn.linear_model import Ridge as SkRidge

    _refused(Pipeline([("scale", StandardScaler()), ("model", SkRidge())]), tmp_path,
             r"^pipeline step 'model' \(Ridge\) cannot be saved without pickle: only the classes of "
             r"jaxclassic.estimators can be saved, got sklearn.linear_model")


def test_third_party_object_with_fit_names_the_step(tmp_path):
    class Custom:
        def fit(self, X, y=None):
            return self

        def transform(self, X):
            return X

    _refused(Pipeline([("mine", Custom()), ("clf", est.Ridge())]), tmp_path,
             r"pipeline step 'mine' \(Custom\) cannot be saved without pickle")


def test_callable_tokenizer_is_refused(tmp_path):
    _refused(Pipeline([("counts", CountVectorizer(tokenizer=str.split))]), tmp_path,
             r"pipeline step 'counts' \(CountVectorizer\) cannot be saved without pickle: parameter "
             r"tokenizer is the Python callable 'str.split'")


def test_callable_column_selector_is_refused(tmp_path):
    ct = ColumnTransformer([("num", StandardScaler(), make_column_selector(dtype_include=np.number))])
    _refused(Pipeline([("prep", ct)]), tmp_path,
             r"pipeline step 'prep' > 'num' cannot be saved without pickle: its column selector is the callable")


def test_an_attribute_off_the_allow_list_is_refused(tmp_path):
    scaler = StandardScaler().fit(X_NUM)
    scaler.extra_ = lambda: None
    _refused(scaler, tmp_path, r"StandardScaler \(StandardScaler\) cannot be saved without pickle: "
                               r"attribute\(s\) \['extra_'\] are not on jaxclassic's list")


def test_allow_list_names_the_issue_s_preprocessors():
    for name in ("Pipeline", "ColumnTransformer", "StandardScaler", "MinMaxScaler", "OneHotEncoder",
                 "SimpleImputer", "PolynomialFeatures", "CountVectorizer"):
        assert name in ALLOWED


# --------------------------------------------------------------------------- loading
def _edit_header(source, target, edit):
    with np.load(source, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    header = json.loads(arrays[io.HEADER_KEY].tobytes())
    edit(header)
    arrays[io.HEADER_KEY] = np.frombuffer(json.dumps(header).encode(), np.uint8)
    with open(target, "wb") as fh:
        np.savez(fh, **arrays)


def test_another_sklearn_version_warns_and_loads(tmp_path):
    from sklearn.exceptions import InconsistentVersionWarning

    scaler = StandardScaler().fit(X_NUM)
    io.save(tmp_path / "s.jc", scaler)
    _edit_header(tmp_path / "s.jc", tmp_path / "old.jc", lambda h: h["metadata"].update(sklearn_version="0.1.0"))
    with pytest.warns(InconsistentVersionWarning, match="version 0.1.0 when using version"):
        loaded = io.load(tmp_path / "old.jc")
    assert np.array_equal(loaded.transform(X_NEW), scaler.transform(X_NEW))


def test_unknown_sklearn_class_in_a_file_is_refused(tmp_path):
    io.save(tmp_path / "s.jc", StandardScaler())
    _edit_header(tmp_path / "s.jc", tmp_path / "e.jc", lambda h: h["tree"].update({"class": "Evil"}))
    with pytest.raises(ValueError, match="unknown scikit-learn class 'Evil'"):
        io.load(tmp_path / "e.jc")


def test_pipeline_file_is_not_an_estimator_file(tmp_path):
    io.save(tmp_path / "s.jc", Pipeline([("scale", StandardScaler())]))
    with pytest.raises(ValueError, match="holds saved pipeline \\(Pipeline\\), not an estimator: load it with "
                                         "jaxclassic.io.load"):
        load_estimator(tmp_path / "s.jc")
