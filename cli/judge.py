"""`python -m evaluator judge --task sea-mt-bench --langs id,th --judge-model M --judge-base-url URL [--kind
single|pairwise]`: score a conversation task's stored answers with an LLM judge (cached: a second pass sends
nothing) and print what it did."""
from __future__ import annotations

import sys

from cli.common import print_table


def add(sub) -> None:
    p = sub.add_parser("judge", help="score stored multi-turn conversations with an LLM judge (judge scores, kept "
                                     "apart from metric scores)")
    p.add_argument("--task", required=True, help="a conversation task (mode chat), e.g. sea-mt-bench")
    p.add_argument("--langs", required=True, help="comma-separated languages")
    p.add_argument("--kind", choices=("single", "pairwise"), default="single",
                   help="single: MT-Bench 1-10 grading; pairwise: against the reference model's answers, both orders")
    p.add_argument("--models", default=None, help="comma-separated model ids (default: every model of the cell)")
    p.add_argument("--judge-model", required=True)
    p.add_argument("--judge-base-url", required=True, help="the judge's OpenAI-compatible endpoint")
    p.add_argument("--judge-key-env", default=None,
                   help="variable holding the judge's key; must be bound to this URL in TANAW_ENDPOINT_KEYS")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--max-tokens", type=int, default=2048)
    p.add_argument("--price-in", type=float, default=None, help="US dollars per million prompt tokens")
    p.add_argument("--price-out", type=float, default=None, help="US dollars per million completion tokens")
    p.add_argument("--db", default=None, help="DuckDB file (default: $TANAW_DB or ~/.tanaw/tanaw.duckdb)")
    p.set_defaults(func=run)


def run(args) -> int:
    from evaluator.endpoints import EndpointRefused
    from evaluator.judge.client import JudgeClient, JudgeConfig
    from evaluator.registry import TASKS
    from services.judge import judge_cell
    from store.writer_lock import writer

    task = TASKS.get(args.task)
    if task is None or task.mode != "chat":
        print(f"error: --task: {args.task!r} is not a conversation task (mode chat)", file=sys.stderr)
        return 2
    cfg = JudgeConfig(model=args.judge_model, base_url=args.judge_base_url, api_key_env=args.judge_key_env,
                      temperature=args.temperature, max_tokens=args.max_tokens, price_in=args.price_in,
                      price_out=args.price_out)
    try:
        client = JudgeClient(cfg)
    except EndpointRefused as exc:
        print(f"error: judge endpoint: {exc}", file=sys.stderr)
        return 2
    models = [m.strip() for m in args.models.split(",")] if args.models else None
    rows = []
    try:
        with writer(args.db) as con:
            for lang in [x.strip() for x in args.langs.split(",") if x.strip()]:
                s = judge_cell(con, cfg, task.name, lang, args.kind, models=models, client=client)
                rows.append((task.name, lang, s.turns, s.sent, s.cached, s.tokens_in, s.tokens_out,
                             "—" if s.cost is None else f"{s.cost:.4f}"))
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        print(f"error: judging stopped: {type(exc).__name__}: {str(exc)[:300]}", file=sys.stderr)
        return 1
    finally:
        client.close()
    print_table(rows, ("task", "lang", "turns scored", "requests sent", "from cache", "tokens in", "tokens out",
                       "cost USD"))
    return 0
