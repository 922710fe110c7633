"""Safe model files (jaxclassic/io.py): every params type of the package round-trips bitwise,
its predictions are identical, and bad files / objects are clear errors.

The params types are enumerated by walking the package (``io.params_types()``, which imports
every module of the functional core), so a new family's params type without a builder here
fails ``test_every_params_type_has_a_builder``. The reference of the round trip is the saved
object itself: leaves compared bit for bit (``np.array_equal`` on the raw bytes, so NaN
payloads and signed zeros count), dtypes, Python types of static fields and pytree structure.
"""

from __future__ import annotations

import json
import os
import stat
import zipfile

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import _dispatch, io

N, D = 24, 3
_RNG = np.random.default_rng(0)
X = _RNG.normal(size=(N, D))
Y_BIN = (np.arange(N) % 2).astype(np.int32)
Y_3 = (np.arange(N) % 3).astype(np.int32)
Y_REG = X @ np.array([1.0, -2.0, 0.5]) + 0.3 * _RNG.normal(size=N)
X_CAT = ((_RNG.integers(0, 3, size=(N, D)) + Y_BIN[:, None]) % 3).astype(np.int32)
X_MIXED = np.c_[X_CAT[:, :1], X[:, 1:]]
KEY = jax.random.key(0)


def _linear():
    from jaxclassic import linear

    return linear


