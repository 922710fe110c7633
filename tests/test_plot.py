"""jaxclassic.plot: each figure draws what it is given, checked on the drawn artists.

References (each test says which): scikit-learn's DecisionBoundaryDisplay grid and response,
``sklearn.metrics.roc_curve`` / ``roc_auc_score`` / ``confusion_matrix``,
``sklearn.linear_model.lasso_path`` and ``Ridge``, SciPy's ``dendrogram`` coordinates,
scikit-learn's CART (same splits on iris at depth 2), xgboost's ``evals_result``, and the
closed forms of the k-means inertia and of the Mahalanobis contour of a Gaussian ellipse.
Data are tiny and the few JAX fits reuse one shape each (suite time).
"""

import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

from jaxclassic import plot  # noqa: E402
from jaxclassic.model_selection.bias_variance import BiasVarianceResult  # noqa: E402
from jaxclassic.model_selection.curves import LearningCurveResult, ValidationCurveResult  # noqa: E402


@pytest.fixture
def ax():
    fig, axes = plt.subplots()
    yield axes
    plt.close(fig)


@pytest.fixture(scope="module")
def iris():
    from sklearn.datasets import load_iris

    return load_iris(return_X_y=True)


def _xy(line):
    return np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)


# --------------------------------------------------------------------------- optional matplotlib
@pytest.mark.full
def test_import_without_matplotlib_and_clear_error_on_call():
    # a fresh interpreter where matplotlib cannot be imported: the module imports, a figure
    # function raises an ImportError naming the extra
    code = (
        "import sys; sys.modules['matplotlib'] = None; sys.modules['matplotlib.pyplot'] = None\n"
        "import jaxclassic.plot as p\n"
        "try:\n    p.elbow(([1, 2], [2.0, 1.0]))\n"
        "except ImportError as e:\n    print('IMPORT-ERROR', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "IMPORT-ERROR jaxclassic.plot needs matplotlib: pip install 'jaxclassic[plot]'" in out.stdout


def test_ax_must_be_an_axes():
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes or None, got str"):
        plot.elbow(([1, 2], [2.0, 1.0]), ax="left")


def test_default_axes_is_pyplots_current():
    fig = plt.figure()
    try:
        assert plot.elbow(([1, 2], [2.0, 1.0])) is fig.gca()
    finally:
        plt.close(fig)


# --------------------------------------------------------------------------- decision regions
def test_decision_regions_equals_sklearn_decision_boundary_display(iris, ax):
    # reference: scikit-learn's DecisionBoundaryDisplay on the same estimator, grid and margin;
    # the labels are strings, encoded in classes_ order as scikit-learn does (exact equality)
    from sklearn.inspection import DecisionBoundaryDisplay
    from sklearn.linear_model import LogisticRegression

    X = iris[0][::5, :2]
    y = np.array(["setosa", "versicolor", "virginica"])[iris[1][::5]]
    est = LogisticRegression().fit(X, y)
    plot.decision_regions(est, X, y, ax=ax, grid_resolution=30, eps=0.5, feature_names=["a", "b"])
    fig2, ax2 = plt.subplots()
    disp = DecisionBoundaryDisplay.from_estimator(est, X, grid_resolution=30, eps=0.5,
                                                  response_method="predict", ax=ax2)
    plt.close(fig2)
    mesh = ax.collections[0]
    np.testing.assert_array_equal(np.asarray(mesh.get_array()).reshape(30, 30), disp.response)
    assert ax.get_xlim() == pytest.approx((disp.xx0.min(), disp.xx0.max()))
    assert ax.get_ylim() == pytest.approx((disp.xx1.min(), disp.xx1.max()))
    # one scatter per class, its points the rows of that class, in the class's region colour
    scatters = ax.collections[1:]
    assert len(scatters) == 3
    for code, (label, sc) in enumerate(zip(est.classes_, scatters)):
        np.testing.assert_array_equal(sc.get_offsets(), X[y == label])
        assert tuple(sc.get_facecolor()[0]) == pytest.approx(mesh.cmap(code))
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(est.classes_)
    assert len({tuple(sc.get_facecolor()[0]) for sc in scatters}) == 3
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("a", "b")


def test_decision_regions_of_a_rule_and_of_params(iris, ax):
    # a callable: the drawn codes are the rule on the grid, computed here by numpy
    X = np.array([[0.0, 0.0], [1.0, 2.0], [2.0, 1.0], [3.0, 3.0]])
    plot.decision_regions(lambda G: (G[:, 0] > G[:, 1]).astype(int), X, ax=ax, grid_resolution=7, eps=1.0)
    g0, g1 = np.meshgrid(np.linspace(-1, 4, 7), np.linspace(-1, 4, 7))
    np.testing.assert_array_equal(np.asarray(ax.collections[0].get_array()).reshape(7, 7), g0 > g1)
    assert len(ax.collections) == 1  # no y, no scatter
    # a params pytree predicts through the dispatch registry: equals its predict on the grid
    from jaxclassic.discriminant import fit_lda, predict

    Xi, yi = iris[0][:, :2], iris[1]
    params = fit_lda(Xi, yi)
    fig2, ax2 = plt.subplots()
    plot.decision_regions(params, Xi, yi, ax=ax2, grid_resolution=12)
    h0, h1 = np.meshgrid(np.linspace(Xi[:, 0].min() - 1, Xi[:, 0].max() + 1, 12),
                         np.linspace(Xi[:, 1].min() - 1, Xi[:, 1].max() + 1, 12))
    expected = np.asarray(predict(params, np.c_[h0.ravel(), h1.ravel()]))
    np.testing.assert_array_equal(np.asarray(ax2.collections[0].get_array()).ravel(), expected)
    assert len(ax2.collections) == 4
    plt.close(fig2)


def test_decision_regions_of_a_dataframe_names_its_axes_and_predicts_on_named_columns(ax):
    """scikit-learn's DecisionBoundaryDisplay labels the axes with the DataFrame's columns and
    predicts on a DataFrame grid (no "X does not have valid feature names" warning)."""
    import warnings

    pd = pytest.importorskip("pandas")
    from sklearn.linear_model import LogisticRegression

    df = pd.DataFrame({"height": [0.0, 1.0, 2.0, 3.0], "weight": [0.0, 1.0, 0.0, 1.0]})
    y = pd.Series(["no", "no", "yes", "yes"])
    est = LogisticRegression().fit(df, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot.decision_regions(est, df, y, ax=ax, grid_resolution=5)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("height", "weight")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["no", "yes"]


def test_decision_regions_needs_two_features(ax):
    with pytest.raises(ValueError, match="X must have 2 features \\(columns\\) to draw decision regions, got 3"):
        plot.decision_regions(lambda G: G[:, 0], np.zeros((4, 3)), ax=ax)


def test_decision_regions_needs_a_predictor(ax):
    with pytest.raises(TypeError, match="model must be a fitted estimator .* got int"):
        plot.decision_regions(3, np.zeros((4, 2)), ax=ax)


def test_decision_regions_rejects_grid_resolution_1(ax):
    with pytest.raises(ValueError, match="grid_resolution must be >= 2, got 1"):
        plot.decision_regions(lambda G: G[:, 0], np.zeros((4, 2)), ax=ax, grid_resolution=1)


def test_decision_regions_rejects_y_of_another_length(ax):
    with pytest.raises(ValueError, match=r"y must have shape \(4,\) like the rows of X, got \(3,\)"):
        plot.decision_regions(lambda G: G[:, 0] > 0, np.zeros((4, 2)), [0, 1, 0], ax=ax)


# --------------------------------------------------------------------------- ROC
Y_ROC = np.array([0, 0, 1, 1, 0, 1, 1, 0, 1, 0])
S_ROC = np.array([0.1, 0.4, 0.35, 0.8, 0.4, 0.7, 0.2, 0.6, 0.9, 0.3])  # a tie at 0.4


def test_roc_curve_equals_sklearn_and_marks_youden(ax):
    # reference: sklearn.metrics.roc_curve (every threshold) and roc_auc_score; the marked
    # point is the first maximiser of TPR - FPR on scikit-learn's curve (exact: same points)
    from sklearn.metrics import roc_auc_score
    from sklearn.metrics import roc_curve as sk_roc

    fpr, tpr, _ = sk_roc(Y_ROC, S_ROC, drop_intermediate=False)
    plot.roc_curve(Y_ROC, S_ROC, ax=ax, label="model")
    curve, chance, mark = ax.lines
    x, y = _xy(curve)
    np.testing.assert_allclose(x, fpr, atol=1e-12)
    np.testing.assert_allclose(y, tpr, atol=1e-12)
    assert _xy(chance)[0].tolist() == [0.0, 1.0] and _xy(chance)[1].tolist() == [0.0, 1.0]
    best = int(np.argmax(tpr - fpr))
    assert mark.get_xydata().tolist() == [[fpr[best], tpr[best]]]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0] == f"model (AUC = {roc_auc_score(Y_ROC, S_ROC):.3f})"
    assert labels[2].startswith("threshold ")
    assert ax.texts[0].get_text().startswith("t = ")


def test_roc_curve_marks_a_given_threshold(ax):
    # "positive if s >= 0.4": by hand, TP = 3 of 5 (0.8, 0.7, 0.9), FP = 3 of 5 (0.4, 0.4, 0.6)
    plot.roc_curve(Y_ROC, S_ROC, threshold=0.4, ax=ax)
    assert ax.lines[2].get_xydata().tolist() == [[0.6, 0.6]]
    fig2, ax2 = plt.subplots()
    plot.roc_curve(Y_ROC, S_ROC, threshold=None, ax=ax2)
    assert len(ax2.lines) == 2 and not ax2.texts
    plt.close(fig2)


def test_roc_curve_marks_a_threshold_result(ax):
    from jaxclassic.model_selection import choose_threshold

    chosen = choose_threshold(Y_ROC, S_ROC, "cost", cost_fp=1.0, cost_fn=5.0)
    plot.roc_curve(Y_ROC, S_ROC, threshold=chosen, ax=ax)
    assert ax.lines[2].get_xydata().tolist() == [[chosen.fpr, chosen.tpr]]


def test_roc_curve_of_string_labels_with_pos_label(ax):
    """Reference: scikit-learn's roc_curve(pos_label="yes") on the same strings (exact: the
    same points); without pos_label strings are a TypeError, a third label a ValueError."""
    from sklearn.metrics import roc_curve as sk_roc

    y = np.where(Y_ROC == 1, "yes", "no")
    fpr, tpr, _ = sk_roc(y, S_ROC, pos_label="yes", drop_intermediate=False)
    plot.roc_curve(y, S_ROC, pos_label="yes", ax=ax)
    np.testing.assert_allclose(_xy(ax.lines[0])[0], fpr, atol=1e-12)
    np.testing.assert_allclose(_xy(ax.lines[0])[1], tpr, atol=1e-12)
    with pytest.raises(TypeError, match="y_true must be numeric, got dtype <U3 \\(strings: encode them first"):
        plot.roc_curve(y, S_ROC, ax=ax)
    with pytest.raises(ValueError, match="pos_label must be one of the .*labels of y_true, got 'maybe'"):
        plot.roc_curve(y, S_ROC, pos_label="maybe", ax=ax)
    y3 = y.copy()
    y3[0] = "maybe"
    with pytest.raises(ValueError, match="pos_label must be one of the .*labels of y_true, got 'yes'"):
        plot.roc_curve(y3, S_ROC, pos_label="yes", ax=ax)


def test_roc_curve_rejects_an_unknown_criterion(ax):
    with pytest.raises(ValueError, match=r"threshold must be one of \['youden', 'cost'\], got 'median'"):
        plot.roc_curve(Y_ROC, S_ROC, threshold="median", ax=ax)


# --------------------------------------------------------------------------- confusion matrix
Y_TRUE = np.array(["cat", "dog", "dog", "bird", "cat", "dog", "bird", "cat"])
Y_PRED = np.array(["cat", "dog", "cat", "bird", "cat", "bird", "bird", "dog"])


def test_confusion_matrix_equals_sklearn(ax):
    # reference: sklearn.metrics.confusion_matrix with the same label order (exact counts)
    from sklearn.metrics import confusion_matrix as sk_cm

    labels = ["dog", "cat", "bird"]
    plot.confusion_matrix(Y_TRUE, Y_PRED, labels=labels, ax=ax)
    expected = sk_cm(Y_TRUE, Y_PRED, labels=labels)
    np.testing.assert_array_equal(ax.images[0].get_array(), expected)
    assert [t.get_text() for t in ax.texts] == [str(v) for v in expected.ravel()]
    assert [t.get_text() for t in ax.get_xticklabels()] == labels
    assert [t.get_text() for t in ax.get_yticklabels()] == labels
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Predicted label", "True label")
    assert len(ax.figure.axes) == 2  # the colour bar


def test_confusion_matrix_normalized_and_weighted_equals_sklearn(ax):
    from sklearn.metrics import confusion_matrix as sk_cm

    w = np.array([1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 0.0, 2.0])
    plot.confusion_matrix(Y_TRUE, Y_PRED, normalize="true", sample_weight=w, ax=ax, colorbar=False,
                          display_labels=["B", "C", "D"])
    expected = sk_cm(Y_TRUE, Y_PRED, normalize="true", sample_weight=w)
    np.testing.assert_allclose(ax.images[0].get_array(), expected, rtol=1e-12)
    assert [t.get_text() for t in ax.texts] == [format(v, ".2g") for v in expected.ravel()]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["B", "C", "D"]
    assert len(ax.figure.axes) == 1


def test_confusion_matrix_rejects_unknown_normalize(ax):
    with pytest.raises(ValueError, match=r"normalize must be one of \[None, 'true', 'pred', 'all'\], got 'rows'"):
        plot.confusion_matrix(Y_TRUE, Y_PRED, normalize="rows", ax=ax)


def test_confusion_matrix_rejects_a_label_outside_labels(ax):
    with pytest.raises(ValueError, match=r"y_true holds labels outside the classes \['cat', 'dog'\]: \['bird'\]"):
        plot.confusion_matrix(Y_TRUE, Y_PRED, labels=["cat", "dog"], ax=ax)


# --------------------------------------------------------------------------- regularisation path
@pytest.fixture(scope="module")
def diabetes():
    from sklearn.datasets import load_diabetes

    return load_diabetes(return_X_y=True)


def test_regularization_path_of_lasso_equals_sklearn(diabetes, ax):
    # reference: sklearn.linear_model.lasso_path on centred data, where our fit_intercept=False
    # is its objective exactly; both converged to tol 1e-12: 1e-5 as tests/linear/test_lasso.py
    # (the same call, so the same compiled program)
    from sklearn.linear_model import lasso_path as sk_lasso_path

    from jaxclassic.linear import lasso_path

    X, y = diabetes
    Xc, yc = X - X.mean(0), y - y.mean()
    path = lasso_path(Xc, yc, alphas=np.array([0.05, 1.0, 0.2]), fit_intercept=False, tol=1e-12,
                      max_iter=20000)
    ref_alphas, ref_coefs, _ = sk_lasso_path(Xc, yc, alphas=[1.0, 0.2, 0.05], tol=1e-12, max_iter=20000)
    plot.regularization_path(path, feature_names=[f"f{j}" for j in range(10)], ax=ax)
    assert len(ax.lines) == 10 and ax.get_xscale() == "log"
    for j, line in enumerate(ax.lines):
        x, coef = _xy(line)
        np.testing.assert_allclose(x, ref_alphas, rtol=1e-12)
        np.testing.assert_allclose(coef, ref_coefs[j], atol=1e-5)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [f"f{j}" for j in range(10)]


def test_regularization_path_of_ridge_equals_sklearn(diabetes, ax):
    # reference: weighted sklearn Ridge (same penalty scaling) at each alpha, Cholesky solves:
    # 1e-6 relative as tests/linear/test_ridge.py (the same ridge_path call and program)
    from sklearn.linear_model import Ridge

    from jaxclassic.linear import ridge_path

    X, y = diabetes
    w = np.random.RandomState(0).uniform(0.2, 2.0, len(y))
    alphas = np.array([1e-3, 1e-1, 1.0, 10.0, 1e3])
    plot.regularization_path(ridge_path(X, y, alphas, sample_weight=w), alphas, ax=ax, legend=False)
    expected = np.array([Ridge(alpha=a, solver="cholesky").fit(X, y, sample_weight=w).coef_ for a in alphas])
    for j, line in enumerate(ax.lines):
        np.testing.assert_allclose(_xy(line)[1], expected[:, j], rtol=1e-6, atol=1e-9)
    assert ax.get_legend() is None


@pytest.mark.full
def test_regularization_path_needs_alphas_for_ridge(ax):
    from jaxclassic.linear._params import LinearParams

    params = LinearParams(np.zeros((2, 3)), np.zeros(2))
    with pytest.raises(ValueError, match="alphas must be given for a LinearParams"):
        plot.regularization_path(params, ax=ax)


def test_regularization_path_rejects_zero_alpha_on_a_log_scale(ax):
    from jaxclassic.linear._params import LinearParams

    with pytest.raises(ValueError, match="alphas must be > 0 on a log scale"):
        plot.regularization_path(LinearParams(np.zeros((2, 3)), np.zeros(2)), [0.0, 1.0], ax=ax)


def test_regularization_path_rejects_alphas_of_another_length(ax):
    from jaxclassic.linear._params import LinearParams

    with pytest.raises(ValueError, match=r"alphas must hold one penalty per row of the coefficients \(2\), got 3"):
        plot.regularization_path(LinearParams(np.zeros((2, 3)), np.zeros(2)), [1.0, 2.0, 3.0], ax=ax)


# --------------------------------------------------------------------------- learning / validation
def _band_limits(collection):
    """Lowest and highest y of a fill_between band at each of its x values."""
    vertices = collection.get_paths()[0].vertices
    return vertices[:, 0], vertices[:, 1]


@pytest.mark.full
def test_learning_curve_draws_fold_means_and_bands(ax):
    # a jaxclassic learning_curve (tests/model_selection/test_curves.py's call: the same
    # compiled program); reference: scikit-learn's learning_curve with Ridge on the same folds,
    # whose fold means the lines equal (1e-10, the closed-form fits agree to that)
    import jax
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import learning_curve as sk_learning_curve

    from jaxclassic.model_selection import fold_indices, kfold_weights, learning_curve
    from tests.model_selection._fits import N_FOLDS, N_SAMPLES, neg_mse, regression_data, ridge_fit

    X, y = regression_data(0)
    folds = kfold_weights(N_SAMPLES, N_FOLDS, key=jax.random.key(0))
    fractions = np.array([0.25, 0.5, 0.75, 1.0])
    result = learning_curve(ridge_fit, neg_mse, X, y, folds, fractions, hyperparameters={"alpha": 1.0})
    sizes, train, val = sk_learning_curve(Ridge(alpha=1.0), X, y, cv=fold_indices(folds),
                                          train_sizes=fractions, scoring="neg_mean_squared_error")
    plot.learning_curve(result, ax=ax, score_name="-MSE")
    for line, scores in zip(ax.lines, (train, val)):
        x, mean = _xy(line)
        np.testing.assert_array_equal(x, sizes)
        np.testing.assert_allclose(mean, scores.mean(axis=1), rtol=1e-10)
    for band, scores in zip(ax.collections, (train, val)):
        xs, ys = _band_limits(band)
        for size, m, sd in zip(sizes, scores.mean(axis=1), scores.std(axis=1)):
            at = ys[xs == size]
            assert at.min() == pytest.approx(m - sd, rel=1e-9) and at.max() == pytest.approx(m + sd, rel=1e-9)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["training", "validation"]
    assert ax.get_ylabel() == "-MSE"


def test_learning_curve_of_a_result_ignores_nan_folds(ax):
    result = LearningCurveResult(np.array([4, 8]), np.array([[1.0, 0.5, np.nan], [0.5, 0.5, 0.5]]),
                                 np.array([[0.25, 0.75, 0.5], [np.nan, 0.5, 1.0]]))
    plot.learning_curve(result, ax=ax)
    assert _xy(ax.lines[0])[1].tolist() == [0.75, 0.5]
    assert _xy(ax.lines[1])[1].tolist() == [0.5, 0.75]


def test_learning_curve_rejects_scores_of_another_length(ax):
    with pytest.raises(ValueError, match=r"val_scores must have one row per point of the curve \(2\), got 3"):
        plot.learning_curve(([1, 2], np.zeros((2, 3)), np.zeros((3, 3))), ax=ax)


@pytest.mark.full
def test_validation_curve_numeric_and_named_values(ax):
    result = ValidationCurveResult(np.array([0.01, 0.1, 1.0]), np.array([[1.0, 0.5], [0.5, 0.5], [0.25, 0.25]]),
                                   np.array([[0.5, 0.5], [0.75, 0.5], [0.25, 0.5]]))
    plot.validation_curve(result, param_name="alpha", log_scale=True, ax=ax)
    assert _xy(ax.lines[0])[0].tolist() == [0.01, 0.1, 1.0]
    assert _xy(ax.lines[1])[1].tolist() == [0.5, 0.625, 0.375]
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "alpha"
    fig2, ax2 = plt.subplots()
    plot.validation_curve((["gini", "entropy"], [[1.0], [0.5]], [[0.5], [0.25]]), ax=ax2)
    assert _xy(ax2.lines[0])[0].tolist() == [0.0, 1.0]
    assert [t.get_text() for t in ax2.get_xticklabels()] == ["gini", "entropy"]
    plt.close(fig2)


# --------------------------------------------------------------------------- bias-variance
def _bv(b, v, n, e, se):
    return BiasVarianceResult(None, None, None, None, b, v, n, e, se, None, None)


def test_bias_variance_draws_terms_sum_and_simulated_error(ax):
    b, v = np.array([0.5, 0.2, 0.1]), np.array([0.05, 0.1, 0.3])
    results = [_bv(bi, vi, 0.1, bi + vi + 0.11, 0.02) for bi, vi in zip(b, v)]
    plot.bias_variance([1, 3, 5], results, xlabel="degree", ax=ax)
    bias_line, var_line, noise_line, total, simulated = ax.lines[:5]  # then the error bars' caps
    assert _xy(bias_line)[1].tolist() == b.tolist()
    assert _xy(var_line)[1].tolist() == v.tolist()
    assert _xy(noise_line)[1].tolist() == [0.1] * 3
    np.testing.assert_allclose(_xy(total)[1], b + v + 0.1, rtol=1e-15)
    np.testing.assert_allclose(_xy(simulated)[1], b + v + 0.11, rtol=1e-15)
    bars = ax.collections[0].get_segments()  # the ± standard error bars
    np.testing.assert_allclose([np.ptp(seg[:, 1]) for seg in bars], [0.04] * 3, rtol=1e-12)
    assert ax.get_xlabel() == "degree"
    assert [t.get_text() for t in ax.get_legend().get_texts()][:2] == ["bias²", "variance"]


def test_bias_variance_of_simulated_decompositions(ax):
    # real results: tests/model_selection/test_bias_variance.py's degree-5 polynomial ridge
    # over five penalties (its compiled program), drawn against the complexity 1/alpha; the
    # lines are the results' averages, variance rises and bias² falls with the complexity
    # (ESL Figure 7.2), and the drawn sum lies within 4 standard errors of the simulated error
    from tests.model_selection.test_bias_variance import _run

    alphas = np.array([10.0, 1.0, 1e-1, 1e-2, 1e-3])
    results = [_run(5, float(alpha)) for alpha in alphas]
    plot.bias_variance(1 / alphas, results, xlabel="1 / alpha", log_scale=True, ax=ax)
    bias_line, var_line, _, total, simulated = ax.lines[:5]
    np.testing.assert_array_equal(_xy(bias_line)[1], [float(r.avg_bias_sq) for r in results])
    np.testing.assert_array_equal(_xy(var_line)[1], [float(r.avg_variance) for r in results])
    np.testing.assert_array_equal(_xy(simulated)[1], [float(r.avg_expected_error) for r in results])
    assert np.all(np.diff(_xy(var_line)[1]) > 0) and np.all(np.diff(_xy(bias_line)[1]) < 0)
    se = np.array([float(r.expected_error_se) for r in results])
    assert np.all(np.abs(_xy(total)[1] - _xy(simulated)[1]) < 4 * se)


def test_bias_variance_of_a_vmapped_result(ax):
    # one result with a leading complexity axis (a vmap over a hyperparameter) draws the same
    stacked = _bv(np.array([0.5, 0.1]), np.array([0.1, 0.4]), np.array([0.1, 0.1]),
                  np.array([0.7, 0.6]), np.array([0.01, 0.01]))
    plot.bias_variance([0.1, 10.0], stacked, log_scale=True, ax=ax)
    assert _xy(ax.lines[3])[1].tolist() == pytest.approx([0.7, 0.6])
    assert ax.get_xscale() == "log"


def test_bias_variance_rejects_a_result_count_mismatch(ax):
    with pytest.raises(ValueError, match=r"results must hold one decomposition per complexity \(3\)"):
        plot.bias_variance([1, 2, 3], [_bv(0.1, 0.1, 0.1, 0.3, 0.01)] * 2, ax=ax)


def test_bias_variance_rejects_other_results(ax):
    with pytest.raises(TypeError, match="results must be BiasVarianceResult values, got float"):
        plot.bias_variance([1, 2], [0.1, 0.2], ax=ax)


# --------------------------------------------------------------------------- elbow
@pytest.mark.full
def test_elbow_of_kmeans_elbow_equals_closed_forms(ax):
    # the k = 1 inertia is the total sum of squares; k = 3 on these points is the within-pair
    # sums ({0, .2}, {5, 5.2}, {9}): closed forms, to float64 rounding
    from jaxclassic.cluster import kmeans_elbow

    import jax

    X = np.array([[0.0], [0.2], [5.0], [5.2], [9.0]])
    result = kmeans_elbow(X, [1, 2, 3], key=jax.random.key(0))
    plot.elbow(result, mark=3, ax=ax)
    x, inertia = _xy(ax.lines[0])
    assert x.tolist() == [1.0, 2.0, 3.0]
    np.testing.assert_allclose(inertia, np.asarray(result.inertia), rtol=1e-15)
    np.testing.assert_allclose(inertia[[0, 2]], [np.sum((X - X.mean()) ** 2), 0.04], rtol=1e-9)
    assert _xy(ax.lines[1])[0].tolist() == [3.0, 3.0]  # the marked k
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "3"]


