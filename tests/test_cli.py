"""The command line: --version, gradcheck's table and exit status, bench from the installed
console script, tour's family checks and its message without scikit-learn."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from jaxclassic import __version__, cli


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"jaxclassic {__version__}"


@pytest.mark.full
def test_gradcheck_passes_and_prints_every_loss(capsys):
    from jaxclassic import losses

    assert cli.main(["gradcheck"]) == 0
    out = capsys.readouterr().out
    for name in losses.HAND_DERIVED:
        assert name in out
    assert "NO" not in out


@pytest.mark.full
def test_gradcheck_fails_on_a_wrong_derivation(monkeypatch, capsys):
    from jaxclassic import losses

    wrong = dict(losses.HAND_DERIVED)
    loss, grad, hess = wrong["squared"]
    wrong["squared"] = (loss, lambda y, f: 2 * (f - y), hess)  # off by a factor 2
    monkeypatch.setattr(losses, "HAND_DERIVED", wrong)
    assert cli.main(["gradcheck"]) == 1
    assert "FAILED: squared" in capsys.readouterr().err


@pytest.mark.full
def test_console_script_installed():
    out = subprocess.run([sys.executable, "-m", "jaxclassic.cli", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and __version__ in out.stdout


REPO_ROOT = Path(__file__).resolve().parents[1]
CONSOLE_SCRIPT = Path(sys.executable).with_name("jaxclassic")


@pytest.mark.full
@pytest.mark.skipif(not CONSOLE_SCRIPT.exists(), reason="console script not installed next to python")
@pytest.mark.parametrize("cwd", [".", "tests"])
def test_console_script_bench_runs_from_the_checkout(cwd):
    # the installed console script (not ``python -m``): its sys.path lacks the working
    # directory, so benchmarks/ is found by walking up from it
    out = subprocess.run([str(CONSOLE_SCRIPT), "bench", "--quick", "--only", "bench_metrics"],
                         cwd=REPO_ROOT / cwd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "metrics" in out.stdout and "roc_auc" in out.stdout


def test_bench_outside_a_checkout_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if Path(p or ".").resolve() != REPO_ROOT])
    monkeypatch.delitem(sys.modules, "benchmarks", raising=False)
    monkeypatch.delitem(sys.modules, "benchmarks.run", raising=False)
    assert cli.main(["bench", "--quick"]) == 2
    assert "run from inside a source checkout" in capsys.readouterr().err


def test_find_checkout_walks_up(tmp_path):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "__init__.py").write_text("")
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert cli._find_checkout(tmp_path / "a" / "b") == tmp_path
    assert cli._find_checkout(tmp_path / "benchmarks") == tmp_path


def test_tour_unknown_family_exits_2_naming_the_families(capsys):
    from jaxclassic.tour import discover

    with pytest.raises(SystemExit) as exc:
        cli.main(["tour", "--family", "unknown"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unknown" in err and all(name in err for name in discover())


def test_tour_help_lists_the_families(capsys):
    from jaxclassic.tour import discover

    with pytest.raises(SystemExit) as exc:
        cli.main(["tour", "--help"])
    assert exc.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps the help text
    assert all(name in out for name in discover())


def test_tour_without_sklearn_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "sklearn", None)  # ``import sklearn`` now fails
    assert cli.main(["tour", "--family", "linear_regression"]) == 1
    captured = capsys.readouterr()
    assert "pip install 'jaxclassic[sklearn]'" in captured.err
    assert "model" not in captured.out  # no (empty) table


# --------------------------------------------------------------------------- fit / predict / models
CSV_TEXT = ("a,b,c,label,value\n"
            + "".join(f"{a},{b},{c},{lab},{v}\n" for a, b, c, lab, v in [
                (1, 2, 3, "x", 0.5), (2, 1, 0, "y", 1.5), (3, 3, 1, "x", 2.0), (0, 1, 2, "y", -1.0),
                (1.5, 2, 2, "x", 0.25), (2.5, 0, 1, "y", 3.0), (0.5, 0.5, 2.5, "x", 1.0), (3, 0, 0, "y", 2.5)]))


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text(CSV_TEXT)
    return path


def _numbers():
    import numpy as np

    rows = [line.split(",") for line in CSV_TEXT.splitlines()[1:]]
    X = np.array([[float(v) for v in r[:3]] for r in rows])
    return X, np.array([r[3] for r in rows]), np.array([float(r[4]) for r in rows])


def _csv_out(text):
    lines = text.strip().splitlines()
    return lines[0].split(","), [line.split(",") for line in lines[1:]]


def test_fit_then_predict_equals_the_estimator_in_python(table, tmp_path, capsys):
    """Reference: the same estimator fitted in Python on the same numbers; probabilities are
    printed with repr(float), so they must match to the last bit."""
    import numpy as np

    from jaxclassic.estimators import GaussianNB

    out = tmp_path / "m.jc"
    code = cli.main(["fit", "GaussianNB", str(table), "--target", "label", "--param", "var_smoothing=1e-8",
                     "--out", str(out)])
    assert code == 0 and out.exists()
    assert "fitted GaussianNB on 8 rows x 4 features" in capsys.readouterr().err
    # the other numeric column (value) is a feature too: X = a, b, c, value
    X, labels, value = _numbers()
    reference = GaussianNB(var_smoothing=1e-8).fit(np.c_[X, value], labels)
    assert cli.main(["predict", str(out), str(table), "--quiet"]) == 0
    captured = capsys.readouterr()
    header, rows = _csv_out(captured.out)
    assert header == ["label"] and [r[0] for r in rows] == reference.predict(np.c_[X, value]).tolist()
    assert captured.err == ""
    assert cli.main(["predict", str(out), str(table), "--proba", "--quiet"]) == 0
    header, rows = _csv_out(capsys.readouterr().out)
    assert header == ["proba_x", "proba_y"]
    assert np.array_equal(np.array(rows, float), reference.predict_proba(np.c_[X, value]))


def test_predict_reads_the_features_by_name(table, tmp_path, capsys):
    """A regressor on two columns; the prediction file has its columns in another order."""
    import numpy as np

    from jaxclassic.estimators import Ridge

    out = tmp_path / "r.jc"
    reordered = tmp_path / "reordered.csv"
    X, _, value = _numbers()
    reordered.write_text("b,extra,a\n" + "".join(f"{b},7,{a}\n" for a, b in X[:, :2]))
    source = tmp_path / "two.csv"
    source.write_text("a,b,value\n" + "".join(f"{a},{b},{v}\n" for (a, b), v in zip(X[:, :2], value)))
    assert cli.main(["fit", "Ridge", str(source), "--target", "value", "--param", "alpha=0.5", "--out", str(out),
                     "--quiet"]) == 0
    assert capsys.readouterr().err == ""  # --quiet
    assert cli.main(["predict", str(out), str(reordered), "--quiet"]) == 0
    header, rows = _csv_out(capsys.readouterr().out)
    expected = Ridge(alpha=0.5).fit(X[:, :2], value).predict(X[:, :2])
    assert header == ["value"] and np.array_equal(np.array(rows, float)[:, 0], expected)


def test_unsupervised_fit_needs_no_target(tmp_path, capsys):
    out = tmp_path / "k.jc"
    table = tmp_path / "numeric.csv"
    X, _, _ = _numbers()
    table.write_text("a,b,c\n" + "".join(f"{a},{b},{c}\n" for a, b, c in X))
    assert cli.main(["fit", "KMeans", str(table), "--param", "n_clusters=2", "--param", "random_state=0",
                     "--param", "n_init=1", "--out", str(out), "--quiet"]) == 0
    assert cli.main(["predict", str(out), str(table), "--quiet"]) == 0
    header, rows = _csv_out(capsys.readouterr().out)
    assert header == ["prediction"] and len(rows) == 8 and {r[0] for r in rows} <= {"0", "1"}


@pytest.mark.parametrize("text, expected", [
    ("alpha=0.5", ("alpha", 0.5)), ("max_depth=3", ("max_depth", 3)), ("fit_intercept=False", ("fit_intercept", False)),
    ("fit_intercept=true", ("fit_intercept", True)), ("random_state=None", ("random_state", None)),
    ("kernel=rbf", ("kernel", "rbf")), ("kernel='rbf'", ("kernel", "rbf")), ("C=1e3", ("C", 1000.0)),
    ("hidden=(1, 2)", ("hidden", (1, 2))), ("name=a=b", ("name", "a=b")), ("expr=__import__('os')", ("expr", "__import__('os')")),
])
def test_parse_param_literal_types(text, expected):
    key, value = cli.parse_param(text)
    assert (key, value) == expected and type(value) is type(expected[1])


def test_models_lists_every_estimator_with_its_defaults(capsys):
    import jaxclassic.estimators as est

    assert cli.main(["models"]) == 0
    out = capsys.readouterr().out
    for name in est.__all__:
        if isinstance(getattr(est, name), type):
            assert f"\n{name}(" in "\n" + out
    assert "Ridge(alpha=1.0" in out and "KMeans(n_clusters=8" in out
    assert "ChainCRF(" in out and "not from CSV" in out


def _error(capsys, argv):
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err


def test_error_missing_target_column(table, tmp_path, capsys):
    err = _error(capsys, ["fit", "GaussianNB", str(table), "--target", "nope", "--out", str(tmp_path / "m.jc")])
    assert "jaxclassic fit: error:" in err and "has no column 'nope'; its columns: a, b, c, label, value" in err


def test_error_missing_feature_column_at_predict(table, tmp_path, capsys):
    out = tmp_path / "m.jc"
    assert cli.main(["fit", "GaussianNB", str(table), "--target", "label", "--out", str(out), "--quiet"]) == 0
    other = tmp_path / "other.csv"
    other.write_text("a,b,value\n1,2,3\n")
    err = _error(capsys, ["predict", str(out), str(other)])
    assert "jaxclassic predict: error:" in err and "has no column 'c'" in err


def test_error_non_numeric_feature(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("a,b,y\n1,2,0\n1,oops,1\n")
    err = _error(capsys, ["fit", "GaussianNB", str(path), "--target", "y", "--out", str(tmp_path / "m.jc")])
    assert "column 'b' is not numeric (line 3: 'oops')" in err


def test_error_non_numeric_regression_target(table, tmp_path, capsys):
    err = _error(capsys, ["fit", "Ridge", str(table), "--target", "label", "--out", str(tmp_path / "m.jc")])
    assert "column 'label' is not numeric" in err


def test_error_unknown_model(table, tmp_path, capsys):
    err = _error(capsys, ["fit", "DeepNet", str(table), "--target", "label", "--out", str(tmp_path / "m.jc")])
    assert "unknown model 'DeepNet'" in err and "GaussianNB" in err


def test_error_model_that_a_table_cannot_feed(table, tmp_path, capsys):
    err = _error(capsys, ["fit", "ChainCRF", str(table), "--target", "label", "--out", str(tmp_path / "m.jc")])
    assert "ChainCRF cannot be fitted from a CSV table" in err


def test_error_unknown_parameter(table, tmp_path, capsys):
    err = _error(capsys, ["fit", "Ridge", str(table), "--target", "value", "--param", "alhpa=1",
                          "--out", str(tmp_path / "m.jc")])
    assert "unknown parameter 'alhpa' of Ridge; its parameters: alpha" in err


def test_error_malformed_parameter(table, tmp_path, capsys):
    err = _error(capsys, ["fit", "Ridge", str(table), "--target", "value", "--param", "alpha",
                          "--out", str(tmp_path / "m.jc")])
    assert "--param must be KEY=VALUE, got 'alpha'" in err


def test_error_supervised_without_target(table, tmp_path, capsys):
    err = _error(capsys, ["fit", "Ridge", str(table), "--out", str(tmp_path / "m.jc")])
    assert "Ridge is supervised: name the target column with --target" in err


def test_error_unreadable_data_file(tmp_path, capsys):
    err = _error(capsys, ["fit", "Ridge", str(tmp_path / "absent.csv"), "--target", "y",
                          "--out", str(tmp_path / "m.jc")])
    assert "cannot read" in err and "absent.csv" in err


def test_error_ragged_csv(tmp_path, capsys):
    path = tmp_path / "ragged.csv"
    path.write_text("a,b,y\n1,2,0\n1,1\n")
    err = _error(capsys, ["fit", "Ridge", str(path), "--target", "y", "--out", str(tmp_path / "m.jc")])
    assert "ragged.csv, line 3: 2 fields, the header has 3" in err


def test_error_unreadable_model_file(table, tmp_path, capsys):
    junk = tmp_path / "junk.jc"
    junk.write_bytes(b"not a model")
    err = _error(capsys, ["predict", str(junk), str(table)])
    # io's own wording is tests/test_io.py's; the command relays it
    assert "cannot load" in err and re.search(r"is not a (readable )?jaxclassic model file", err)
    err = _error(capsys, ["predict", str(tmp_path / "absent.jc"), str(table)])
    assert "cannot load" in err and "no model file at" in err


def test_error_fit_rejects_the_data(tmp_path, capsys):
    """The estimator's own validation (here: one class for a classifier) is exit 2."""
    path = tmp_path / "one.csv"
    path.write_text("a,b,y\n1,0,0\n1,1,0\n2,2,0\n3,1,0\n")
    err = _error(capsys, ["fit", "GaussianNB", str(path), "--target", "y", "--out", str(tmp_path / "m.jc")])
    assert "GaussianNB could not fit" in err and "class" in err