# --------------------------------------------------------------------------- builders
def _builders():
    """qualified params type name -> (fit thunk, response(params) thunk)."""
    from jaxclassic import (cluster, discriminant, ensemble, gaussian_process, graphical, linear, multiclass,
                            neighbors, svm, tree)

    def ridge(X, y, *, sample_weight=None):
        return linear.fit_ridge(X, y, alpha=1.0, sample_weight=sample_weight)

    def gnb(X, y, *, sample_weight=None):  # the cheapest binary classifier to compile
        return discriminant.fit_gaussian_nb(X, y, n_classes=2, sample_weight=sample_weight)

    def stump(X, y, *, sample_weight=None):
        return tree.fit_cart(X, y, max_depth=1, n_bins=8, n_classes=2, sample_weight=sample_weight)

    def pred(params, X_=None):
        return _dispatch.predict(params, X)

    def pred_cat(params, X_=None):
        return _dispatch.predict(params, X_CAT)

    def pred_mixed(params, X_=None):
        return _dispatch.predict(params, X_MIXED)

    resp = 0.8 * np.eye(2)[Y_BIN] + 0.1
    structure = graphical.make_structure({"y": [], "a": ["y"], "b": ["y"]}, [2, 3, 3])
    sequences = jnp.asarray(X_CAT + 3 * np.arange(D, dtype=np.int32))[:, None, :]
    b = {
        "linear._params.LinearParams": (lambda: linear.fit_ols(X, Y_REG), pred),
        "linear.lasso.LassoParams": (lambda: linear.fit_lasso(X, Y_REG, alpha=0.1), pred),
        "linear.elastic_net.ElasticNetParams": (lambda: linear.fit_elastic_net(X, Y_REG, alpha=0.1, l1_ratio=0.5),
                                                pred),
        "linear.sgd_classifier.SGDClassifierParams": (
            lambda: linear.fit_sgd_classifier(X, Y_BIN, key=KEY, max_iter=2), pred),
        "linear.bayesian.BayesianRidgeParams": (lambda: linear.fit_bayesian_ridge(X, Y_REG, max_iter=5), pred),
        "linear.sgd.SGDRegressorParams": (
            lambda: linear.fit_sgd_regressor(X, Y_REG, key=KEY, n_epochs=2, batch_size=8), pred),
        "linear.logistic.LogisticParams": (lambda: linear.fit_logistic(X, Y_BIN, l2=1.0), pred),
        "linear.softmax.SoftmaxParams": (lambda: linear.fit_softmax(X, Y_3, n_classes=3, l2=1.0), pred),
        "linear.perceptron.PerceptronParams": (lambda: linear.fit_perceptron(X, Y_BIN, max_epochs=3), pred),
        "linear.perceptron.KernelPerceptronParams": (
            lambda: linear.fit_perceptron(X, Y_BIN, form="dual", max_epochs=3), pred),
        "multiclass.OneVsRestParams": (
            lambda: multiclass.fit_one_vs_rest(gnb, X, Y_3, n_classes=3), pred),
        "multiclass.OneVsOneParams": (
            lambda: multiclass.fit_one_vs_one(gnb, X, Y_3, n_classes=3), pred),
        "svm.linear.LinearSVMParams": (lambda: svm.fit_linear_svm(X, Y_BIN, max_iter=50), pred),
        "svm.kernel.KernelSVMParams": (lambda: svm.fit_kernel_svm(X, Y_BIN, max_iter=200), pred),
        "svm.svr.KernelSVRParams": (lambda: svm.fit_kernel_svr(X, Y_REG, max_iter=200), pred),
        "discriminant.naive_bayes.GaussianNBParams": (lambda: discriminant.fit_gaussian_nb(X, Y_3), pred),
        "discriminant.naive_bayes.CategoricalNBParams": (
            lambda: discriminant.fit_categorical_nb(X_CAT, Y_BIN, n_categories=3), pred_cat),
        "discriminant.naive_bayes.MixedNBParams": (
            lambda: discriminant.fit_mixed_nb(X_MIXED, Y_BIN, categorical_features=[0], n_categories=[3]),
            pred_mixed),
        "discriminant.discrete_nb.MultinomialNBParams": (
            lambda: discriminant.fit_multinomial_nb(X_CAT, Y_BIN), pred_cat),
        "discriminant.discrete_nb.BernoulliNBParams": (
            lambda: discriminant.fit_bernoulli_nb(X_CAT, Y_BIN, binarize=1.0), pred_cat),
        "discriminant.discrete_nb.ComplementNBParams": (
            lambda: discriminant.fit_complement_nb(X_CAT, Y_BIN), pred_cat),
        "discriminant.lda_qda.LDAParams": (lambda: discriminant.fit_lda(X, Y_3), pred),
        "discriminant.lda_qda.QDAParams": (lambda: discriminant.fit_qda(X, Y_3, reg_param=0.1), pred),
        "neighbors.knn.KNNClassifierParams": (lambda: neighbors.fit_knn(X, Y_3, n_neighbors=3), pred),
        "neighbors.knn.KNNRegressorParams": (lambda: neighbors.fit_knn(X, Y_REG, n_neighbors=3, task="regression"), pred),
        "neighbors.kde.KDEParams": (lambda: neighbors.fit_kde(X, bandwidth=0.5), neighbors.score_samples),
        **{f"gaussian_process.regression.{name}Params": (
            (lambda k=kernel: gaussian_process.fit_gp(X, Y_REG, kernel=k, noise=0.1)), pred)
           for name, kernel in (("RBF", "rbf"), ("Matern12", "matern12"), ("Matern32", "matern32"),
                                ("Matern52", "matern52"))},
        "tree._params.ClassificationTree": (lambda: tree.fit_cart(X, Y_3, max_depth=2, n_bins=8), pred),
        "tree._params.RegressionTree": (
            lambda: tree.fit_cart(X, Y_REG, task="regression", max_depth=2, n_bins=8), pred),
        "tree.id3.ID3Params": (lambda: tree.fit_id3(X_CAT, Y_BIN, max_depth=2), pred_cat),
        "tree.c45.C45Params": (
            lambda: tree.fit_c45(X_MIXED, Y_BIN, categorical=[True, False, False], max_depth=2), pred_mixed),
        "ensemble.forest.ClassificationForest": (
            lambda: ensemble.fit_random_forest(X, Y_BIN, n_estimators=2, max_depth=2, n_bins=8, key=KEY), pred),
        "ensemble.forest.RegressionForest": (
            lambda: ensemble.fit_random_forest(X, Y_REG, task="regression", n_estimators=2, max_depth=2,
                                               n_bins=8, key=KEY), pred),
        "ensemble.bagging.RegressionBagging": (
            lambda: ensemble.fit_bagging(ridge, X, Y_REG, n_estimators=2, key=KEY), pred),
        "ensemble.bagging.ClassificationBagging": (
            lambda: ensemble.fit_bagging(gnb, X, Y_BIN, n_estimators=2, key=KEY, voting="majority"), pred),
        "ensemble.adaboost.AdaBoostParams": (
            lambda: ensemble.fit_adaboost(X, Y_BIN, n_estimators=2, n_bins=8), pred),
        "ensemble.gradient_boosting.GradientBoostingParams": (
            lambda: ensemble.fit_gradient_boosting(X, Y_REG, n_estimators=2, max_depth=2, n_bins=8), pred),
        "ensemble.gradient_boosting.GradientBoostingClassifierParams": (
            lambda: ensemble.fit_gradient_boosting(X, Y_3, loss="log_loss", n_classes=3, n_estimators=2,
                                                   max_depth=2, n_bins=8), pred),
        "ensemble.xgboost.XGBoostParams": (
            lambda: ensemble.fit_xgboost(X, Y_REG, n_estimators=2, max_depth=2, max_bin=8), pred),
        "ensemble.xgboost.XGBoostClassifierParams": (
            lambda: ensemble.fit_xgboost(X, Y_BIN, loss="log_loss", n_estimators=2, max_depth=2, max_bin=8),
            pred),
        "ensemble.voting.ClassificationVoting": (
            lambda: ensemble.fit_voting([gnb, stump], X, Y_BIN, voting="soft"), pred),
        "ensemble.voting.RegressionVoting": (lambda: ensemble.fit_voting([ridge, ridge], X, Y_REG, task="regression"), pred),
        "ensemble.stacking.ClassificationStacking": (
            lambda: ensemble.fit_stacking([gnb], gnb, X, Y_BIN, n_splits=2, key=KEY), pred),
        "ensemble.stacking.RegressionStacking": (
            lambda: ensemble.fit_stacking([ridge], ridge, X, Y_REG, n_splits=2, task="regression", key=KEY), pred),
        "cluster.kmeans.KMeansParams": (lambda: cluster.fit_kmeans(X, 2, key=KEY, max_iter=5), cluster.predict),
        "cluster.minibatch_kmeans.MiniBatchKMeansParams": (
            lambda: cluster.fit_minibatch_kmeans(X, 2, key=KEY, max_iter=2, batch_size=8), cluster.predict),
        "cluster.hierarchical.AgglomerativeParams": (
            lambda: cluster.fit_agglomerative(X, n_clusters=2), lambda params, _: params.labels),
        **{f"cluster.gmm.{name}GMMParams": (
            (lambda c=cov: cluster.fit_gmm(X, 2, init=resp, covariance_type=c, max_iter=3)), cluster.predict_proba)
           for name, cov in (("Full", "full"), ("Tied", "tied"), ("Diag", "diag"), ("Spherical", "spherical"))},
        "graphical.bayes_net.BayesNet": (
            lambda: graphical.fit_bayes_net(np.c_[Y_BIN, X_CAT[:, :2]], structure, pseudo_count=1.0),
            lambda net, _: graphical.query(net, "y", {"a": 1})),
        "graphical.crf.CRFParams": (
            lambda: graphical.fit_crf(sequences, jnp.asarray(Y_BIN)[:, None], n_labels=2, n_features=3 * D,
                                      max_iter=5),
            lambda params, _: graphical.crf.predict(params, sequences)),
        "graphical.hmm.CategoricalHMMParams": (
            lambda: graphical.fit_hmm(X_CAT[:, 0], [N], 2, n_symbols=3, max_iter=3, key=KEY),
            lambda params, _: graphical.viterbi(params, X_CAT[:, 0])),
        **{f"graphical.hmm.{name}GaussianHMMParams": (
            (lambda c=cov: graphical.fit_hmm(X, [N], 2, emission="gaussian", covariance_type=c, max_iter=3,
                                             key=KEY)),
            lambda params, _: graphical.viterbi(params, X))
           for name, cov in (("Full", "full"), ("Tied", "tied"), ("Diag", "diag"), ("Spherical", "spherical"))},
    }
    for name, estimator in _FROM_ESTIMATORS.items():  # the same type, fitted once for both files
        b[name] = ((lambda e=estimator: _estimator_params(e)), pred)
    return {f"jaxclassic.{name}": value for name, value in b.items()}