def test_elbow_rejects_lengths_that_differ(ax):
    with pytest.raises(ValueError, match=r"inertia must hold one value per k \(3\), got 2"):
        plot.elbow(([1, 2, 3], [3.0, 1.0]), ax=ax)


# --------------------------------------------------------------------------- dendrogram
def test_dendrogram_equals_scipy_layout(ax):
    # reference: scipy.cluster.hierarchy.dendrogram(no_plot=True): the same U per merge
    # (icoord, dcoord) and the same leaf order (ivl), exactly
    from scipy.cluster import hierarchy

    rng = np.random.default_rng(2)
    Z = hierarchy.linkage(rng.normal(size=(12, 2)), method="average")
    names = [f"r{i}" for i in range(12)]
    ref = hierarchy.dendrogram(Z, no_plot=True, labels=names)
    plot.dendrogram(Z, labels=names, cut_height=1.0, ax=ax)
    drawn = sorted(map(tuple, (seg.ravel().round(12) for seg in ax.collections[0].get_segments())))
    expected = sorted(tuple(np.column_stack([i, d]).ravel().round(12))
                      for i, d in zip(ref["icoord"], ref["dcoord"]))
    assert drawn == expected
    assert [t.get_text() for t in ax.get_xticklabels()] == ref["ivl"]
    assert _xy(ax.lines[0])[1].tolist() == [1.0, 1.0]  # the cut


