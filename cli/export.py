"""`python -m evaluator export|import`: the store as Parquet partitioned by model and task, locally or on the Hub."""
from __future__ import annotations

import argparse
import sys


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="write every table as Parquet (or push it to the results repo with --hub)",
                       description="Write every table of the store under DIR as Parquet partitioned by model and "
                       "task, with manifest.json (row counts and checksums). With --hub, commit the export to "
                       "$TANAW_RESULTS_REPO instead ($HF_TOKEN; a pull request when the token cannot write).")
    p.add_argument("dir", nargs="?", help="output folder (replaced as a whole)")
    p.add_argument("--hub", action="store_true", help="push to $TANAW_RESULTS_REPO")
    p.add_argument("-m", "--message", default="Update results", help="commit message for --hub")
    p.add_argument("--db", help="DuckDB file (default: $TANAW_DB, else ~/.tanaw/tanaw.duckdb)")
    p.set_defaults(func=cmd_export)
    p = sub.add_parser("import", help="load a Parquet export (or pull the results repo with --hub) into the store",
                       description="Load an export made by `export` into the store in one transaction, checked "
                       "against its manifest. Default: every exported table becomes identical to the export; "
                       "--merge only adds rows the store lacks.")
    p.add_argument("dir", nargs="?", help="export folder")
    p.add_argument("--hub", action="store_true", help="pull $TANAW_RESULTS_REPO instead of reading DIR")
    p.add_argument("--merge", action="store_true", help="add missing rows, keep the store's own")
    p.add_argument("--db", help="DuckDB file (default: $TANAW_DB, else ~/.tanaw/tanaw.duckdb)")
    p.set_defaults(func=cmd_import)


def _need_dir(args: argparse.Namespace) -> bool:
    if bool(args.dir) == bool(args.hub):
        print(f"error: give either DIR or --hub to `{args.command}`", file=sys.stderr)
        return False
    return True


def cmd_export(args: argparse.Namespace) -> int:
    from store import hub, parquet
    from store.writer_lock import writer

    if not _need_dir(args):
        return 2
    with writer(args.db) as con:
        if args.hub:
            status = hub.push(con, args.message)
            print(status.message)
            return 0 if status.ok else 1
        done = parquet.export_store(con, args.dir)
    for t in done.values():
        print(f"{t.table:16} {t.rows:>12,} rows  by {','.join(t.partition_by) or '-'}")
    print(f"-> {args.dir}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from store import hub, parquet
    from store.writer_lock import writer

    if not _need_dir(args):
        return 2
    mode = "merge" if args.merge else "replace"
    with writer(args.db) as con:
        if args.hub:
            status = hub.pull(con, mode=mode)
            print(status.message)
            return 0 if status.ok else 1
        try:
            done = parquet.import_store(con, args.dir, mode=mode)
        except parquet.ParquetStoreError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    print(f"{'merged' if args.merge else 'imported'} {sum(t.rows for t in done.values()):,} rows "
          f"in {len(done)} tables from {args.dir}")
    return 0