#: params types whose round trip uses the ``params_`` of the estimator that
#: tests/estimators/test_save_load.py fitted (cached there), not a second fit of their own
_FROM_ESTIMATORS = {
    "ensemble.gradient_boosting.GradientBoostingClassifierParams": "GradientBoostingClassifier",
    "ensemble.gradient_boosting.GradientBoostingParams": "GradientBoostingRegressor",
    "ensemble.forest.ClassificationForest": "RandomForestClassifier",
    "ensemble.forest.RegressionForest": "RandomForestRegressor",
    "ensemble.xgboost.XGBoostParams": "XGBoostRegressor",
    "ensemble.xgboost.XGBoostClassifierParams": "XGBoostClassifier",
    "ensemble.adaboost.AdaBoostParams": "AdaBoostClassifier",
    "tree._params.ClassificationTree": "DecisionTreeClassifier",
    "tree._params.RegressionTree": "DecisionTreeRegressor",
    "linear.softmax.SoftmaxParams": "SoftmaxRegression",
}


def _estimator_params(name):
    """The core params of a cached fitted estimator, its numpy leaves (``to_host``) back as
    jax arrays as a ``fit_<model>`` returns them (bits unchanged; the suite runs with x64 on)."""
    pytest.importorskip("sklearn")
    from tests.estimators import test_save_load

    params = test_save_load._fit(name)[0].params_
    return jax.tree.map(lambda a: jnp.asarray(a) if isinstance(a, np.ndarray) else a, params)