@pytest.mark.parametrize("threshold", [0.5, 1.2, 3.0])
def test_dendrogram_colours_equal_scipys_color_threshold(threshold, ax):
    # reference: SciPy's color_list for the same color_threshold (its default palette C1..C9,
    # above_threshold_color C0), merge by merge
    from matplotlib.colors import to_rgba
    from scipy.cluster import hierarchy

    rng = np.random.default_rng(5)
    Z = hierarchy.linkage(np.r_[rng.normal(size=(8, 2)), rng.normal(size=(8, 2)) + 3], method="complete")
    ref = hierarchy.dendrogram(Z, no_plot=True, color_threshold=threshold)
    plot.dendrogram(Z, color_threshold=threshold, ax=ax)
    lines = ax.collections[0]
    drawn = sorted((tuple(seg.ravel().round(12)), to_rgba(c)) for seg, c in
                   zip(lines.get_segments(), lines.get_edgecolor()))
    expected = sorted((tuple(np.column_stack([i, d]).ravel().round(12)), to_rgba(c))
                      for i, d, c in zip(ref["icoord"], ref["dcoord"], ref["color_list"]))
    assert drawn == expected
    assert len({c for _, c in drawn}) > 1


def test_dendrogram_of_agglomerative_left_orientation(ax):
    # our linkage matrix is SciPy's layout: the same drawing as SciPy's on SciPy's matrix
    from scipy.cluster import hierarchy

    from jaxclassic.cluster import fit_agglomerative

    X = np.array([[0.0], [1.0], [5.0], [7.0]])
    plot.dendrogram(fit_agglomerative(X, linkage="single").linkage_matrix, orientation="left", ax=ax)
    ref = hierarchy.dendrogram(hierarchy.linkage(X, method="single"), no_plot=True)
    drawn = sorted(tuple(seg[:, ::-1].ravel()) for seg in ax.collections[0].get_segments())
    expected = sorted(tuple(np.column_stack([i, d]).ravel()) for i, d in zip(ref["icoord"], ref["dcoord"]))
    assert drawn == expected
    assert [t.get_text() for t in ax.get_yticklabels()] == ref["ivl"]
    assert ax.get_xlim()[0] > ax.get_xlim()[1]  # root on the left


