"""The ``jaxclassic`` command line: ``tour``, ``gradcheck``, ``bench``, ``fit``, ``predict``,
``models``, ``--version``.

``fit`` / ``predict`` read CSV files with a header row through the standard library's
:mod:`csv` module (numbers parsed with ``float``; an empty cell, ``nan`` or ``NA`` is NaN),
fit an estimator of :mod:`jaxclassic.estimators` and save it as a safe model file
(:mod:`jaxclassic.io`: ``.npz`` arrays + JSON, no pickle); ``predict`` writes CSV to stdout.
``fit --standardize`` puts scikit-learn's ``StandardScaler`` before the model (on the numeric
columns), ``fit --one-hot`` a ``OneHotEncoder`` on the non-numeric feature columns (or on those
listed: ``--one-hot=colour,size``; a missing cell is the category ``""``, a category unseen at fit
time encodes as all zeros); the model file then holds the pipeline (a saved pipeline of
:func:`jaxclassic.io.save`), and ``predict`` applies it to the columns it reads by name.
Errors in the input (a missing column, non-numeric data, an unknown model or parameter, an
unreadable file, a missing value for a model that takes none) print one line on stderr naming
the problem and exit with status 2.

When the reader of stdout goes away before the output ends (``jaxclassic predict m.jc d.csv |
head -5``), the command stops quietly, as Unix tools do, with status 141 (128 + SIGPIPE, what
the shell reports for ``yes | head`` and what ``set -o pipefail`` expects): the output was cut,
so not 0, and not 1 or 2, which report our own failures.
"""

from __future__ import annotations

import argparse
import ast
import csv
import inspect
import os
import re
import sys
import time
from pathlib import Path

__all__ = ["main"]


def _cmd_gradcheck(args) -> int:
    import jax

    jax.config.update("jax_enable_x64", True)
    from jaxclassic._gradcheck import ATOL, RTOL, check_losses

    rows = check_losses(seed=args.seed)
    print(f"autodiff vs hand-derived, float64, |a-b| / max(|b|, {ATOL / RTOL:g}) <= {RTOL:g}")
    width = max(len(r.loss) for r in rows)
    print(f"{'loss'.ljust(width)}  {'max rel g':>10}  {'max rel h':>10}  ok")
    for r in rows:
        print(f"{r.loss.ljust(width)}  {r.max_rel_grad:10.2e}  {r.max_rel_hess:10.2e}  {'yes' if r.ok else 'NO'}")
    failed = [r.loss for r in rows if not r.ok]
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _cmd_tour(args) -> int:
    from jaxclassic.tour import require_sklearn, run_tour

    try:
        require_sklearn()
    except ImportError as exc:
        print(f"jaxclassic tour: {exc}", file=sys.stderr)
        return 1
    if args.x64:
        import jax

        jax.config.update("jax_enable_x64", True)
    run_tour(args.family or None)
    return 0


