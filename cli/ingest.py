"""`python -m evaluator ingest PATH --model NAME`: re-score a result file (or zip/folder) into the store.

Never trusts scores in the file: every prediction is re-scored against our gold. Bad input exits 2 with
`FILE:LINE: field: problem` lines and leaves the database unchanged; the same file twice is a no-op.
"""
from __future__ import annotations

import sys

from cli.common import fmt, print_table
from evaluator.formats import detect


def add(sub) -> None:
    p = sub.add_parser("ingest", help="score a predictions/result file (native JSONL, pacute-bench, SEA-HELM, "
                                      "lm-eval, zip or folder) into the store")
    p.add_argument("path", help="file, .zip or folder")
    p.add_argument("--model", required=True, help="model name as it will be shown")
    p.add_argument("--format", default="auto", choices=("auto", *detect.FORMATS),
                   help="input format (default: detected from name and content)")
    p.add_argument("--db", default=None, help="DuckDB file (default: $TANAW_DB or ~/.tanaw/tanaw.duckdb)")
    p.add_argument("--data-dir", default=None, help="data directory with the gold items (default: $TANAW_DATA_DIR)")
    p.add_argument("--organisation", default=None)
    p.add_argument("--params-b", type=float, default=None, help="parameters in billions")
    p.add_argument("--model-type", choices=("base", "instruct", "reasoning"), default=None)
    p.add_argument("--weights", choices=("open", "closed"), default=None)
    p.add_argument("--wait", type=float, default=120.0, help="seconds to wait for the store to be free (default 120)")
    p.add_argument("--allow-partial", action="store_true",
                   help="import even when most answer rows match none of the items (default: refuse, naming them)")
    p.add_argument("--inbox", action="store_true",
                   help="if another process (the app) holds the store, queue the file for it to import")
    p.set_defaults(func=run)


def run(args) -> int:
    from evaluator.formats.read import read_upload
    from services.upload import clean_model, ingest_upload, queue_upload
    from store.writer_lock import WriterBusy

    upload = read_upload(args.path, fmt=args.format, data_dir=args.data_dir)
    model = {"model_id": args.model, "organisation": args.organisation, "params_b": args.params_b,
             "model_type": args.model_type, "weights": args.weights}
    try:
        clean_model(model)
    except ValueError as e:  # an empty, over-long or undecodable name
        print(f"error: --model: {e}", file=sys.stderr)
        return 2
    try:
        out = ingest_upload(args.db, upload, model=model, data_dir=args.data_dir, timeout=args.wait,
                            allow_partial=args.allow_partial)
    except WriterBusy as e:
        if not args.inbox:
            print(f"error: {e}", file=sys.stderr)
            return 3
        queued = queue_upload(args.db, args.path, fmt=args.format, model=model, allow_partial=args.allow_partial)
        print(f"the store is in use; queued {queued} for the app to import (on its Upload page)")
        return 0
    for w in out.warnings[:50]:
        print(f"warning: {w}", file=sys.stderr)
    if out.status == "rejected":
        for e in out.errors:
            print(str(e), file=sys.stderr)
        print(f"error: {out.message}", file=sys.stderr)
        return 2
    print(out.message)
    rows = [(c.task, c.lang, c.prompt_lang, c.metric, fmt(c.value), f"[{fmt(c.ci_low)}, {fmt(c.ci_high)}]",
             fmt(c.normalized), c.n, fmt(None if c.parse_fail_rate is None else 100 * c.parse_fail_rate),
             c.status if c.status == "ok" else f"{c.status}: {c.note or ''}".strip())
            for c in sorted(out.cells, key=lambda c: (c.task, c.lang, c.prompt_lang))]
    if rows:
        print_table(rows, ("task", "lang", "prompt", "metric", "score", "95% CI", "normalized", "n", "unparsed %",
                           "status"))
    return 0