def test_dendrogram_rejects_three_columns(ax):
    with pytest.raises(ValueError, match=r"Z must have 4 columns \(a linkage matrix\), got shape \(2, 3\)"):
        plot.dendrogram(np.zeros((2, 3)), ax=ax)


def test_dendrogram_of_an_estimator_asks_for_the_linkage_matrix(ax):
    class Fitted:  # stands for a fitted AgglomerativeClustering (children_, distances_)
        children_ = np.array([[0, 1]])

    with pytest.raises(TypeError, match=r"Z must be a linkage matrix .*got the estimator Fitted"):
        plot.dendrogram(Fitted(), ax=ax)


def test_dendrogram_rejects_a_cluster_merged_twice(ax):
    Z = np.array([[0.0, 1.0, 1.0, 2.0], [0.0, 3.0, 2.0, 2.0], [4.0, 5.0, 3.0, 4.0]])
    with pytest.raises(ValueError, match="Z merges a cluster twice"):
        plot.dendrogram(Z, ax=ax)


def test_dendrogram_rejects_labels_of_another_length(ax):
    Z = np.array([[0.0, 1.0, 1.0, 2.0], [2.0, 3.0, 2.0, 2.0], [4.0, 5.0, 4.0, 4.0]])
    with pytest.raises(ValueError, match="labels must hold 4 names, got 2"):
        plot.dendrogram(Z, labels=["a", "b"], ax=ax)