NAN_CLASSIFIERS = ("BaggingClassifier, C45Classifier, DecisionTreeClassifier, GradientBoostingClassifier, "
                   "RandomForestClassifier, XGBoostClassifier")
NAN_REGRESSORS = ("BaggingRegressor, DecisionTreeRegressor, GradientBoostingRegressor, RandomForestRegressor, "
                  "XGBoostRegressor")


@pytest.mark.full
def test_missing_value_names_our_models_that_take_it_not_sklearns(tmp_path, capsys):
    """Issue 23.5: scikit-learn's message recommended its HistGradientBoosting; the command
    names the cell and the jaxclassic models of the chosen kind that accept NaN (the trees and
    their ensembles, the XGBoost family: the estimators tagged allow_nan), and one of them fits
    the same file."""
    path = tmp_path / "nan.csv"
    path.write_text("a,b,y\n1,,0\n1,1,1\n2,2,0\n3,1,1\n2,NA,0\n0,3,1\n")
    out = str(tmp_path / "m.jc")
    err = _error(capsys, ["fit", "LogisticRegression", str(path), "--target", "y", "--out", out])
    assert ("nan.csv has 2 missing value(s) (empty, NaN or NA cells) in column(s) 'b' (first: line 2), "
            "and LogisticRegression does not accept missing values; the jaxclassic classifiers that do: "
            f"{NAN_CLASSIFIERS}; or drop or impute those rows") in err
    assert "HistGradientBoosting" not in err and "sklearn" not in err
    err = _error(capsys, ["fit", "Ridge", str(path), "--target", "y", "--out", out])
    assert f"the jaxclassic regressors that do: {NAN_REGRESSORS};" in err
    err = _error(capsys, ["fit", "KMeans", str(path), "--out", out])
    assert "KMeans does not accept missing values; no jaxclassic model of its kind does" in err
    assert cli.main(["fit", "DecisionTreeClassifier", str(path), "--target", "y", "--out", out, "--quiet"]) == 0


