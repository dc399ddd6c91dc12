"""`python -m evaluator campaign create|status|tokens|finish|export`: human evaluation campaigns.

`create` samples items (recorded seed) that every chosen system answered, plans blinded candidates for k annotators
per item with quality checks, and prints each annotator's personal link (the token is shown once; only its hash is
stored). `tokens` issues new links (old ones stop working). `export` writes judgements with systems unblinded.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cli.common import app_serving, ask_app, print_table, read_store

EXAMPLE = """examples:
  python -m evaluator campaign create --id mt-th-1 --task translation-en-xx --lang th \\
      --systems "model-a:native,model-b:en" --annotators ann,bo,cy --items 20 --k 3 --seed 1
  python -m evaluator campaign status --id mt-th-1
  python -m evaluator campaign tokens --id mt-th-1 --annotators bo
  python -m evaluator campaign finish --id mt-th-1
  python -m evaluator campaign export --id mt-th-1 --format parquet --out mt-th-1.parquet"""


def _db(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", help="DuckDB file (default: $TANAW_DB, else ~/.tanaw/tanaw.duckdb)")
    p.add_argument("--wait", type=float, default=120.0,
                   help="seconds to wait for the store, or for the app serving it to apply a change (default 120)")


def _through_app(args: argparse.Namespace, op: str, request: dict) -> dict | None:
    """While an app serves the store, the change goes through its inbox: the answer (None when the app did not
    answer in time, or no app serves the store)."""
    if not app_serving(args.db):
        return None
    return ask_app(args.db, op, request, args.wait) or {"ok": False, "pending": True}


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("campaign", help="human evaluation campaigns: create, status, tokens, finish, export",
                       description=__doc__, epilog=EXAMPLE, formatter_class=argparse.RawTextHelpFormatter)
    actions = p.add_subparsers(dest="campaign_command", required=True)
    c = actions.add_parser("create", help="sample items and assign blinded candidates to annotators")
    c.add_argument("--id", required=True, help="campaign id (letters, digits, - and _)")
    c.add_argument("--task", required=True)
    c.add_argument("--lang", required=True)
    c.add_argument("--systems", required=True, help="comma list of model:prompt_lang (prompt_lang en or native)")
    c.add_argument("--annotators", required=True, help="comma list of annotator names")
    c.add_argument("--items", type=int, default=20, help="items to sample (default 20, as BHASA)")
    c.add_argument("--k", type=int, default=3, help="annotators per item (default 3)")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--repeats", type=int, default=1, help="quality-check repeats per annotator (default 1)")
    c.add_argument("--protocol", help="mt or summarisation (default: from the task)")
    c.add_argument("--url", default="http://localhost:8501/annotate", help="base of the annotation links")
    _db(c)
    c.set_defaults(func=cmd_create)
    s = actions.add_parser("status", help="progress per annotator")
    s.add_argument("--id", help="one campaign (default: all)")
    _db(s)
    s.set_defaults(func=cmd_status)
    t = actions.add_parser("tokens", help="issue new annotator links (old ones stop working)")
    t.add_argument("--id", required=True)
    t.add_argument("--annotators", help="comma list (default: all)")
    t.add_argument("--url", default="http://localhost:8501/annotate")
    _db(t)
    t.set_defaults(func=cmd_tokens)
    f = actions.add_parser("finish", help="close a campaign: its results appear on the leaderboard")
    f.add_argument("--id", required=True)
    f.add_argument("--reopen", action="store_true")
    _db(f)
    f.set_defaults(func=cmd_finish)
    e = actions.add_parser("export", help="judgements as CSV, JSONL or Parquet (systems unblinded)")
    e.add_argument("--id", help="one campaign (default: all)")
    e.add_argument("--format", choices=("csv", "jsonl", "parquet"), default="csv")
    e.add_argument("--out", required=True)
    _db(e)
    e.set_defaults(func=cmd_export)


def _actor() -> str:
    from services.upload import default_actor

    return default_actor()


def _links(url: str, tokens: dict[str, str]) -> None:
    for name, token in sorted(tokens.items()):
        print(f"{name}\t{url}?token={token}")


def cmd_create(args: argparse.Namespace) -> int:
    from services.campaigns import CampaignRefused, create_campaign
    from store.writer_lock import WriterBusy

    systems = []
    for entry in args.systems.split(","):
        model, _, prompt_lang = entry.strip().rpartition(":")
        if not model or prompt_lang not in ("en", "native"):
            print(f"error: --systems: {entry!r} is not model:en or model:native", file=sys.stderr)
            return 2
        systems.append((model, prompt_lang))
    names = [a.strip() for a in args.annotators.split(",") if a.strip()]
    answer = _through_app(args, "campaign-create", {
        "id": args.id, "task": args.task, "lang": args.lang, "systems": systems, "annotators": names,
        "items": args.items, "k": args.k, "seed": args.seed, "repeats": args.repeats, "protocol": args.protocol})
    if answer is not None:
        if not answer.get("ok"):
            return _refused("campaign not created", answer)
        print(f"campaign {args.id} created by the app; personal links (shown once):")
        _links(args.url, answer["tokens"])
        return 0
    try:
        tokens = create_campaign(args.db, campaign_id=args.id, task=args.task, lang=args.lang, systems=systems,
                                 annotators=names, n_items=args.items, k=args.k, seed=args.seed,
                                 n_repeats=args.repeats, protocol=args.protocol, actor=_actor(),
                                 timeout=args.wait)
    except (CampaignRefused, ValueError, WriterBusy) as e:
        print(f"error: campaign not created: {e}", file=sys.stderr)
        return 2
    print(f"campaign {args.id} created; personal links (shown once):")
    _links(args.url, tokens)
    return 0


def _refused(what: str, answer: dict) -> int:
    if answer.get("pending"):
        return 3
    print(f"error: {what}: {answer.get('error')}", file=sys.stderr)
    return 2


def cmd_status(args: argparse.Namespace) -> int:
    from store import campaigns

    con = read_store(args.db, args.wait)
    try:
        rows = []
        for c in campaigns.campaigns(con):
            if args.id and c.campaign_id != args.id:
                continue
            for name, done, total in campaigns.progress(con, c.campaign_id):
                rows.append((c.campaign_id, c.task, c.lang, c.status, name, f"{done}/{total}"))
    finally:
        con.close()
    print_table(rows, ["campaign", "task", "lang", "status", "annotator", "judged"])
    return 0


def cmd_tokens(args: argparse.Namespace) -> int:
    from services.campaigns import CampaignRefused, reissue_tokens
    from store.writer_lock import WriterBusy

    names = [a.strip() for a in args.annotators.split(",")] if args.annotators else None
    answer = _through_app(args, "campaign-tokens", {"id": args.id, "annotators": names})
    if answer is not None:
        if not answer.get("ok"):
            return _refused("no new links", answer)
        _links(args.url, answer["tokens"])
        return 0
    try:
        tokens = reissue_tokens(args.db, args.id, names, actor=_actor(), timeout=args.wait)
    except (CampaignRefused, WriterBusy) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    _links(args.url, tokens)
    return 0


def cmd_finish(args: argparse.Namespace) -> int:
    from services.campaigns import CampaignRefused, set_finished
    from store.writer_lock import WriterBusy

    answer = _through_app(args, "campaign-finish", {"id": args.id, "reopen": args.reopen})
    if answer is not None:
        if not answer.get("ok"):
            return _refused(f"campaign {args.id} not {'reopened' if args.reopen else 'finished'}", answer)
        print(f"campaign {args.id} {'reopened' if args.reopen else 'finished'} by the app")
        return 0
    try:
        set_finished(args.db, args.id, not args.reopen, actor=_actor(), timeout=args.wait)
    except (CampaignRefused, WriterBusy) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"campaign {args.id} {'reopened' if args.reopen else 'finished'}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from services.campaigns import export

    con = read_store(args.db, args.wait)
    try:
        n = export(con, args.id, Path(args.out), args.format)
    finally:
        con.close()
    print(f"{n} judgement rows written to {args.out}")
    return 0
