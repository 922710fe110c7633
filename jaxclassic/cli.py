"""The ``jaxclassic`` command line: ``tour``, ``gradcheck``, ``bench``, ``--version``."""

from __future__ import annotations

import argparse
import sys

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
    if args.x64:
        import jax

        jax.config.update("jax_enable_x64", True)
    from jaxclassic.tour import run_tour

    run_tour(args.family or None)
    return 0


def _cmd_bench(args) -> int:
    try:
        from benchmarks.run import main as bench_main
    except ImportError:
        print("benchmarks/ is not importable: run from a source checkout", file=sys.stderr)
        return 2
    argv = (["--quick"] if args.quick else []) + (["--only", args.only] if args.only else [])
    return bench_main(argv)


def main(argv: list[str] | None = None) -> int:
    from jaxclassic import __version__

    parser = argparse.ArgumentParser(prog="jaxclassic", description="The classical ML canon in JAX.")
    parser.add_argument("--version", action="version", version=f"jaxclassic {__version__}")
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("tour", help="fit every model family on real bundled data; one table")
    p.add_argument("--family", action="append", help="restrict to a tour module (repeatable)")
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
