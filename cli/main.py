"""The command line's parser and runner: `main(argv)` runs one command, `run(argv)` is `main` for a command line
(`python -m cli`, `python -m evaluator`, and the installed `tanaw` through `tanaw_cli`)."""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from cli import COMMANDS, MODULES


DEBUG_ENV = "TANAW_DEBUG"
"""Set (to anything) to let an unexpected error end in its traceback."""


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [""])[0][:300]


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
    a store held by another process past the wait is one line (exit 3), never a traceback."""
    try:
        from evaluator.languages import LanguageError  # reading the language entries can raise a ValueError
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    import duckdb

    from cli.common import say
    from evaluator.tasks import TaskError
    from store.db import StoreBusy
    from store.writer_lock import WriterBusy, on_wait

    on_wait(say)  # a command waiting for the store says so
    try:
        return main(argv, prog)
    except (LanguageError, TaskError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (WriterBusy, StoreBusy) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    except duckdb.Error as exc:  # e.g. a file that is not a DuckDB store
        print(f"error: the store could not be used: {_first_line(exc)}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the output's reader went away (`| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("interrupted; a write in progress was rolled back", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: one line, the traceback only on request
        if os.environ.get(DEBUG_ENV):
            raise
        print(f"error: internal error ({type(exc).__name__}: {_first_line(exc)}); a write in progress was rolled "
              f"back. Set {DEBUG_ENV}=1 to see the traceback.", file=sys.stderr)
        return 1
