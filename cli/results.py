"""`python -m evaluator results pull pacute-paper`: published per-item results, ingested as a labelled source."""
from __future__ import annotations

import sys

from evaluator.datasets.pull.results import RESULT_SETS, ResultsError


def add(sub) -> None:
    p = sub.add_parser("results", help="get published per-item results onto the board (results pull)")
    results_sub = p.add_subparsers(dest="results_command", required=True)
    q = results_sub.add_parser("pull", help="download a published result set at its pinned commit, check every "
                                            "file's checksum, and ingest it")
    q.add_argument("name", choices=tuple(RESULT_SETS), help="pacute-paper: the PACUTE paper's runs (pacute-bench)")
    q.add_argument("--model", action="append", default=None, metavar="FOLDER",
                   help="only this model folder (repeatable; default: every model)")
    q.add_argument("--db", default=None, help="DuckDB file (default: $TANAW_DB or ~/.tanaw/tanaw.duckdb)")
    q.add_argument("--data-dir", default=None, help="data directory with the gold items (default: $TANAW_DATA_DIR)")
    q.add_argument("--base-url", default=None,
                   help="raw-file mirror (default: $TANAW_PULL_BASE_URL or https://raw.githubusercontent.com)")
    q.add_argument("--cache", default=None, help="download folder (default: ~/.tanaw/cache/results); a pull that "
                                                 "stopped resumes from it")
    q.add_argument("--no-progress", action="store_true", help="no progress bars")
    q.set_defaults(func=run)


def run(args) -> int:
    import os

    from evaluator.pacute_human import HumanBaselineError
    from services.pacute_paper import pull_paper_results
    from store.writer_lock import WriterBusy

    say = (lambda line: None) if args.no_progress else (lambda line: print(line, file=sys.stderr))
    try:
        report = pull_paper_results(args.db, data_dir=args.data_dir, models=args.model,
                                    base_url=args.base_url or os.environ.get("TANAW_PULL_BASE_URL"),
                                    cache=args.cache, progress=not args.no_progress, say=say)
    except (ResultsError, HumanBaselineError) as e:
        print(f"{e}; the store was not changed", file=sys.stderr)
        return 2
    except WriterBusy as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    rs = report.result_set
    for w in report.warnings:
        print(f"warning: {w}", file=sys.stderr)
    counts = {s: sum(o.status == s for o in report.outcomes.values()) for s in ("imported", "noop", "rejected")}
    print(f"{rs.label} ({rs.repo}@{rs.commit[:7]}): {counts['imported']} model folders imported, "
          f"{counts['noop']} already there, {counts['rejected']} refused; {report.human_rows} human-baseline rows")
    for folder, out in sorted(report.outcomes.items()):
        if out.status == "rejected":
            print(f"refused: {folder}: {out.message}")
        elif out.warnings:
            print(f"{folder}: {len(out.warnings)} warning(s), first: {out.warnings[0]}")
    print(f"licence: {rs.licence}; cite: {rs.citation}")
    return 0
