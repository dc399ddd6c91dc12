"""`python -m evaluator ingest PATH --model NAME`: re-score a result file (or zip/folder) into the store.

Never trusts scores in the file: every prediction is re-scored against our gold. Bad input exits 2 with
`FILE:LINE: field: problem` lines and leaves the database unchanged; the same file twice is a no-op.
"""
from __future__ import annotations

import sys

from cli.common import app_serving, fmt, print_table, say
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
    p.add_argument("--params-b", type=float, default=None, help="parameters in billions (default: unknown)")
    p.add_argument("--model-type", choices=("base", "instruct", "reasoning"), default=None,
                   help="default: what the file states (pacute-bench does), else unknown")
    p.add_argument("--weights", choices=("open", "closed"), default=None, help="default: unknown (never assumed)")
    p.add_argument("--wait", type=float, default=120.0, help="seconds to wait for the store to be free (default 120)")
    p.add_argument("--allow-partial", action="store_true",
                   help="import even when most answer rows match none of the items (default: refuse, naming them)")
    p.add_argument("--inbox", action="store_true",
                   help="if another process (the app) holds the store, queue the file for it to import")
    p.set_defaults(func=run)


def run(args) -> int:
    from evaluator.formats.read import NOTHING_MATCHED, read_upload
    from services.upload import clean_model, ingest_upload, queue_upload
    from store.writer_lock import WriterBusy

    upload = read_upload(args.path, fmt=args.format, data_dir=args.data_dir)
    stated = {k: v for k, v in upload.model_meta.items() if getattr(args, k, None) is None}
    for k, v in stated.items():
        say(f"note: {k.replace('_', ' ')} {v!r} from the file (override with --{k.replace('_', '-')})")
    model = {"model_id": args.model, "organisation": args.organisation, "params_b": args.params_b,
             "model_type": args.model_type, "weights": args.weights, **stated}  # unstated: NULL, shown as "—"
    try:
        clean_model(model)
    except ValueError as e:  # an empty, over-long or undecodable name
        print(f"error: --model: {e}", file=sys.stderr)
        return 2
    if app_serving(args.db) and not [e for e in upload.errors if e.problem != NOTHING_MATCHED]:
        return _through_app(args, model)  # the app holds the store while it runs: it imports the file
    try:  # a file the app would refuse too: refused here at once (its audit row is lost while the app holds it)
        out = ingest_upload(args.db, upload, model=model, data_dir=args.data_dir,
                            timeout=1.0 if app_serving(args.db) else args.wait, allow_partial=args.allow_partial)
    except WriterBusy as e:
        if not args.inbox:
            print(f"error: {e}", file=sys.stderr)
            return 3
        queued = queue_upload(args.db, args.path, fmt=args.format, model=model, allow_partial=args.allow_partial)
        print(f"the store is in use; queued {queued} in its inbox: the app imports it within a few seconds of "
              "starting on this store (or, while it runs, of seeing it); nothing else is needed")
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


def _through_app(args, model: dict) -> int:
    """Queue the file for the app serving the store and print its answer (the app scores it against its own
    items, as an upload by this user)."""
    from services.upload import queue_upload
    from store import inbox

    queued = queue_upload(args.db, args.path, fmt=args.format, model=model, allow_partial=args.allow_partial)
    say(f"the app serving this store holds it: queued {queued.name} in its inbox ({queued.parent}); the app "
        "imports it within a few seconds, scored against the app's own items; waiting for its answer")
    answer = inbox.wait_reply(args.db, queued.stem, args.wait,
                              progress=lambda s: say(f"still waiting for the app ({s:.0f} s of {args.wait:.0f})"))
    if answer is None:
        say(f"no answer within {args.wait:.0f} s: the file stays queued and the app imports it when it next looks "
            "(at the latest when it starts again); `leaderboard` shows it then")
        return 3
    for e in answer.get("errors") or []:
        print(e, file=sys.stderr)
    if not answer.get("ok"):
        print(f"error: {answer.get('message')}", file=sys.stderr)
        return 2
    print(f"{answer.get('message')} (the app's answer)")
    return 0