# --------------------------------------------------------------------------- CART tree
@pytest.fixture(scope="module")
def iris_tree(iris):
    from jaxclassic.tree import fit_cart

    # iris's first three features and a constant one (never split): the shapes and settings of
    # tests/tree/test_export.py's fit, so the same compiled program
    return fit_cart(np.c_[iris[0][:, :3], np.zeros(150)], iris[1], max_depth=2)


@pytest.mark.full
def test_tree_draws_the_splits_of_sklearns_cart(iris, iris_tree, ax):
    # reference: scikit-learn's CART at depth 2 on iris's first three features (and a constant
    # one) makes the same
    # splits (< 255 distinct values bin exactly; no tie in the gain there, unlike with petal
    # width, which ties petal length at the root): same features, node sizes and leaf classes
    # in depth-first order, thresholds to the 2 printed decimals; every node's impurity,
    # samples, class counts and class as sklearn.tree.plot_tree prints them (counts exact,
    # the Gini impurity to the 2 printed decimals)
    from sklearn.tree import DecisionTreeClassifier

    from jaxclassic.tree import export_text

    X = np.c_[iris[0][:, :3], np.zeros(150)]
    sk = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, iris[1]).tree_
    names = ["sl", "sw", "pl", "zero"]
    plot.tree(iris_tree, feature_names=names, class_names=["setosa", "versicolor", "virginica"], ax=ax)
    texts = [t.get_text().splitlines() for t in ax.texts]
    assert len(texts) == sk.node_count == int(iris_tree.n_nodes)
    for node, lines in enumerate(texts):  # sklearn numbers nodes depth-first, left first
        counts = np.rint(sk.value[node, 0] * sk.weighted_n_node_samples[node]).astype(int)
        cls = ["setosa", "versicolor", "virginica"][int(np.argmax(sk.value[node]))]
        assert lines[-4:] == [f"impurity = {sk.impurity[node]:.2f}", f"samples = {sk.n_node_samples[node]}",
                              f"value = [{', '.join(str(c) for c in counts)}]", f"class = {cls}"]
        if sk.children_left[node] >= 0:
            name, op, value = lines[0].split()
            assert (name, op) == (names[sk.feature[node]], "<=")
            assert float(value) == pytest.approx(sk.threshold[node], abs=6e-3)  # 2 decimals
        else:
            assert len(lines) == 4  # no test at a leaf
    # the split rules read as export_text prints them
    rules = [line.split("|--- ")[1] for line in export_text(iris_tree, names).splitlines()
             if "<=" in line]
    assert [lines[0] for lines in texts if "<=" in lines[0]] == rules
    assert len(ax.collections[0].get_segments()) == sk.node_count - 1
    leaf_colours = {to_rgba(t.get_bbox_patch().get_facecolor())[:3] for t in ax.texts
                    if t.get_text().startswith("impurity")}
    assert len(leaf_colours) == 3


@pytest.mark.full
def test_tree_cut_at_max_depth(iris_tree, ax):
    # depth 1 of iris: the root split, the pure setosa leaf, and the cut right subtree
    plot.tree(iris_tree, max_depth=1, ax=ax)
    first_lines = [t.get_text().splitlines()[0] for t in ax.texts]
    assert first_lines[0].startswith("feature_") and first_lines[1:] == ["impurity = 0.00", "(...)"]
    assert ax.texts[1].get_text().splitlines()[-1] == "class = 0"
    assert len(ax.collections[0].get_segments()) == 2