def test_missing_value_at_predict_says_the_same(table, tmp_path, capsys):
    out = tmp_path / "m.jc"
    assert cli.main(["fit", "GaussianNB", str(table), "--target", "label", "--out", str(out), "--quiet"]) == 0
    holes = tmp_path / "holes.csv"
    holes.write_text(CSV_TEXT.replace("\n2,1,0,y,1.5\n", "\n2,,0,y,1.5\n"))
    err = _error(capsys, ["predict", str(out), str(holes)])
    assert "holes.csv has 1 missing value(s)" in err and "(first: line 3)" in err
    assert f"GaussianNB does not accept missing values; the jaxclassic classifiers that do: {NAN_CLASSIFIERS}" in err


def test_error_names_the_parameter_a_value_is_wrong_for(table, tmp_path, capsys):
    """Issue 23.5: --param C=abc failed with "could not convert string to float: 'abc'"."""
    err = _error(capsys, ["fit", "LogisticRegression", str(table), "--target", "label", "--param", "C=abc",
                          "--param", "max_iter=50", "--out", str(tmp_path / "m.jc")])
    # either the estimator names C itself, or the command line puts the name before numpy's message
    assert "LogisticRegression could not fit" in err
    assert "parameter C='abc': could not convert" in err or "C must be a real number, got str 'abc'" in err


