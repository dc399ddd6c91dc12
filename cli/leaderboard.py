"""`python -m evaluator leaderboard [--db PATH] [--json]`: every headline cell with raw, normalized, n and CI."""
from __future__ import annotations

import math

from cli.common import fmt, print_json, print_table, read_store
from evaluator.registry import FAMILIES


def add(sub) -> None:
    p = sub.add_parser("leaderboard", help="print model × task × language × prompt-language headline scores")
    p.add_argument("--db", default=None, help="DuckDB file (default: $TANAW_DB or ~/.tanaw/tanaw.duckdb)")
    p.add_argument("--prompt-lang", choices=("en", "native", "both"), default="both")
    p.add_argument("--family", choices=tuple(FAMILIES), default=None)
    p.add_argument("--averages", action="store_true",
                   help="print the stored roll-ups (overall, per competency, per language) instead of the cells")
    p.add_argument("--score", choices=("normalized", "value"), default="normalized",
                   help="scale of --averages: chance-normalized (default) or raw")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--wait", type=float, default=30.0,
                   help="seconds to wait when another process holds the store and there is no snapshot (default 30)")
    p.set_defaults(func=run)


def _clean(v):
    return None if isinstance(v, float) and math.isnan(v) else v


def run(args) -> int:
    import sys

    from store.db import db_path
    from store.queries.leaderboard import leaderboard_cells

    if not db_path(args.db).exists():
        print(f"error: no database at {db_path(args.db)} (start the app once, or ingest a file)", file=sys.stderr)
        return 2
    con = read_store(args.db, args.wait)
    if args.averages:
        return _averages(con, args)
    langs = ("en", "native") if args.prompt_lang == "both" else (args.prompt_lang,)
    rows = []
    for pl in langs:
        df = leaderboard_cells(con, pl, args.family)
        rows += [{k: _clean(v) for k, v in r.items()} for r in df.to_dict("records")]
    rows.sort(key=lambda r: (r["model"], r["task"], r["lang"], r["prompt_lang"]))
    if args.json:
        print_json([{k: r[k] for k in ("model", "origin", "task", "lang", "prompt_lang", "metric", "value",
                                        "normalized", "n", "ci_low", "ci_high", "chance", "parse_fail_rate",
                                        "status", "note")} for r in rows])
        return 0
    if not rows:
        print("no scored cells in this database yet")
        return 0
    print_table([(r["model"], r["origin"], r["task"], r["lang"], r["prompt_lang"], r["metric"],
                  fmt(r["value"]) if r["status"] == "ok" else "not scored yet", fmt(r["normalized"]), r["n"],
                  f"[{fmt(r['ci_low'])}, {fmt(r['ci_high'])}]") for r in rows],
                ("model", "origin", "task", "lang", "prompt", "metric", "raw", "normalized", "n", "95% CI"))
    return 0


def _averages(con, args) -> int:
    """The stored roll-ups (computed by `evaluator.rollup` at ingest), one row per model, prompt and mean."""
    from store.queries.leaderboard import rollup_rows

    prompt = None if args.prompt_lang == "both" else args.prompt_lang
    rows = [{k: _clean(v) for k, v in r.items()}
            for r in rollup_rows(con, prompt, args.family, args.score).to_dict("records")]
    if args.json:
        print_json(rows)
        return 0
    print_table([(r["model"], r["prompt_lang"], r["family"] or "all", r["level"], r["key"] or "-", fmt(r["value"]),
                  r["coverage"]) for r in rows], ("model", "prompt", "family", "level", "of", args.score, "cells"))
    return 0