#: params types that no fit returns (each fit returns one of their subclasses), with the subclasses
ABSTRACT = {
    "jaxclassic.tree._params.TreeParams": "ClassificationTree / RegressionTree",
    "jaxclassic.ensemble.forest.ForestParams": "ClassificationForest / RegressionForest",
    "jaxclassic.ensemble.bagging.BaggingParams": "ClassificationBagging / RegressionBagging",
    "jaxclassic.ensemble.voting.VotingParams": "ClassificationVoting / RegressionVoting",
    "jaxclassic.ensemble.stacking.StackingParams": "ClassificationStacking / RegressionStacking",
    "jaxclassic.neighbors.knn.KNNParams": "KNNClassifierParams / KNNRegressorParams",
    "jaxclassic.gaussian_process.regression.GPParams": "one subclass per kernel (RBFParams...)",
    "jaxclassic.cluster.gmm.GMMParams": "one subclass per covariance type",
    "jaxclassic.graphical.hmm.GaussianHMMParams": "one subclass per covariance type",
}


def _model_params_types() -> list[str]:
    """Every model params type of the package: a type with a prediction registered in the
    dispatch registry, a subclass of one, or a type named ``*Params``; plus the Bayesian network."""
    types = io.params_types()
    dispatched = {t for table in _dispatch._REGISTRY.values() for t in table}
    out = []
    for name, cls in types.items():
        if not (hasattr(cls, "_fields")):
            continue
        if (cls.__name__.endswith("Params") or cls.__name__ == "BayesNet"
                or any(issubclass(cls, t) for t in dispatched)):
            out.append(name)
    return sorted(out)


_BUILDERS = _builders()
_MODEL_TYPES = _model_params_types()


def test_every_params_type_has_a_builder():
    missing = [n for n in _MODEL_TYPES if n not in _BUILDERS and n not in ABSTRACT]
    assert not missing, f"add a round-trip case for {missing} to tests/test_io.py::_builders"
    assert len(_MODEL_TYPES) >= 55  # the walk found the package's families


def _bits(a) -> tuple:
    if isinstance(a, jax.Array) and jax.dtypes.issubdtype(a.dtype, jax.dtypes.prng_key):
        return str(a.dtype), a.shape, np.asarray(jax.random.key_data(a)).tobytes()
    a = np.asarray(a)
    return a.dtype, a.shape, a.tobytes()


def _tree_bits(tree) -> list:
    return [_bits(leaf) for leaf in jax.tree.leaves(tree)]


def assert_identical(original, loaded):
    """Same pytree structure (static fields included), leaf types and bitwise leaves."""
    assert type(original) is type(loaded)
    assert jax.tree.structure(original) == jax.tree.structure(loaded)
    flat_o, flat_l = jax.tree.leaves(original), jax.tree.leaves(loaded)
    assert len(flat_o) == len(flat_l)
    for o, l in zip(flat_o, flat_l):
        assert type(o) is type(l), (type(o), type(l))
        if isinstance(o, (np.ndarray, jax.Array, np.generic)):
            assert _bits(o) == _bits(l)
        else:
            assert o == l or (o != o and l != l)


