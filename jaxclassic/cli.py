"""The ``jaxclassic`` command line: ``tour``, ``gradcheck``, ``bench``, ``--version``."""

from __future__ import annotations

import argparse
import sys
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
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