@pytest.mark.full
def test_predict_into_a_closed_pipe_stops_quietly(table, tmp_path):
    """Issue 23.5: ``jaxclassic predict m.jc d.csv | head -5`` ended in a BrokenPipeError
    traceback. A real pipe whose reader closes after the first line: no traceback, and the
    status of a Unix tool stopped by SIGPIPE (141; the header line came through first)."""
    out = tmp_path / "m.jc"
    assert cli.main(["fit", "GaussianNB", str(table), "--target", "label", "--out", str(out), "--quiet"]) == 0
    big = tmp_path / "big.csv"  # ~1 MB of probabilities: far more than a pipe's buffer
    rows = CSV_TEXT.splitlines()[1:]
    big.write_text(CSV_TEXT.splitlines()[0] + "\n" + "\n".join(rows * 3000) + "\n")
    proc = subprocess.Popen([sys.executable, "-m", "jaxclassic.cli", "predict", str(out), str(big), "--proba"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()  # the reader goes away, as head does after its lines
    err = proc.stderr.read().decode()
    proc.stderr.close()
    status = proc.wait(timeout=300)
    assert first == b"proba_x,proba_y\n"
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Exception ignored" not in err, err
    assert status == cli.EXIT_BROKEN_PIPE == 141


@pytest.mark.parametrize("cell", ["", "NA"])
def test_error_missing_class_label_is_not_a_class(tmp_path, capsys, cell):
    """An empty or NA target cell of a classifier is an error, not a class '' / 'NA'
    (scikit-learn refuses a NaN label as well)."""
    path = tmp_path / "na.csv"
    path.write_text(f"a,b,y\n1,2,yes\n2,1,{cell}\n3,4,no\n")
    err = _error(capsys, ["fit", "GaussianNB", str(path), "--target", "y", "--out", str(tmp_path / "m.jc")])
    assert f"the target column 'y' has 1 missing value(s) (line 3: {cell!r}): drop those rows" in err
    assert not (tmp_path / "m.jc").exists()


def test_error_semicolon_separated_file_says_so(tmp_path, capsys):
    path = tmp_path / "semi.csv"
    path.write_text("a;b;y\n1;2;0\n2;1;1\n")
    err = _error(capsys, ["fit", "GaussianNB", str(path), "--target", "y", "--out", str(tmp_path / "m.jc")])
    assert "semi.csv looks semicolon-separated (its header is 'a;b;y'): jaxclassic reads comma-separated" in err


def test_utf8_bom_of_a_spreadsheet_export_is_not_part_of_the_first_name(tmp_path):
    """Excel's "CSV UTF-8" starts with a byte-order mark; the first column is still 'y'."""
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbfy,a,b\nyes,1,2\nno,2,1\n")
    assert cli.read_csv(path)[0] == ["y", "a", "b"]


# --------------------------------------------------------------------------- --standardize / --one-hot
MIXED_CSV = ("age,colour,income,label\n30,red,2.5,yes\n45,blue,3.1,no\n50,red,4.0,yes\n23,green,1.2,no\n"
             "37,blue,2.2,no\n61,red,5.5,yes\n29,green,1.9,no\n41,red,3.3,yes\n")
MIXED_NEW = "income,colour,age\n2.0,red,33\n4.4,purple,50\n1.0,blue,20\n"  # purple: unseen at fit time


def _by_hand(train_numeric, train_colour, new_numeric, new_colour):
    """The reference preprocessing in numpy: z-scores with the training mean and population
    standard deviation, then one 0/1 column per sorted training category (unseen: all zeros)."""
    import numpy as np

    mean, std = train_numeric.mean(axis=0), train_numeric.std(axis=0)
    categories = sorted(set(train_colour))

    def encode(numeric, colour):
        return np.c_[(numeric - mean) / std, np.array([[c == k for k in categories] for c in colour], float)]

    return encode(train_numeric, train_colour), encode(new_numeric, new_colour)


def test_fit_standardize_one_hot_then_predict_equals_preprocessing_by_hand(tmp_path, capsys):
    """Reference: GaussianNB fitted in Python on the hand-standardized and hand-encoded table.
    Tolerance 1e-9 relative: scikit-learn's StandardScaler sums in another order than numpy's
    mean / std (last-bit differences in the z-scores)."""
    import numpy as np

    from jaxclassic import io
    from jaxclassic.estimators import GaussianNB

    (tmp_path / "train.csv").write_text(MIXED_CSV)
    (tmp_path / "new.csv").write_text(MIXED_NEW)
    out = tmp_path / "m.jc"
    assert cli.main(["fit", "GaussianNB", str(tmp_path / "train.csv"), "--target", "label", "--standardize",
                     "--one-hot", "--out", str(out)]) == 0
    assert "(standardized, 1 column(s) one-hot encoded)" in capsys.readouterr().err
    meta = io.read_metadata(out)
    assert meta["content"] == "pipeline" and meta["one_hot"] == ["colour"] and meta["standardize"] is True
    rows = [line.split(",") for line in MIXED_CSV.splitlines()[1:]]
    numeric = np.array([[float(r[0]), float(r[2])] for r in rows])
    new = [line.split(",") for line in MIXED_NEW.splitlines()[1:]]
    train_X, new_X = _by_hand(numeric, [r[1] for r in rows], np.array([[float(r[2]), float(r[0])] for r in new]),
                              [r[1] for r in new])
    reference = GaussianNB().fit(train_X, [r[3] for r in rows])
    assert cli.main(["predict", str(out), str(tmp_path / "new.csv"), "--proba", "--quiet"]) == 0
    header, got = _csv_out(capsys.readouterr().out)
    assert header == ["proba_no", "proba_yes"]
    np.testing.assert_allclose(np.array(got, float), reference.predict_proba(new_X), rtol=1e-9, atol=1e-12)
    assert cli.main(["predict", str(out), str(tmp_path / "new.csv"), "--quiet"]) == 0
    assert [r[0] for r in _csv_out(capsys.readouterr().out)[1]] == reference.predict(new_X).tolist()


def test_standardize_alone_saves_a_scaler_before_the_model(tmp_path, capsys):
    import numpy as np

    from jaxclassic.estimators import Ridge

    out = tmp_path / "r.jc"
    X, _, value = _numbers()
    table = tmp_path / "numeric.csv"
    table.write_text("a,b,c,value\n" + "".join(f"{a},{b},{c},{v}\n" for (a, b, c), v in zip(X, value)))
    assert cli.main(["fit", "Ridge", str(table), "--target", "value", "--standardize", "--out", str(out),
                     "--quiet"]) == 0
    assert cli.main(["predict", str(out), str(table), "--quiet"]) == 0
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    expected = Ridge().fit(Z, value).predict(Z)  # reference: the z-scores by hand
    np.testing.assert_allclose(np.array(_csv_out(capsys.readouterr().out)[1], float)[:, 0], expected, rtol=1e-9)


def test_one_hot_of_listed_columns_encodes_numbers_as_categories(tmp_path, capsys):
    from jaxclassic import io

    (tmp_path / "train.csv").write_text(MIXED_CSV)
    out = tmp_path / "m.jc"
    assert cli.main(["fit", "GaussianNB", str(tmp_path / "train.csv"), "--target", "label",
                     "--one-hot=colour,age", "--out", str(out), "--quiet"]) == 0
    pipe = io.load(out)
    encoder = pipe.named_steps["prepare"].named_transformers_["one_hot"]
    assert [list(c) for c in encoder.categories_] == [["23", "29", "30", "37", "41", "45", "50", "61"],
                                                       ["blue", "green", "red"]]


def test_one_hot_errors_name_the_column(tmp_path, capsys):
    (tmp_path / "train.csv").write_text(MIXED_CSV)
    args = ["fit", "GaussianNB", str(tmp_path / "train.csv"), "--target", "label", "--out", str(tmp_path / "m.jc")]
    assert cli.main(args + ["--one-hot=shape"]) == 2
    assert "has no column 'shape'" in capsys.readouterr().err
    assert cli.main(args + ["--one-hot=label"]) == 2
    assert "--one-hot names the target column 'label'" in capsys.readouterr().err
    assert cli.main(args) == 2  # without --one-hot a text column is an error that points to it
    err = capsys.readouterr().err
    assert "column 'colour' is not numeric (line 2: 'red'); --one-hot encodes such columns" in err
