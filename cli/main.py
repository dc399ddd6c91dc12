"""The command line's parser and runner: `main(argv)` runs one command, `run(argv)` is `main` for a command line
(`python -m cli`, `python -m evaluator`, and the installed `tanaw` through `tanaw_cli`)."""
from __future__ import annotations

import argparse
import importlib
import sys

from cli import COMMANDS, MODULES


def _store_hooks() -> None:
    """Every store a command opens holds the papers' reported rows, whatever creates it (services.reported)."""
    import services  # noqa: F401  (registers the store's open hook)


def build_parser(prog: str = "python -m evaluator") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Tanaw evaluator")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(MODULES.get(name) or f"cli.{name.replace('-', '_')}").add(sub)
    return parser


def main(argv: list[str] | None = None, prog: str = "python -m evaluator") -> int:
    args = build_parser(prog).parse_args(argv)
    _store_hooks()
    return args.func(args)


def run(argv: list[str] | None = None, prog: str = "python -m evaluator") -> int:
    """`main` for a command line: a bad language entry or task file is one line naming its file and field (exit 2),
    never a traceback."""
    try:
        from evaluator.languages import LanguageError  # reading the language entries can raise a ValueError
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from evaluator.tasks import TaskError

    try:
        return main(argv, prog)
    except (LanguageError, TaskError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