def test_tree_of_id3_is_quinlans_play_tennis_tree(ax):
    # reference: Quinlan (1986), Figure 2 — outlook at the root; overcast: yes; rain: wind
    # (strong no, weak yes); sunny: humidity (high no, normal yes); the branch labels read as
    # export_text prints the tests. fit_id3 on this table is export_text's doctest program.
    from jaxclassic.datasets import load_play_tennis
    from jaxclassic.tree import export_text, fit_id3

    tennis = load_play_tennis()
    X, y, names, target, cats = (tennis.data, tennis.target, tennis.feature_names,
                                 tennis.target_names, tennis.categories)
    params = fit_id3(X, y)
    plot.tree(params, feature_names=names, class_names=target, category_names=cats, ax=ax)
    n_nodes = int(params.n_nodes)
    boxes = [t.get_text().splitlines() for t in ax.texts[:n_nodes]]
    assert [b[0] for b in boxes] == ["outlook", "class: yes", "wind", "class: no", "class: yes",
                                     "humidity", "class: no", "class: yes"]
    assert [b[1] for b in boxes] == [f"samples = {n}" for n in (14, 4, 5, 2, 3, 5, 3, 2)]
    edge_labels = [t.get_text() for t in ax.texts[n_nodes:]]  # parent by parent, branch order
    assert edge_labels == ["= overcast", "= rain", "= sunny", "= strong", "= weak", "= high", "= normal"]
    tests = [line.lstrip("| ").split(":")[0].split(" ", 1)[1]
             for line in export_text(params, names, target, category_names=cats).splitlines()]
    assert sorted(edge_labels) == sorted(tests)
    assert len(ax.collections[0].get_segments()) == n_nodes - 1


def test_tree_of_c45_is_j48s_golf_tree(ax):
    # reference: J48's published tree on weather.numeric (Witten & Frank): outlook; sunny:
    # humidity <= 75 (yes) / > 75 (no); overcast: yes; rainy: windy = FALSE yes / TRUE no.
    # The fit is tests/tree/test_c45.py's on the same table.
    from jaxclassic.tree import fit_c45

    outlook = [2, 2, 0, 1, 1, 1, 0, 2, 2, 1, 2, 0, 0, 1]
    temperature = [85, 80, 83, 70, 68, 65, 64, 72, 69, 75, 75, 72, 81, 71]
    humidity = [85, 90, 86, 96, 80, 70, 65, 95, 70, 80, 70, 90, 75, 91]
    windy = [0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1]
    X = np.array([outlook, temperature, humidity, windy], float).T
    y = np.array([0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0])
    params = fit_c45(X, y, categorical=np.array([True, False, False, True]))
    plot.tree(params, feature_names=["outlook", "temperature", "humidity", "windy"],
              class_names=["no", "yes"], ax=ax,
              category_names={"outlook": ["overcast", "rainy", "sunny"], "windy": ["FALSE", "TRUE"]})
    boxes = [t.get_text().splitlines()[0] for t in ax.texts[:8]]
    assert boxes == ["outlook", "class: yes", "windy", "class: yes", "class: no", "humidity",
                     "class: yes", "class: no"]
    assert [t.get_text() for t in ax.texts[8:]] == ["= overcast", "= rainy", "= sunny", "= FALSE",
                                                    "= TRUE", "<= 75", "> 75"]


@pytest.mark.full
def test_tree_of_a_fitted_estimator_draws_its_params_with_its_names(iris, ax):
    # issue 23.5: plot.tree refused a fitted estimator (the other figures take one). Reference:
    # the same drawing of the estimator's params_ given its column names and classes_ by hand
    pd = pytest.importorskip("pandas")
    from jaxclassic.estimators import DecisionTreeClassifier

    names = ["sepal length", "sepal width", "petal length", "petal width"]
    labels = np.array(["setosa", "versicolor", "virginica"])[iris[1]]
    estimator = DecisionTreeClassifier(max_depth=2).fit(pd.DataFrame(iris[0], columns=names), labels)
    plot.tree(estimator, ax=ax)
    drawn = [t.get_text() for t in ax.texts]
    fig, by_hand = plt.subplots()
    try:
        plot.tree(estimator.params_, feature_names=names, class_names=list(estimator.classes_), ax=by_hand)
        # the same boxes, but the estimator names its impurity by its criterion
        assert [t.replace("gini = ", "impurity = ") for t in drawn] == [t.get_text() for t in by_hand.texts]
    finally:
        plt.close(fig)
    assert drawn[0].startswith("petal ") and "class = setosa" in drawn[1]
    assert drawn[0].splitlines()[1].startswith("gini = ")  # the estimator's criterion names the impurity


def test_tree_node_texts_read_as_sklearn_plot_tree(ax):
    # hand derivation on four rows, two classes split at x <= 1.5: the root's Gini impurity
    # 1 - 2 (1/2)^2 = 0.5 over counts [2, 2], two pure leaves (Gini 0); plot_tree's wording
    from jaxclassic.tree import fit_cart

    X = np.array([[0.0, 5.0], [1.0, 4.0], [2.0, 4.0], [3.0, 5.0]])
    plot.tree(fit_cart(X, np.array([0, 0, 1, 1])), feature_names=["u", "v"], class_names=["no", "yes"], ax=ax)
    assert [t.get_text() for t in ax.texts] == [
        "u <= 1.50\nimpurity = 0.50\nsamples = 4\nvalue = [2, 2]\nclass = no",
        "impurity = 0.00\nsamples = 2\nvalue = [2, 0]\nclass = no",
        "impurity = 0.00\nsamples = 2\nvalue = [0, 2]\nclass = yes"]


@pytest.mark.full
def test_tree_of_a_regressor_reads_as_sklearn_plot_tree(iris, ax):
    # reference: scikit-learn's regression tree at depth 1 on iris (sepal length from the
    # rest): same split, squared error, samples and mean per node, to the 2 printed decimals
    from sklearn.tree import DecisionTreeRegressor as SkTree

    from jaxclassic.estimators import DecisionTreeRegressor

    X, y = iris[0][:, 1:], iris[0][:, 0]
    sk = SkTree(max_depth=1).fit(X, y).tree_
    plot.tree(DecisionTreeRegressor(max_depth=1).fit(X, y), ax=ax)
    texts = [t.get_text().splitlines() for t in ax.texts]
    for node, lines in enumerate(texts):
        assert lines[-3:] == [f"squared_error = {sk.impurity[node]:.2f}", f"samples = {sk.n_node_samples[node]}",
                              f"value = {sk.value[node, 0, 0]:.2f}"]


def test_tree_of_an_unfitted_estimator_says_so(ax):
    from sklearn.exceptions import NotFittedError

    from jaxclassic.estimators import DecisionTreeRegressor

    with pytest.raises(NotFittedError, match="This DecisionTreeRegressor instance is not fitted yet"):
        plot.tree(DecisionTreeRegressor(), ax=ax)


def test_tree_rejects_other_params(ax):
    with pytest.raises(TypeError, match="params must be a fitted decision tree .* got tuple"):
        plot.tree((1, 2), ax=ax)


def test_tree_rejects_wrong_feature_names(iris_tree, ax):
    with pytest.raises(ValueError, match="feature_names must hold 4 names, got 2"):
        plot.tree(iris_tree, feature_names=["a", "b"], ax=ax)