@pytest.mark.parametrize("name", sorted(_BUILDERS))
def test_round_trip_is_bitwise_and_predicts_the_same(name, tmp_path):
    build, respond = _BUILDERS[name]
    params = build()
    assert f"{type(params).__module__}.{type(params).__qualname__}" == name
    path = tmp_path / "model.jc"
    io.save(path, params, hyperparameters={"note": name}, feature_names=["a", "b", "c"])
    loaded, meta = io.load(path, with_metadata=True)
    assert_identical(params, loaded)
    assert meta["kind"] == name and meta["hyperparameters"] == {"note": name}
    assert meta["feature_names"] == ["a", "b", "c"] and meta["format_version"] == 1  # params need no version-2 node
    assert _tree_bits(respond(params, X)) == _tree_bits(respond(loaded, X))  # the same compiled program


def test_static_python_fields_nan_inf_and_keys_round_trip(tmp_path):
    """Hand-made params: float NaN / inf / -0.0, big ints, bool, None, str, nested tuples,
    a numpy scalar, a typed PRNG key and a float32 jax leaf (the dtype is kept)."""
    from jaxclassic.linear._params import LinearParams

    params = LinearParams(
        coef=(float("nan"), float("inf"), -0.0, 2**70, True, None, "s", (np.float32(1.5), KEY)),
        intercept=jnp.asarray([1.0, -0.0], jnp.float32))
    io.save(tmp_path / "m.jc", params)
    loaded = io.load(tmp_path / "m.jc")
    assert_identical(params, loaded)
    assert loaded.intercept.dtype == jnp.float32 and isinstance(loaded.intercept, jax.Array)
    assert str(np.float64(loaded.coef[2])) == "-0.0"
    assert (jax.random.key_data(loaded.coef[7][1]) == jax.random.key_data(KEY)).all()


def test_float64_leaves_keep_their_bits_with_x64_off(tmp_path):
    params = _linear().fit_ols(X, Y_REG)  # float64 (the suite runs with x64 on)
    io.save(tmp_path / "m.jc", params)
    with jax.enable_x64(False):
        loaded = io.load(tmp_path / "m.jc")
    assert loaded.coef.dtype == np.float64 and isinstance(loaded.coef, np.ndarray)
    assert _bits(loaded.coef) == _bits(params.coef)


# --------------------------------------------------------------------------- errors
@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = tmp_path_factory.mktemp("io") / "ols.jc"
    io.save(path, _linear().fit_ols(X, Y_REG), classes=[0, 1])
    return path


