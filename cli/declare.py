"""`python -m evaluator declare MODEL --data NAME ... [--text TEXT]`: a model card's declared training data.

A model whose card names a benchmark's data (a task, a benchmark family or a dataset name: "FLORES-200", "XL-Sum",
"bhasa") is flagged on that benchmark's cells by the leakage signal `declared`, without any probe; the text is the
card's own words on its training data, shown as plain text. The declaration replaces the previous one; `--clear`
removes it. Only the model's owner changes its card (the command line is the operator). A bad name or text exits 2
naming the field and changes nothing.
"""
from __future__ import annotations

import argparse
import sys

EXAMPLE = """examples:
  python -m evaluator declare "SeaLion-9B-it" --data FLORES-200 --data XL-Sum --text "Web crawl to 2024"
  python -m evaluator declare "SeaLion-9B-it" --clear"""


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("declare", help="set a model card's declared training data (benchmarks it saw)",
                       description=__doc__, epilog=EXAMPLE, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("model", help="the stored model's name")
    p.add_argument("--data", action="append", default=[], metavar="NAME",
                   help="a benchmark, task or dataset in its training data (repeat for several)")
    p.add_argument("--text", default=None, help="the card's own words on its training data (plain text)")
    p.add_argument("--clear", action="store_true", help="remove the declaration")
    p.add_argument("--db", help="DuckDB file (default: $TANAW_DB, else ~/.tanaw/tanaw.duckdb)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from services.leakage import declare_in_store
    from services.upload import default_actor
    from store.writer_lock import WriterBusy

    if args.clear and (args.data or args.text):
        print("error: --clear: give no --data or --text with it", file=sys.stderr)
        return 2
    if not args.clear and not (args.data or args.text):
        print("error: --data: give at least one name (or --text, or --clear)", file=sys.stderr)
        return 2
    try:
        declare_in_store(args.db, args.model, args.data, args.text, actor=default_actor())
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except WriterBusy as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    if args.clear:
        print(f"{args.model}: declaration removed")
    else:
        print(f"{args.model}: declares {', '.join(args.data) or 'no benchmark'}"
              + ("; training-data text stored" if args.text else ""))
    return 0
