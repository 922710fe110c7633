"""Estimators' save / load (SaveLoadMixin in jaxclassic/estimators/_base.py over jaxclassic.io).

Every class of ``jaxclassic.estimators.__all__`` is fitted on tiny data, saved, loaded, and
the loaded one must predict bit for bit as the saved one (predict, predict_proba,
decision_function, transform, score_samples, whichever it has) and hold the same attributes
(arrays bitwise). The reference is the saved estimator itself.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

pytest.importorskip("sklearn")

import jaxclassic.estimators as est  # noqa: E402
from jaxclassic.estimators._base import SaveLoadMixin, load_estimator, save_estimator  # noqa: E402

_RNG = np.random.default_rng(0)
X = _RNG.normal(size=(30, 3))
Y_CLASS = np.array(["a", "b", "c"])[np.arange(30) % 3]  # string labels: classes_ is an object array
Y_REG = X @ np.array([1.0, -2.0, 0.5]) + 0.3 * _RNG.normal(size=30)
X_SYMBOLS = (np.arange(30) % 3)[:, None]
_SMALL = dict(n_estimators=2)

#: small, fast settings (shapes, not quality, are what a round trip needs)
PARAMS: dict[str, dict] = {
    "LogisticRegression": dict(max_iter=5),
    "SoftmaxRegression": dict(max_iter=5),
    "SGDRegressor": dict(max_iter=2),
    "DecisionTreeClassifier": dict(max_depth=2),
    "DecisionTreeRegressor": dict(max_depth=2),
    "ID3Classifier": dict(max_depth=2),
    "C45Classifier": dict(max_depth=2),
    "AdaBoostClassifier": dict(_SMALL, n_bins=8),
    "GradientBoostingClassifier": dict(_SMALL, n_bins=8, max_depth=2),
    "GradientBoostingRegressor": dict(_SMALL, n_bins=8, max_depth=2),
    "XGBoostClassifier": dict(_SMALL, max_bin=8, max_depth=2),
    "XGBoostRegressor": dict(_SMALL, max_bin=8, max_depth=2),
    "BaggingClassifier": dict(_SMALL, estimator=est.DecisionTreeClassifier(max_depth=2), random_state=0),
    "BaggingRegressor": dict(_SMALL, estimator=est.DecisionTreeRegressor(max_depth=2), random_state=0),
    "RandomForestClassifier": dict(_SMALL, n_bins=8, max_depth=2, random_state=0),
    "RandomForestRegressor": dict(_SMALL, n_bins=8, max_depth=2, random_state=0),
    "VotingClassifier": dict(estimators=[("nb", est.GaussianNB()), ("lda", est.LinearDiscriminantAnalysis())],
                             voting="soft"),
    "VotingRegressor": dict(estimators=[("ridge", est.Ridge()), ("ols", est.LinearRegression())]),
    "StackingClassifier": dict(estimators=[("nb", est.GaussianNB())], final_estimator=est.GaussianNB(), cv=2),
    "StackingRegressor": dict(estimators=[("ridge", est.Ridge())], final_estimator=est.Ridge(), cv=2),
    "KMeans": dict(n_clusters=2, n_init=1, max_iter=3, random_state=0),
    "GaussianMixture": dict(n_components=2, max_iter=3, random_state=0),
    "GaussianProcessRegressor": dict(optimizer=None),
    "LinearSVC": dict(max_iter=20),
    "SVC": dict(max_iter=200),
    "SVR": dict(max_iter=200),
    "CategoricalHMM": dict(n_components=2, n_iter=2, random_state=0),
    "GaussianHMM": dict(n_components=2, n_iter=2, random_state=0),
    "ChainCRF": dict(max_iter=3),
}

CLASSES = [name for name in est.__all__ if isinstance(getattr(est, name), type)]
_METHODS = ("predict", "predict_proba", "decision_function", "transform", "score_samples", "score")
_CRF_X = [[{"w": "the"}, {"w": "dog"}], [{"w": "a"}, {"w": "cat"}, {"w": "runs"}]]
_CRF_Y = [["D", "N"], ["D", "N", "V"]]


@functools.lru_cache(maxsize=None)
def _fit(name):
    """The fitted estimator ``name`` and the X it predicts on, fitted once per session: the
    round trip only reads it, and tests/test_io.py reuses its ``params_`` (one fit, not two)."""
    from sklearn.base import is_classifier, is_regressor

    model = getattr(est, name)(**PARAMS.get(name, {}))
    if name == "ChainCRF":
        return model.fit(_CRF_X, _CRF_Y), _CRF_X
    if name in ("CategoricalNB", "ID3Classifier", "MultinomialNB", "ComplementNB"):  # non-negative
        return model.fit(X_SYMBOLS.repeat(2, axis=1), Y_CLASS), X_SYMBOLS.repeat(2, axis=1)
    if name == "CategoricalHMM":
        return model.fit(X_SYMBOLS), X_SYMBOLS
    if name == "AgglomerativeClustering":
        return model.fit(X), None
    if is_classifier(model):
        return model.fit(X, Y_CLASS), X
    if is_regressor(model):
        return model.fit(X, Y_REG), X
    return model.fit(X), X


def _bits(value):
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return value.dtype, value.shape, value.tolist()
        return value.dtype, value.shape, value.tobytes()
    if isinstance(value, (list, tuple)):
        return type(value), [_bits(v) for v in value]
    if isinstance(value, dict):
        return type(value), {k: _bits(v) for k, v in value.items()}
    if hasattr(value, "get_params"):
        return type(value), _state_bits(value)
    if isinstance(value, float) and value != value:
        return "nan"
    return type(value), jax_tree_bits(value) if hasattr(value, "_fields") else value


def jax_tree_bits(tree):
    import jax

    return str(jax.tree.structure(tree)), [np.asarray(leaf).tobytes() for leaf in jax.tree.leaves(tree)]


def _state_bits(model):
    return {k: _bits(v) for k, v in vars(model).items()}


@pytest.mark.parametrize("name", CLASSES)
def test_round_trip_predicts_bitwise_the_same(name, tmp_path):
    model, X_pred = _fit(name)
    path = tmp_path / f"{name}.jc"
    if isinstance(model, SaveLoadMixin):
        assert model.save(path) == path
        loaded = type(model).load(path)
    else:
        save_estimator(model, path)
        loaded = load_estimator(path)
    assert type(loaded) is type(model)
    assert loaded.get_params(deep=False).keys() == model.get_params(deep=False).keys()
    assert _state_bits(loaded) == _state_bits(model)
    compared = 0
    for method in _METHODS:
        if X_pred is None or not hasattr(model, method) or method == "score" and name != "ChainCRF":
            continue
        args = (X_pred, _CRF_Y) if method == "score" else (X_pred,)
        try:
            expected = getattr(model, method)(*args)
        except AttributeError:  # a meta-estimator whose final member lacks the method
            continue
        got = getattr(loaded, method)(*args)
        assert _bits(got) == _bits(expected), method
        compared += 1
    assert compared or name == "AgglomerativeClustering"


#: the estimators whose bases come from scikit-learn's heterogeneous ensembles, not from
#: _base.BaseEstimator: they save through save_estimator / load_estimator; their ``save``
#: method needs SaveLoadMixin among the bases of _BaseMembers (jaxclassic/estimators/voting.py)
WITHOUT_METHODS: set = set()  # every exported class has .save / .load


def test_which_classes_have_save_and_load_methods():
    without = {name for name in CLASSES if not issubclass(getattr(est, name), SaveLoadMixin)}
    assert without <= WITHOUT_METHODS, f"{without - WITHOUT_METHODS} lack save/load"


def test_nested_estimators_keep_their_identity(tmp_path):
    model = est.VotingRegressor(PARAMS["VotingRegressor"]["estimators"]).fit(X, Y_REG)
    save_estimator(model, tmp_path / "v.jc")
    loaded = load_estimator(tmp_path / "v.jc")
    assert loaded.named_estimators_["ridge"] is loaded.estimators_[0]
    assert type(loaded.named_estimators_) is type(model.named_estimators_)  # scikit-learn's Bunch


def test_metadata_names_the_class_parameters_and_classes(tmp_path):
    from jaxclassic import io

    model = est.GaussianNB(var_smoothing=1e-8).fit(X, Y_CLASS)
    model.save(tmp_path / "nb.jc", source="unit test")
    meta = io.read_metadata(tmp_path / "nb.jc")
    assert meta["kind"] == "GaussianNB" and meta["content"] == "estimator"
    assert meta["hyperparameters"]["var_smoothing"] == 1e-8 and meta["classes"] == ["a", "b", "c"]
    assert meta["source"] == "unit test"


def test_loading_as_another_class_is_a_value_error(tmp_path):
    est.Ridge().fit(X, Y_REG).save(tmp_path / "r.jc")
    with pytest.raises(ValueError, match="r.jc holds a saved Ridge, not a Lasso"):
        est.Lasso.load(tmp_path / "r.jc")


def test_params_file_is_not_an_estimator(tmp_path):
    from jaxclassic import io, linear

    io.save(tmp_path / "p.jc", linear.fit_ols(X, Y_REG))
    with pytest.raises(ValueError, match="p.jc holds saved params .*load it with jaxclassic.io.load"):
        est.Ridge.load(tmp_path / "p.jc")
    est.Ridge().fit(X, Y_REG).save(tmp_path / "r.jc")
    with pytest.raises(ValueError, match="r.jc holds a saved estimator \\(Ridge\\), not params: "
                                         "load it with jaxclassic.estimators.Ridge.load"):
        io.load(tmp_path / "r.jc")


def test_unsaveable_parameter_is_a_type_error_naming_it(tmp_path):
    model = est.KMeans(n_clusters=2, random_state=np.random.RandomState(0))
    with pytest.raises(TypeError, match="KMeans.random_state: cannot save an object of type numpy.random"):
        model.save(tmp_path / "k.jc")
    assert not (tmp_path / "k.jc").exists()


def test_foreign_member_estimator_is_a_type_error(tmp_path):
    from sklearn.linear_model import Ridge as SkRidge

    model = est.VotingRegressor([("sk", SkRidge())])
    with pytest.raises(TypeError, match="only the classes of jaxclassic.estimators can be saved, got "
                                        "sklearn.linear_model"):
        save_estimator(model, tmp_path / "v.jc")


def test_unknown_estimator_class_is_a_value_error(tmp_path):
    import json

    from jaxclassic import io

    est.Ridge().save(tmp_path / "r.jc")  # unfitted: parameters only
    with np.load(tmp_path / "r.jc", allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    header = json.loads(arrays[io.HEADER_KEY].tobytes())
    header["tree"]["class"] = "Evil"
    arrays[io.HEADER_KEY] = np.frombuffer(json.dumps(header).encode(), np.uint8)
    with open(tmp_path / "e.jc", "wb") as fh:
        np.savez(fh, **arrays)
    with pytest.raises(ValueError, match="unknown estimator class 'Evil'"):
        load_estimator(tmp_path / "e.jc")