def _rewrite_header(src, dst, change):
    with np.load(src, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    header = json.loads(arrays[io.HEADER_KEY].tobytes())
    change(header)
    arrays[io.HEADER_KEY] = np.frombuffer(json.dumps(header).encode(), np.uint8)
    with open(dst, "wb") as fh:
        np.savez(fh, **arrays)


def test_truncated_file_is_a_value_error(saved, tmp_path):
    path = tmp_path / "cut.jc"
    path.write_bytes(saved.read_bytes()[:200])
    with pytest.raises(ValueError, match=r"cut.jc is not a readable jaxclassic model file \(corrupt or truncated"):
        io.load(path)


def test_garbage_file_is_a_value_error(tmp_path):
    path = tmp_path / "junk.jc"
    path.write_bytes(b"not a zip at all" * 10)
    with pytest.raises(ValueError, match=r"junk.jc is not a jaxclassic model file \(model files are the zip "
                                         r"archives jaxclassic.io.save writes; this file starts with b'not a zip"):
        io.load(path)


def _not_a_model(kind: str) -> bytes:
    import io as stdlib_io
    import pickle

    if kind == "text":
        return b"hello"  # issue 23.5: 5 bytes of text
    if kind == "empty":
        return b""
    if kind == "npy":
        buffer = stdlib_io.BytesIO()
        np.save(buffer, np.zeros(3))
        return buffer.getvalue()
    return pickle.dumps({"coef": [1.0]})


@pytest.mark.parametrize("kind", ["text", "empty", "npy", "pickle"])
@pytest.mark.parametrize("read", [io.load, io.read_metadata], ids=["load", "read_metadata"])
def test_a_file_that_is_not_a_model_says_so_without_numpy_pickle_advice(tmp_path, kind, read):
    """A format sold as safe must not relay numpy's advice to load a file "unsafely using
    allow_pickle=" (what np.load says of any file that is neither a zip nor a .npy)."""
    path = tmp_path / "notes.jc"
    path.write_bytes(_not_a_model(kind))
    with pytest.raises(ValueError, match=r"notes.jc is not a jaxclassic model file") as info:
        read(path)
    assert "pickle" not in str(info.value) and "unsafe" not in str(info.value)


def test_a_zip_truncated_anywhere_is_a_clear_value_error(saved, tmp_path):
    data = saved.read_bytes()
    path = tmp_path / "cut.jc"
    for size in (2, 4, 30, len(data) // 2, len(data) - 22, len(data) - 1):
        path.write_bytes(data[:size])
        with pytest.raises(ValueError, match=r"cut.jc is not a (readable )?jaxclassic model file") as info:
            io.load(path)
        assert "unsafe" not in str(info.value), size


def test_a_corrupt_entry_is_a_clear_value_error(saved, tmp_path):
    """A flipped byte inside an array entry: the zip's CRC check names the entry."""
    data = bytearray(saved.read_bytes())
    with zipfile.ZipFile(saved) as archive:
        info = archive.getinfo("a0.npy")
    data[info.header_offset + 30 + len(info.filename) + 100] ^= 0xFF  # in a0.npy's data
    path = tmp_path / "flipped.jc"
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"flipped.jc is not a readable jaxclassic model file \(corrupt or "
                                         r"truncated: BadZipFile: Bad CRC-32 for file 'a0.npy'"):
        io.load(path)


@pytest.mark.skipif(not hasattr(os, "umask") or os.name != "posix", reason="POSIX file modes")
@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_saved_files_follow_the_umask_as_open_does(tmp_path, umask, mode):
    """Issue 23.5: model files were 0600 whatever the umask (tempfile.mkstemp's mode): they get
    0666 less the umask, as ``open(path, "w")`` gives a new file."""
    from jaxclassic.estimators import Ridge

    old = os.umask(umask)
    try:
        with open(tmp_path / "plain.txt", "w"):
            pass
        io.save(tmp_path / "params.jc", _linear().fit_ridge(X, Y_REG, alpha=1.0))
        Ridge().fit(X, Y_REG).save(tmp_path / "estimator.jc")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "plain.txt").st_mode) == mode  # the reference: open
    for name in ("params.jc", "estimator.jc"):
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == mode, name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["estimator.jc", "params.jc", "plain.txt"]


def test_npz_without_header_is_a_value_error(tmp_path):
    path = tmp_path / "plain.npz"
    np.savez(path, a=np.zeros(3))
    with pytest.raises(ValueError, match="plain.npz is not a jaxclassic model file"):
        io.load(path)


def test_pickled_object_array_is_refused(saved, tmp_path):
    """An archive entry that needs pickle is refused (never unpickled)."""
    path = tmp_path / "pickled.jc"
    with np.load(saved, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    arrays["a0"] = np.array([{"x": 1}], dtype=object)
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)
    with pytest.raises(ValueError, match="pickled.jc is not a readable jaxclassic model file.*allow_pickle"):
        io.load(path)


def test_unknown_kind_is_a_value_error(saved, tmp_path):
    path = tmp_path / "kind.jc"

    def change(h):
        h["kind"] = h["tree"]["kind"] = "os.system"
    _rewrite_header(saved, path, change)
    with pytest.raises(ValueError, match="unknown model kind 'os.system'"):
        io.load(path)


def test_unknown_nested_kind_is_a_value_error(saved, tmp_path):
    path = tmp_path / "nested.jc"

    def change(h):
        h["tree"]["v"]["coef"] = {"t": "nt", "kind": "builtins.Evil", "v": {}}
    _rewrite_header(saved, path, change)
    with pytest.raises(ValueError, match="unknown model kind 'builtins.Evil'"):
        io.load(path)


def test_newer_format_version_is_a_value_error(saved, tmp_path):
    path = tmp_path / "new.jc"
    _rewrite_header(saved, path, lambda h: h.update(format_version=io.FORMAT_VERSION + 1))
    with pytest.raises(ValueError, match=rf"format version {io.FORMAT_VERSION + 1} .*reads format versions "
                                         rf"up to {io.FORMAT_VERSION}: upgrade jaxclassic"):
        io.load(path)