def _find_checkout(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding ``benchmarks/__init__.py``."""
    for folder in (start, *start.parents):
        if (folder / "benchmarks" / "__init__.py").is_file():
            return folder
    return None


def _cmd_bench(args) -> int:
    # the console script's sys.path holds its own bin/ folder, not the working directory
    # (``python -m`` puts the latter first): look for the checkout from where we stand
    root = _find_checkout(Path.cwd())
    if root is not None and str(root) not in sys.path:
        sys.path.insert(0, str(root))
    try:
        from benchmarks.run import main as bench_main
    except ImportError as exc:
        print(f"benchmarks/ is not importable ({exc}): run from inside a source checkout",
              file=sys.stderr)
        return 2
    argv = (["--quick"] if args.quick else []) + (["--only", args.only] if args.only else [])
    return bench_main(argv)


# --------------------------------------------------------------------------- fit / predict / models
class CommandLineError(Exception):
    """Bad input to ``fit`` / ``predict``: reported on stderr, exit status 2."""


#: estimators whose input a CSV table cannot express, with the reason
NOT_FROM_CSV = {
    "ChainCRF": "it fits sequences of token-feature dicts",
    "CategoricalHMM": "it fits sequences (hmmlearn's fit(X, lengths))",
    "GaussianHMM": "it fits sequences (hmmlearn's fit(X, lengths))",
    "VotingClassifier": "it needs member estimators",
    "VotingRegressor": "it needs member estimators",
    "StackingClassifier": "it needs member estimators",
    "StackingRegressor": "it needs member estimators",
}
_NAN = {"", "nan", "NaN", "NA", "N/A", "null"}
_AUTO = "\0auto"  # --one-hot without a list: every non-numeric feature column


def _estimator_classes() -> dict:
    import jaxclassic.estimators as est

    return {name: getattr(est, name) for name in est._CLASSES}


def parse_param(text: str) -> tuple[str, object]:
    """``"k=v"`` -> ``(k, v)``, ``v`` a Python literal (int, float, bool, None, str, tuple,
    list) when it reads as one (``true`` / ``false`` / ``none`` too), else the string itself."""
    if "=" not in text:
        raise CommandLineError(f"--param must be KEY=VALUE, got {text!r}")
    key, raw = text.split("=", 1)
    key = key.strip()
    if not key.isidentifier():
        raise CommandLineError(f"--param name must be an identifier, got {key!r}")
    lowered = {"true": True, "false": False, "none": None, "null": None}
    if raw.strip().lower() in lowered:
        return key, lowered[raw.strip().lower()]
    try:
        value = ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError):
        return key, raw
    if isinstance(value, (int, float, bool, str, tuple, list, type(None))):
        return key, value
    return key, raw


def read_csv(path) -> tuple[list[str], list[list[str]]]:
    """The header and the rows (strings) of a CSV file; ``CommandLineError`` if unreadable."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:  # -sig: a spreadsheet's BOM
            rows = list(csv.reader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise CommandLineError(f"cannot read {path}: {exc}") from None
    if not rows or not rows[0]:
        raise CommandLineError(f"{path} is empty: expected a header row and data rows")
    header = [name.strip() for name in rows[0]]
    body = [row for row in rows[1:] if row]
    if len(header) == 1:
        for delimiter, what in ((";", "semicolon"), ("\t", "tab"), ("|", "pipe")):
            if all(delimiter in row[0] for row in rows[:2] if row):
                raise CommandLineError(f"{path} looks {what}-separated (its header is {rows[0][0]!r}): "
                                       "jaxclassic reads comma-separated files")
    if not body:
        raise CommandLineError(f"{path} has a header but no data rows")
    for i, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise CommandLineError(f"{path}, line {i}: {len(row)} fields, the header has {len(header)}")
    return header, body


def _column_index(header, name, path) -> int:
    if name not in header:
        raise CommandLineError(f"{path} has no column {name!r}; its columns: {', '.join(header)}")
    return header.index(name)


def _numeric(rows, columns, header, path):
    import numpy as np

    X = np.empty((len(rows), len(columns)))
    for j, c in enumerate(columns):
        for i, row in enumerate(rows):
            cell = row[c].strip()
            if cell in _NAN:
                X[i, j] = np.nan
                continue
            try:
                X[i, j] = float(cell)
            except ValueError:
                raise CommandLineError(f"{path}: column {header[c]!r} is not numeric (line {i + 2}: "
                                       f"{cell!r}); --one-hot encodes such columns") from None
    return X


def _is_numeric_column(rows, column) -> bool:
    """Whether every non-missing cell of ``column`` reads as a number."""
    for row in rows:
        cell = row[column].strip()
        if cell in _NAN:
            continue
        try:
            float(cell)
        except ValueError:
            return False
    return True


def _one_hot_columns(args, rows, features, header) -> list[int]:
    """The feature columns ``--one-hot`` names (``--one-hot=a,b``), or with no list every
    non-numeric one; ``[]`` without the flag."""
    if args.one_hot is None:
        return []
    if args.one_hot == _AUTO:
        return [j for j in features if not _is_numeric_column(rows, j)]
    listed = [name.strip() for name in args.one_hot.split(",") if name.strip()]
    if not listed:
        raise CommandLineError("--one-hot takes a comma-separated list of columns (or none: every "
                               f"non-numeric column), got {args.one_hot!r}")
    columns = [_column_index(header, name, args.data) for name in listed]
    target = [header[j] for j in columns if j not in features]
    if target:
        raise CommandLineError(f"--one-hot names the target column {target[0]!r}: it encodes features only")
    return sorted(set(columns))  # in the table's order


def _table(rows, features, categorical, header, path):
    """The feature table: a float array, or (with one-hot columns) an object array holding
    floats in the numeric columns and strings in the categorical ones (a missing categorical
    cell is the category ``""``)."""
    import numpy as np

    numeric = [j for j in features if j not in categorical]
    values = _numeric(rows, numeric, header, path)
    if not categorical:
        return values
    X = np.empty((len(rows), len(features)), dtype=object)
    for k, j in enumerate(features):
        if j in categorical:
            X[:, k] = [("" if row[j].strip() in _NAN else row[j].strip()) for row in rows]
        else:
            X[:, k] = values[:, numeric.index(j)]
    return X


def _preprocessed(model, n_features, categorical_positions, standardize: bool):
    """``model``, or a Pipeline of scikit-learn's preprocessing before it: a StandardScaler
    (``--standardize``) on the numeric columns and a OneHotEncoder (``--one-hot``, unknown
    categories encoded as all zeros) on the categorical ones."""
    if not standardize and not categorical_positions:
        return model
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    if not categorical_positions:
        return Pipeline([("standardize", StandardScaler()), ("model", model)])
    numeric = [k for k in range(n_features) if k not in categorical_positions]
    parts = [("one_hot", OneHotEncoder(handle_unknown="ignore", sparse_output=False), categorical_positions)]
    if numeric:
        parts.insert(0, ("numeric", StandardScaler() if standardize else "passthrough", numeric))
    return Pipeline([("prepare", ColumnTransformer(parts)), ("model", model)])


def _labels(rows, column, header, path, *, numeric: bool):
    import numpy as np

    cells = [row[column].strip() for row in rows]
    if numeric:
        return _numeric(rows, [column], header, path)[:, 0]
    missing = [i for i, c in enumerate(cells) if c in _NAN]
    if missing:  # not a class of its own (scikit-learn refuses a NaN label too)
        raise CommandLineError(f"{path}: the target column {header[column]!r} has {len(missing)} missing "
                               f"value(s) (line {missing[0] + 2}: {cells[missing[0]]!r}): drop those rows")
    for convert in (int, float):
        try:
            return np.array([convert(c) for c in cells])
        except ValueError:
            continue
    return np.array(cells)


def _accepts_nan(model) -> bool:
    """The estimator's scikit-learn tag ``allow_nan`` (NaN is a missing value)."""
    return bool(model.__sklearn_tags__().input_tags.allow_nan)


def _kind(model) -> str:
    from sklearn.base import is_classifier, is_regressor

    return "classifier" if is_classifier(model) else "regressor" if is_regressor(model) else "model"


def _models_accepting_nan(model) -> list[str]:
    """Our estimators of ``model``'s kind (classifier, regressor, other) that a CSV table can
    feed and that accept missing values, by their ``allow_nan`` tag."""
    return [name for name, cls in sorted(_estimator_classes().items())
            if name not in NOT_FROM_CSV and _kind(cls()) == _kind(model) and _accepts_nan(cls())]


def _check_missing(model, X, columns, header, path) -> None:
    """A ``CommandLineError`` if ``X`` has missing values and ``model`` takes none, naming the
    cells and the models of ours that take them (scikit-learn's own message recommends its
    HistGradientBoosting, which is not one of ours)."""
    import numpy as np

    missing = np.isnan(X)
    if not missing.any() or _accepts_nan(model):
        return
    rows, cols = np.nonzero(missing)
    names = ", ".join(repr(header[columns[j]]) for j in sorted(set(cols.tolist())))
    others = _models_accepting_nan(model)
    advice = (f"the jaxclassic {_kind(model)}s that do: {', '.join(others)}; or drop or impute those "
              "rows" if others else "no jaxclassic model of its kind does: drop or impute those rows")
    raise CommandLineError(
        f"{path} has {int(missing.sum())} missing value(s) (empty, NaN or NA cells) in column(s) "
        f"{names} (first: line {int(rows[0]) + 2}), and {type(model).__name__} does not accept "
        f"missing values; {advice}")


def _naming_the_parameter(message: str, params: dict) -> str:
    """The fit's error ``message``, led by the ``--param`` it is about when it quotes that
    parameter's value without naming it (``could not convert string to float: 'abc'`` for
    ``--param C=abc``)."""
    blamed = [key for key, value in params.items() if isinstance(value, str) and repr(value) in message]
    if len(blamed) != 1 or re.search(rf"\b{re.escape(blamed[0])}\b", message):
        return message  # no one value quoted, or the estimator named its parameter
    return f"parameter {blamed[0]}={params[blamed[0]]!r}: {message}"


def _info(args, message: str) -> None:
    if not args.quiet:
        print(message, file=sys.stderr)


def _cmd_fit(args) -> int:
    import numpy as np
    from sklearn.base import is_classifier, is_regressor

    from jaxclassic.estimators._base import save_estimator

    classes = _estimator_classes()
    cls = classes.get(args.model)
    if cls is None:
        raise CommandLineError(f"unknown model {args.model!r}; `jaxclassic models` lists them: "
                               f"{', '.join(sorted(classes))}")
    if args.model in NOT_FROM_CSV:
        raise CommandLineError(f"{args.model} cannot be fitted from a CSV table: {NOT_FROM_CSV[args.model]}")
    valid = list(inspect.signature(cls.__init__).parameters)[1:]
    params = dict(parse_param(text) for text in args.param or ())
    unknown = [k for k in params if k not in valid]
    if unknown:
        raise CommandLineError(f"unknown parameter {unknown[0]!r} of {args.model}; its parameters: "
                               f"{', '.join(valid)}")
    model = cls(**params)
    supervised = is_classifier(model) or is_regressor(model)
    header, rows = read_csv(args.data)
    if supervised and args.target is None:
        raise CommandLineError(f"{args.model} is supervised: name the target column with --target")
    target = None if args.target is None else _column_index(header, args.target, args.data)
    features = [j for j in range(len(header)) if j != target]
    if not features:
        raise CommandLineError(f"{args.data} has no feature column besides the target")
    categorical = _one_hot_columns(args, rows, features, header)
    numeric = [j for j in features if j not in categorical]
    _check_missing(model, _numeric(rows, numeric, header, args.data), numeric, header, args.data)
    X = _table(rows, features, categorical, header, args.data)
    fitted = _preprocessed(model, len(features), [features.index(j) for j in categorical], args.standardize)
    start = time.perf_counter()
    try:
        if supervised:
            y = _labels(rows, target, header, args.data, numeric=is_regressor(model))
            fitted.fit(X, y)
        else:
            fitted.fit(X)
    except (ValueError, TypeError) as exc:
        raise CommandLineError(f"{args.model} could not fit {args.data}: "
                               f"{_naming_the_parameter(str(exc), params)}") from None
    seconds = time.perf_counter() - start
    meta = dict(feature_names=[header[j] for j in features], target=args.target, data=str(args.data))
    try:
        if fitted is model:
            save_estimator(model, args.out, **meta)
        else:  # the preprocessing travels in the model file, as a saved pipeline
            from jaxclassic import io

            if hasattr(model, "classes_"):
                meta["classes"] = np.asarray(model.classes_).tolist()
            io.save(args.out, fitted, one_hot=[header[j] for j in categorical], standardize=args.standardize,
                    **meta)
    except OSError as exc:
        raise CommandLineError(f"cannot write {args.out}: {exc}") from None
    steps = (["standardized"] if args.standardize else []) + ([f"{len(categorical)} column(s) one-hot encoded"]
                                                               if categorical else [])
    _info(args, f"fitted {args.model} on {X.shape[0]} rows x {X.shape[1]} features"
                f"{' (' + ', '.join(steps) + ')' if steps else ''} in {seconds:.2f} s; saved to {args.out}")
    return 0


def _format(value) -> str:
    import numpy as np

    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, np.generic):
        return str(value.item())
    return str(value)


def _cmd_predict(args) -> int:
    from jaxclassic import io
    from jaxclassic.estimators._base import load_estimator

    try:
        meta = io.read_metadata(args.model_file)
        if meta.get("content") not in ("estimator", "pipeline"):
            raise CommandLineError(f"{args.model_file} holds {meta.get('content')}, not a fitted estimator")
        model = load_estimator(args.model_file) if meta["content"] == "estimator" else io.load(args.model_file)
    except (OSError, ValueError) as exc:
        raise CommandLineError(f"cannot load {args.model_file}: {exc}") from None
    header, rows = read_csv(args.data)
    names = meta.get("feature_names")
    if names is None:
        raise CommandLineError(f"{args.model_file} names no feature columns (not saved by `jaxclassic fit`)")
    columns = [_column_index(header, name, args.data) for name in names]
    one_hot = set(meta.get("one_hot") or ())
    categorical = [j for j in columns if header[j] in one_hot]
    numeric = [j for j in columns if j not in categorical]
    final = model.steps[-1][1] if hasattr(model, "steps") else model
    _check_missing(final, _numeric(rows, numeric, header, args.data), numeric, header, args.data)
    X = _table(rows, columns, categorical, header, args.data)
    method = "predict_proba" if args.proba else "predict"
    if not hasattr(model, method):
        raise CommandLineError(f"{type(final).__name__} has no {method}")
    try:
        out = getattr(model, method)(X)
    except (ValueError, TypeError) as exc:
        raise CommandLineError(f"{type(model).__name__}.{method} failed on {args.data}: {exc}") from None
    writer = csv.writer(sys.stdout, lineterminator="\n")
    if args.proba:
        labels = meta.get("classes") or list(range(out.shape[1]))
        writer.writerow([f"proba_{_format(c)}" for c in labels])
        writer.writerows([[_format(v) for v in row] for row in out])
    else:
        writer.writerow([meta.get("target") or "prediction"])
        writer.writerows([[_format(v)] for v in out])
    _info(args, f"{type(final).__name__}: {len(rows)} predictions from {args.data}")
    return 0


def _cmd_models(args) -> int:
    for name, cls in sorted(_estimator_classes().items()):
        parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
        shown = ", ".join(p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}"
                          for p in parameters)
        note = f"  [not from CSV: {NOT_FROM_CSV[name]}]" if name in NOT_FROM_CSV else ""
        print(f"{name}({shown}){note}")
    return 0


