"""`python -m evaluator <command>`: the command line; commands that touch the store call `services/`."""
from __future__ import annotations

import argparse
import importlib
import sys

from evaluator.cli import COMMANDS, MODULES


def build_parser(prog: str = "python -m evaluator") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Tanaw evaluator")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(MODULES.get(name) or f"evaluator.cli.{name.replace('-', '_')}").add(sub)
    return parser


def main(argv: list[str] | None = None, prog: str = "python -m evaluator") -> int:
    args = build_parser(prog).parse_args(argv)
    return args.func(args)


def run(argv: list[str] | None = None, prog: str = "python -m evaluator") -> int:
    """`main` for a command line: a bad language entry is one line naming its file and field, no traceback."""
    try:
        from evaluator.languages import LanguageError
    except ValueError as exc:  # a bad language entry: say which file and field, no traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        return main(argv, prog)
    except LanguageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(run())