def test_missing_array_entry_is_a_value_error(saved, tmp_path):
    path = tmp_path / "missing.jc"
    with np.load(saved, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files if k != "a0"}
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)
    with pytest.raises(ValueError, match="corrupt model file: array entry 'a0' is missing"):
        io.load(path)


def test_huge_declared_shape_is_a_value_error_before_allocating(saved, tmp_path):
    """An entry whose .npy header is edited to claim 10**12 float64 (8 TB) is refused by
    comparing the declared size with the entry's size, not by a MemoryError."""
    path = tmp_path / "huge.jc"
    with zipfile.ZipFile(saved) as src, zipfile.ZipFile(path, "w") as dst:
        for info in src.infolist():
            raw = src.read(info)
            if info.filename == "a0.npy":
                header = np.lib.format.header_data_from_array_1_0(np.zeros(1))
                header["shape"] = (10**12,)
                buf = __import__("io").BytesIO()
                np.lib.format.write_array_header_1_0(buf, header)
                raw = buf.getvalue() + b"\0" * 8
            dst.writestr(info.filename, raw)
    with pytest.raises(ValueError, match=r"huge.jc: corrupt jaxclassic model file: entry a0.npy declares "
                                         r"shape \(1000000000000,\) of float64"):
        io.load(path)


def test_compressed_entries_are_refused(saved, tmp_path):
    """save writes stored entries; a deflated one (a zip bomb's vehicle: its declared size is
    not bounded by the file's) is refused before it is inflated."""
    path = tmp_path / "deflated.jc"
    with zipfile.ZipFile(saved) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info))
    with pytest.raises(ValueError, match=r"deflated.jc: corrupt jaxclassic model file: entry .* is compressed"):
        io.load(path)


def test_save_to_a_missing_folder_names_the_folder(saved, tmp_path):
    with pytest.raises(FileNotFoundError, match=r"cannot save to .*absent.m.jc: no folder .*absent$"):
        io.save(tmp_path / "absent" / "m.jc", io.load(saved))


def test_path_without_suffix_is_kept_and_overwritten(saved, tmp_path):
    """numpy.savez would append .npz to a str path; the file is written where asked, and a
    second save replaces the first (no leftover temporary file)."""
    params = io.load(saved)
    path = str(tmp_path / "model")
    io.save(path, params, note="first")
    io.save(path, params, note="second")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]
    assert io.read_metadata(path)["note"] == "second"
    assert_identical(params, io.load(path))


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="no model file at .*absent.jc"):
        io.load(tmp_path / "absent.jc")


@pytest.mark.parametrize("obj, named", [
    ({"coef": np.zeros(2)}, "builtins.dict"),
    (np.zeros(3), "numpy.ndarray"),
    ((np.zeros(3),), "builtins.tuple"),
])
def test_non_params_object_is_refused(obj, named, tmp_path):
    with pytest.raises(ValueError, match=f"params must be a jaxclassic params NamedTuple .*got {named}"):
        io.save(tmp_path / "x.jc", obj)
    assert not (tmp_path / "x.jc").exists()


def test_user_namedtuple_is_refused(tmp_path):
    from typing import NamedTuple

    class Mine(NamedTuple):
        coef: np.ndarray

    with pytest.raises(TypeError, match="got tests.test_io.*Mine"):
        io.save(tmp_path / "x.jc", Mine(np.zeros(2)))


def test_callable_field_is_refused_naming_the_field(tmp_path):
    from jaxclassic.linear._params import LinearParams

    with pytest.raises(TypeError, match=r"params.intercept: cannot save an object of type builtins.function"):
        io.save(tmp_path / "x.jc", LinearParams(np.zeros(2), lambda x: x))
    assert list(tmp_path.iterdir()) == []  # no partial file


def test_gp_with_a_user_kernel_is_refused(tmp_path):
    from jaxclassic import gaussian_process

    def my_kernel(A, B):
        return jnp.exp(-jnp.sum((A[:, None] - B[None]) ** 2, -1))

    params = gaussian_process.fit_gp(X, Y_REG, kernel=my_kernel, noise=0.1)
    with pytest.raises(TypeError, match=r"got jaxclassic.gaussian_process.regression.GPParams\[my_kernel\].*made at run time"):
        io.save(tmp_path / "x.jc", params)