# --------------------------------------------------------------------------- boosting log
@pytest.mark.full
def test_boosting_eval_log_of_xgboost_fit(ax):
    # the drawn series are the fit's per-round mean losses, the marked round its best; the
    # validation line equals xgboost's rmse log on the same data (sqrt(2 x mean half squared
    # error), xgboost in float32: 1e-4). The fit is tests/ensemble/test_xgboost.py's
    # early-stopping case (same data and settings: the same compiled program).
    xgb = pytest.importorskip("xgboost")
    from jaxclassic.ensemble import fit_xgboost

    def data(seed):
        rng = np.random.default_rng(seed)
        X = np.round(rng.normal(size=(300, 4)) * 4) / 4
        return X, X[:, 0] + 0.5 * X[:, 1] ** 2 - 0.5 * X[:, 2] + rng.normal(size=300) * 0.3

    (X, y), (Xv, yv) = data(0), data(1)
    kw = dict(n_estimators=60, max_depth=3, learning_rate=0.6, reg_lambda=1.5, reg_alpha=0.0,
              gamma=0.0, min_child_weight=5.0)
    params = fit_xgboost(X, y, base_score=0.5, eval_set=(Xv, yv), early_stopping_rounds=3, **kw)
    theirs = xgb.XGBRegressor(base_score=0.5, early_stopping_rounds=3, tree_method="hist", max_bin=256,
                              n_jobs=1, **kw).fit(X, y, eval_set=[(Xv, yv)], verbose=False)
    plot.boosting_eval_log(params, ax=ax)
    n = int(params.n_iter)
    train, valid, best = ax.lines
    assert _xy(train)[0].tolist() == list(range(1, n + 1))
    np.testing.assert_array_equal(_xy(train)[1], np.asarray(params.train_loss)[:n])
    np.testing.assert_array_equal(_xy(valid)[1], np.asarray(params.eval_loss)[:n])
    np.testing.assert_allclose(np.sqrt(2 * _xy(valid)[1]), theirs.evals_result()["validation_0"]["rmse"],
                               rtol=1e-4)
    assert _xy(best)[0].tolist() == [theirs.best_iteration + 1] * 2
    assert [t.get_text() for t in ax.get_legend().get_texts()][:2] == ["training", "validation"]
    assert np.all(np.diff(_xy(train)[1]) <= 1e-12)  # training loss never rises


def test_boosting_eval_log_of_xgboost_evals_result(ax):
    # xgboost's own nested evals_result(): one line per set and metric, its values as given
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2))
    y = X[:, 0] + 0.1 * rng.normal(size=40)
    model = xgb.XGBRegressor(n_estimators=5, max_depth=2, n_jobs=1)
    model.fit(X[:30], y[:30], eval_set=[(X[:30], y[:30]), (X[30:], y[30:])], verbose=False)
    log = model.evals_result()
    plot.boosting_eval_log(log, ax=ax, log_scale=True)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["validation_0 rmse", "validation_1 rmse"]
    for line, name in zip(ax.lines, ("validation_0", "validation_1")):
        np.testing.assert_allclose(_xy(line)[1], log[name]["rmse"], rtol=1e-15)
    assert ax.get_yscale() == "log"


def test_boosting_eval_log_rejects_other_objects(ax):
    with pytest.raises(TypeError, match="log must be a boosting fit's params .* got list"):
        plot.boosting_eval_log([0.3, 0.2], ax=ax)


# --------------------------------------------------------------------------- GMM ellipses
def _mahalanobis_on_ellipse(ellipse, mean, precision):
    """Squared Mahalanobis distance of the drawn outline's points (display -> data coords)."""
    # the unit circle is 8 cubic Bézier arcs: every third vertex lies on the curve
    path = ellipse.get_patch_transform().transform(ellipse.get_path().vertices[:-1:3])
    d = path - mean
    return np.einsum("ni,ij,nj->n", d, precision, d)


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_gmm_ellipses_are_the_mahalanobis_contours(covariance_type, ax):
    # reference: scikit-learn's fitted mixture and its precisions_ (the inverse covariances,
    # computed by scikit-learn): every point of the r-sigma outline has (x-mu)' P (x-mu) = r²
    # to rounding (1e-12) at the outline's on-curve points
    from sklearn.mixture import GaussianMixture

    rng = np.random.default_rng(4)
    X = np.concatenate([rng.normal(size=(30, 2)) @ [[1.0, 0.6], [0.0, 0.5]], rng.normal(size=(30, 2)) + 4])
    gmm = GaussianMixture(2, covariance_type=covariance_type, random_state=0).fit(X)
    plot.gmm_ellipses(gmm, X, n_std=(1.0, 2.0), ax=ax)
    assert len(ax.patches) == 4
    precisions = {"full": lambda k: gmm.precisions_[k], "tied": lambda k: gmm.precisions_,
                  "diag": lambda k: np.diag(gmm.precisions_[k]),
                  "spherical": lambda k: np.eye(2) * gmm.precisions_[k]}[covariance_type]
    for i, ellipse in enumerate(ax.patches):
        k, r = divmod(i, 2)
        assert ellipse.center == pytest.approx(tuple(gmm.means_[k]))
        m2 = _mahalanobis_on_ellipse(ellipse, gmm.means_[k], precisions(k))
        np.testing.assert_allclose(m2, (r + 1.0) ** 2, rtol=1e-12)
    means = ax.collections[-1]
    np.testing.assert_allclose(means.get_offsets(), gmm.means_)
    assert len({tuple(c) for c in means.get_facecolor()}) == 2
    assert {to_rgba(e.get_edgecolor()) for e in ax.patches} == {tuple(c) for c in means.get_facecolor()}


def test_gmm_ellipses_of_gmm_params_on_chosen_features(ax):
    # a FullGMMParams in 3-D drawn on features (2, 0): the 2x2 block of those features
    from jaxclassic.cluster.gmm import FullGMMParams

    cov = np.array([[[2.0, 0.3, 0.5], [0.3, 1.0, 0.0], [0.5, 0.0, 1.5]]])
    means = np.array([[1.0, 2.0, 3.0]])
    params = FullGMMParams(np.ones(1), means, cov, None, True, 1, 0.0, np.zeros(1))
    plot.gmm_ellipses(params, n_std=[1.5], features=(2, 0), ax=ax)
    (ellipse,) = ax.patches
    block = cov[0][np.ix_([2, 0], [2, 0])]
    m2 = _mahalanobis_on_ellipse(ellipse, means[0, [2, 0]], np.linalg.inv(block))
    np.testing.assert_allclose(m2, 1.5**2, rtol=1e-12)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x2", "x0")


def test_gmm_ellipses_rejects_the_same_feature_twice(ax):
    from types import SimpleNamespace

    gmm = SimpleNamespace(means=np.zeros((1, 2)), covariances=np.ones(1), covariance_type="spherical")
    with pytest.raises(ValueError, match=r"features must name two different features, got \(1, 1\)"):
        plot.gmm_ellipses(gmm, features=(1, 1), ax=ax)


