"""`python -m evaluator <command>`: the one place that wires datasets, scoring and the store together."""
from __future__ import annotations

import argparse
import importlib
import sys

from evaluator.cli import COMMANDS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m evaluator", description="Tanaw evaluator")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(f"evaluator.cli.{name.replace('-', '_')}").add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