def test_non_json_metadata_is_a_type_error(tmp_path):
    with pytest.raises(TypeError, match="metadata when=<object .* is not JSON-serialisable"):
        io.save(tmp_path / "x.jc", _linear().fit_ols(X, Y_REG), when=object())


def test_read_metadata_converts_numpy(tmp_path):
    io.save(tmp_path / "m.jc", _linear().fit_ols(X, Y_REG), classes=np.array([0, 1]), alpha=np.float32(0.5))
    meta = io.read_metadata(tmp_path / "m.jc")
    assert meta["classes"] == [0, 1] and meta["alpha"] == 0.5
    assert meta["kind"] == "jaxclassic.linear._params.LinearParams" and meta["content"] == "params"
    assert zipfile.is_zipfile(tmp_path / "m.jc")


# --------------------------------------------------------------------------- XGBoost's JSON
@pytest.mark.full
@pytest.mark.parametrize("loss, n_classes", [("squared", None), ("log_loss", None), ("softmax", 3)])
def test_export_xgboost_predicts_bitwise_in_xgboost(loss, n_classes, tmp_path):
    """Reference: the ``xgboost`` package loading the exported JSON. Float32 fit with a NaN
    (the learned missing direction): XGBoost's margins equal ours bit for bit."""
    xgb = pytest.importorskip("xgboost")
    from jaxclassic import ensemble

    X32 = X.astype(np.float32)
    X32[3, 1] = np.nan
    y = {"squared": Y_REG, "log_loss": Y_BIN, "softmax": Y_3}[loss].astype(np.float32)
    kwargs = {"n_classes": n_classes} if n_classes else {}
    params = ensemble.fit_xgboost(X32, y, loss=loss, n_estimators=2, max_depth=2, max_bin=8, **kwargs)
    path = tmp_path / "model.json"
    document = io.export_xgboost(params, path)
    assert document["learner"]["objective"]["name"] == {
        "squared": "reg:squarederror", "log_loss": "binary:logistic", "softmax": "multi:softprob"}[loss]
    booster = xgb.Booster(model_file=str(path))
    theirs = booster.predict(xgb.DMatrix(X32), output_margin=True)
    ours = np.asarray(_dispatch.decision_function(params, X32))
    assert theirs.dtype == ours.dtype == np.float32
    assert _bits(theirs.reshape(ours.shape)) == _bits(ours)


def test_export_xgboost_refuses_other_params():
    with pytest.raises(TypeError, match="params must be XGBoostParams \\(from fit_xgboost\\), got LinearParams"):
        io.export_xgboost(_linear().fit_ols(X, Y_REG))


def _find_node(node, kind_suffix):
    """The first NamedTuple/dataclass node of a saved header whose kind ends with kind_suffix."""
    if isinstance(node, dict):
        if str(node.get("kind", "")).endswith(kind_suffix) and "v" in node:
            return node
        for value in node.values():
            found = _find_node(value, kind_suffix)
            if found is not None:
                return found
    elif isinstance(node, list):
        for value in node:
            found = _find_node(value, kind_suffix)
            if found is not None:
                return found
    return None


@pytest.mark.parametrize("name, edit", [
    # 0.1 named the neighbour count ``k`` (issue 27: ``n_neighbors``)
    ("neighbors.knn.KNNClassifierParams",
     lambda tree: _find_node(tree, "KNNConfig")["v"].__setitem__(
         "k", _find_node(tree, "KNNConfig")["v"].pop("n_neighbors"))),
    # 0.1's XGBoost params had no ``converged`` (issue 27)
    ("ensemble.xgboost.XGBoostParams",
     lambda tree: _find_node(tree, "XGBoostParams")["v"].pop("converged")),
])
def test_files_written_by_0_1_load_as_the_renamed_types(name, edit, tmp_path):
    """A file from before issue 27's renames (its header edited back to the 0.1 field names)
    loads as today's type, bitwise equal to the file written today."""
    params = _BUILDERS[f"jaxclassic.{name}"][0]()
    saved, old = tmp_path / "new.jc", tmp_path / "old.jc"
    io.save(saved, params)
    _rewrite_header(saved, old, lambda h: edit(h["tree"]))
    assert_identical(params, io.load(old))
