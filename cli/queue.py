"""`python -m evaluator queue`: add an evaluation request exactly as the queue page does, or list requests.

`services.queue.submit_request` is the one path into the queue for the page and this command: field checks
(store.queue.validate), the endpoint policy (evaluator.endpoints.check: every URL public, the key allow-listed and
bound to its endpoint), then one locked write. A refusal prints one line and exits 2.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from cli.common import print_table

EXAMPLE = """examples:
  python -m evaluator queue add --model my-model --base-url https://llm.example.org/v1 --tasks bhasa --langs id
  TANAW_ENDPOINT_KEYS=openai:OPENAI_API_KEY python -m evaluator queue add --model gpt-x \\
      --base-url https://api.openai.com/v1 --api-key-env OPENAI_API_KEY
  python -m evaluator queue list --status PENDING"""


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("queue", help="add an evaluation request to the queue (the page's checks) or list requests",
                       description=__doc__, epilog=EXAMPLE, formatter_class=argparse.RawTextHelpFormatter)
    actions = p.add_subparsers(dest="queue_command", required=True)
    a = actions.add_parser("add", help="queue a request for a model at an OpenAI-compatible endpoint or on the Hub")
    a.add_argument("--model", required=True, help="model name as shown on the leaderboard")
    a.add_argument("--base-url", help="OpenAI-compatible endpoint including /v1 (comma-separated replicas allowed)")
    a.add_argument("--hub-model", help="Hub model id (queues a Hub request when --base-url is absent), or the "
                                       "model name the endpoint expects")
    a.add_argument("--revision", help="Hub revision for a Hub model")
    a.add_argument("--api-key-env", help="key variable from the operator's TANAW_ENDPOINT_KEYS allow-list")
    a.add_argument("--tasks", help="comma list of task ids or families (default: all)")
    a.add_argument("--langs", help="comma list of languages (default: every language of each task)")
    a.add_argument("--prompt-lang", default="en,native", help="en, native or en,native (default)")
    a.add_argument("--limit", type=int, help="at most N items per task and language")
    a.add_argument("--mode", choices=("leakage",), help="leakage: queue the leakage probes of the model instead of "
                                                        "an evaluation run (`tanaw leakage`)")
    a.add_argument("--submitter", help="who asked (name or contact)")
    a.add_argument("--db", help="DuckDB file (default: $TANAW_DB, else ~/.tanaw/tanaw.duckdb)")
    a.set_defaults(func=cmd_add)
    ls = actions.add_parser("list", help="list requests, oldest first")
    ls.add_argument("--status", help="PENDING, RUNNING, FINISHED or FAILED")
    ls.add_argument("--db", help="DuckDB file")
    ls.set_defaults(func=cmd_list)


def cmd_add(args: argparse.Namespace) -> int:
    from evaluator.endpoints import EndpointRefused
    from services.queue import submit_request
    from store.queue import QueueError, Submission
    from store.writer_lock import WriterBusy

    backend = "openai" if args.base_url else "hub"
    request = Submission(request_id="", model_id=args.model.strip(), backend=backend, base_url=args.base_url,
                         hub_model=args.hub_model, revision=args.revision, api_key_env=args.api_key_env,
                         tasks=args.tasks, langs=args.langs, prompt_langs=args.prompt_lang, item_limit=args.limit,
                         submitter=args.submitter or f"cli:{os.environ.get('USER', '')}".rstrip(":"),
                         mode=args.mode)
    try:
        stored, created = submit_request(Path(args.db) if args.db else None, request)
    except (QueueError, EndpointRefused, WriterBusy) as e:
        print(f"error: not queued: {e}", file=sys.stderr)
        return 2
    print(f"queued as request {stored.request_id}" if created else
          f"the same request is already {stored.status} (request {stored.request_id})")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from cli.common import read_store
    from store import queue

    con = read_store(args.db)
    try:
        rows = queue.listing(con, args.status)
    finally:
        con.close()
    print_table([(r.request_id, r.status, r.model_id, r.base_url or r.hub_model, r.created_at) for r in rows],
                ["request", "status", "model", "served at", "submitted"])
    return 0