def test_gmm_ellipses_rejects_a_radius_of_zero(ax):
    from types import SimpleNamespace

    gmm = SimpleNamespace(means=np.zeros((1, 2)), covariances=np.ones(1), covariance_type="spherical")
    with pytest.raises(ValueError, match="n_std must be > 0.0, got 0.0"):
        plot.gmm_ellipses(gmm, n_std=[1.0, 0.0], ax=ax)


def test_gmm_ellipses_rejects_a_non_mixture(ax):
    with pytest.raises(TypeError, match="model must be a fitted Gaussian mixture .* got dict"):
        plot.gmm_ellipses({}, ax=ax)


# --------------------------------------------------------------------------- names, legends, layout (issue 28)
def test_decision_regions_class_names_label_the_legend(ax):
    X = np.array([[0.0, 0.0], [1.0, 2.0], [2.0, 1.0], [3.0, 3.0]])
    plot.decision_regions(lambda G: (G[:, 0] > G[:, 1]).astype(int), X, [0, 0, 1, 1], ax=ax, grid_resolution=5,
                          class_names=["left", "right"], feature_names=["width", "height"])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["left", "right"]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("width", "height")
    with pytest.raises(ValueError, match="class_names must hold 2 names, got 3"):
        plot.decision_regions(lambda G: (G[:, 0] > G[:, 1]).astype(int), X, [0, 0, 1, 1], ax=ax,
                              grid_resolution=5, class_names=["a", "b", "c"])


def test_confusion_matrix_class_names_are_its_tick_labels(ax):
    plot.confusion_matrix(Y_TRUE, Y_PRED, class_names=["B", "C", "D"], ax=ax, colorbar=False)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["B", "C", "D"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["B", "C", "D"]
    with pytest.raises(ValueError, match="give class_names or display_labels .*not both"):
        plot.confusion_matrix(Y_TRUE, Y_PRED, class_names=["B", "C", "D"], display_labels=["B", "C", "D"], ax=ax)


def _inside(box, outer, slack=1.0):
    return (box.x0 >= outer.x0 - slack and box.y0 >= outer.y0 - slack and box.x1 <= outer.x1 + slack
            and box.y1 <= outer.y1 + slack)


def _overlap(a, b):
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_confusion_matrix_at_3_inches_clips_nothing():
    # every label, tick label and the colour bar inside a 3 x 3 inch figure; the colour bar
    # beside the matrix, not over it (the renderer's own extents of the drawn texts)
    fig, ax = plt.subplots(figsize=(3, 3))
    try:
        plot.confusion_matrix(["setosa", "versicolor", "virginica", "setosa"],
                              ["setosa", "virginica", "virginica", "versicolor"], ax=ax)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        page = fig.bbox
        # the Axes' tight box holds its drawn tick labels and axis labels
        assert _inside(ax.get_tightbbox(renderer), page)
        colorbar = fig.axes[1]
        assert _inside(colorbar.get_tightbbox(renderer), page)
        assert not _overlap(colorbar.get_window_extent(renderer), ax.get_window_extent(renderer))
        # long class names turned 45 degrees, so neighbours do not run into each other
        assert {t.get_rotation() for t in ax.get_xticklabels()} == {45.0}
    finally:
        plt.close(fig)


def test_regularization_path_at_3_inches_legend_covers_no_line():
    # ten named coefficient paths: the legend outside the Axes (covering none of the lines)
    # and, with the axis labels and ticks, inside the 3 x 3 inch figure
    from types import SimpleNamespace

    alphas = np.logspace(-2, 1, 6)
    coefs = np.outer(1.0 / (1.0 + alphas), np.arange(1.0, 11.0))
    fig, ax = plt.subplots(figsize=(3, 3))
    try:
        names = ["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"]
        path = SimpleNamespace(coefs=coefs, alphas=alphas)  # a LassoPath's two fields
        plot.regularization_path(path, feature_names=names, ax=ax)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        legend = ax.get_legend()
        assert [t.get_text() for t in legend.get_texts()] == names
        assert not _overlap(legend.get_window_extent(renderer), ax.get_window_extent(renderer))
        assert _inside(legend.get_window_extent(renderer), fig.bbox)
        assert _inside(ax.get_tightbbox(renderer), fig.bbox)  # drawn tick labels and axis labels
    finally:
        plt.close(fig)


def test_a_figure_the_caller_laid_out_keeps_its_layout():
    fig, ax = plt.subplots(figsize=(3, 3), layout="tight")
    try:
        plot.confusion_matrix([0, 1], [0, 1], ax=ax)
        assert type(fig.get_layout_engine()).__name__ == "TightLayoutEngine"
    finally:
        plt.close(fig)


def test_gmm_ellipses_legend_and_feature_names(ax):
    from types import SimpleNamespace

    gmm = SimpleNamespace(means=np.array([[0.0, 0.0, 1.0], [3.0, 3.0, 1.0]]),
                          covariances=np.array([[1.0, 0.5, 1.0], [2.0, 1.0, 1.0]]), covariance_type="diag")
    plot.gmm_ellipses(gmm, np.zeros((4, 3)), features=(1, 2), ax=ax, feature_names=["a", "b", "c"],
                      component_names=["small", "large"])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("b", "c")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "data", "small", "large", "means", "1 sigma", "2 sigma"]
    handles = ax.get_legend().legend_handles
    assert [h.get_linestyle() for h in handles[-2:]] == ["-", "--"]
    with pytest.raises(ValueError, match="feature_names must hold 3 names, got 2"):
        plot.gmm_ellipses(gmm, ax=ax, feature_names=["a", "b"])


def test_gmm_ellipses_without_legend(ax):
    from types import SimpleNamespace

    gmm = SimpleNamespace(means=np.zeros((1, 2)), covariances=np.ones(1), covariance_type="spherical")
    assert plot.gmm_ellipses(gmm, ax=ax, legend=False).get_legend() is None


# --------------------------------------------------------------------------- feature importances
def test_feature_importances_of_an_estimator_are_its_attribute_sorted(ax):
    # reference: the estimator's own feature_importances_ (scikit-learn's forest here), sorted
    # by numpy; the names are the DataFrame's columns
    pd = pytest.importorskip("pandas")
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(60, 3)), columns=["noise", "signal", "weak"])
    y = (X.signal + 0.3 * X.weak > 0).astype(int)
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    plot.feature_importances(forest, ax=ax)
    order = np.argsort(-forest.feature_importances_)
    assert [t.get_text() for t in ax.get_yticklabels()] == [X.columns[j] for j in order]
    np.testing.assert_array_equal([p.get_width() for p in ax.patches], forest.feature_importances_[order])
    tops = [p.get_y() for p in ax.patches]
    assert tops == sorted(tops, reverse=True)  # the largest at the top


def test_feature_importances_max_features_and_errors(ax):
    plot.feature_importances(np.array([0.1, 0.5, 0.4]), max_features=2, ax=ax)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["x1", "x2"]
    with pytest.raises(ValueError, match="feature_names must hold 3 names, got 1"):
        plot.feature_importances([0.1, 0.5, 0.4], feature_names=["a"], ax=ax)
    from sklearn.linear_model import LinearRegression

    with pytest.raises(TypeError, match="model must be fitted and have feature_importances_"):
        plot.feature_importances(LinearRegression(), ax=ax)