def _guarded(command):
    """Run ``command(args)``; a :class:`CommandLineError` is one line on stderr and status 2."""

    def run(args) -> int:
        try:
            return command(args)
        except CommandLineError as exc:
            print(f"jaxclassic {args.command}: error: {exc}", file=sys.stderr)
            return 2

    return run


def main(argv: list[str] | None = None) -> int:
    from jaxclassic import __version__

    parser = argparse.ArgumentParser(prog="jaxclassic", description="The classical ML canon in JAX.")
    parser.add_argument("--version", action="version", version=f"jaxclassic {__version__}")
    sub = parser.add_subparsers(dest="command")
    from jaxclassic.tour import discover

    families = discover()
    p = sub.add_parser("tour", help="fit every model family on real bundled data; one table "
                       "(needs scikit-learn)")
    p.add_argument("--family", action="append", choices=families, metavar="FAMILY",
                   help=f"restrict to one family (repeatable), one of: {', '.join(families)}")
    p.add_argument("--x64", action="store_true", help="compute in float64")
    p.set_defaults(func=_cmd_tour)
    p = sub.add_parser("gradcheck", help="autodiff vs hand-derived gradients/Hessians of every loss")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_cmd_gradcheck)
    p = sub.add_parser("bench", help="run the benchmarks (from a source checkout)")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", default=None)
    p.set_defaults(func=_cmd_bench)
    p = sub.add_parser("fit", help="fit an estimator on a CSV file and save it (a safe model file)")
    p.add_argument("model", help="an estimator class name (see `jaxclassic models`)")
    p.add_argument("data", help="CSV file with a header row")
    p.add_argument("--target", default=None, help="the target column (supervised models)")
    p.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="a constructor parameter, VALUE a Python literal (repeatable)")
    p.add_argument("--out", required=True, help="where to save the model (e.g. model.jc)")
    p.add_argument("--standardize", action="store_true",
                   help="standardize the numeric features (scikit-learn's StandardScaler, saved in the "
                        "model file)")
    p.add_argument("--one-hot", nargs="?", const=_AUTO, default=None, metavar="COLUMNS",
                   help="one-hot encode the non-numeric feature columns, or those listed (--one-hot=a,b); "
                        "categories unseen at fit time encode as all zeros (saved in the model file)")
    p.add_argument("--quiet", action="store_true", help="no informational output")
    p.set_defaults(func=_guarded(_cmd_fit))
    p = sub.add_parser("predict", help="predictions of a saved model on a CSV file, as CSV on stdout")
    p.add_argument("model_file", help="a file written by `jaxclassic fit`")
    p.add_argument("data", help="CSV file holding the model's feature columns (by name)")
    p.add_argument("--proba", action="store_true", help="class probabilities instead of labels")
    p.add_argument("--quiet", action="store_true", help="no informational output")
    p.set_defaults(func=_guarded(_cmd_predict))
    p = sub.add_parser("models", help="the estimators with their parameters and defaults")
    p.set_defaults(func=_guarded(_cmd_models))
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        status = args.func(args)
        sys.stdout.flush()  # a reader gone away shows here, not in the interpreter's exit
    except BrokenPipeError:
        return _reader_gone()
    return status


#: the exit status of a command whose reader closed stdout: 128 + SIGPIPE (13), what the shell
#: reports for a C tool killed by SIGPIPE (module docstring)
EXIT_BROKEN_PIPE = 128 + 13


def _reader_gone() -> int:
    """Stop quietly when stdout's reader has gone (``| head``): point stdout at the null
    device, so the interpreter's final flush of the unwritten rest cannot fail again (the
    recipe of Python's ``signal`` documentation, "Note on SIGPIPE"), and return 141."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):  # stdout without a file descriptor
        pass
    return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
