"""`python -m evaluator judge-import INFERENCE.jsonl [JUDGE_BATCH_RESPONSE.jsonl ...] [--model M] [--judge-model J]`:
store SEA-HELM mt-bench answers turn by turn, with SEA-HELM's judge scores kept as self-reported judge scores
naming their judge (re-judge them with `python -m evaluator judge`)."""
from __future__ import annotations

import sys
from pathlib import Path


def add(sub) -> None:
    p = sub.add_parser("judge-import", help="import SEA-HELM mt-bench inference (and judge batch response) files "
                                            "as conversations with self-reported judge scores")
    p.add_argument("files", nargs="+", help="the {model}_mt-bench_{lang}.jsonl inference file first, then any "
                                            "..._turn{n}_judge_batch_response.jsonl files of the same run")
    p.add_argument("--model", default=None, help="model id (default: the one in the file name)")
    p.add_argument("--judge-model", default=None,
                   help="the judge that scored them (default: the one SEA-HELM's mt-bench config names)")
    p.add_argument("--db", default=None, help="DuckDB file (default: $TANAW_DB or ~/.tanaw/tanaw.duckdb)")
    p.set_defaults(func=run)


def run(args) -> int:
    from evaluator.formats.limits import DEFAULT_LIMITS
    from services.judge import import_seahelm
    from store.writer_lock import writer

    blobs = []
    for f in args.files:
        path = Path(f)
        if not path.is_file():
            print(f"error: {f}: no such file", file=sys.stderr)
            return 2
        if path.stat().st_size > DEFAULT_LIMITS.max_bytes:
            print(f"error: {f}: larger than {DEFAULT_LIMITS.max_bytes} bytes", file=sys.stderr)
            return 2
        blobs.append((path.read_bytes(), path.name))
    try:
        with writer(args.db) as con:
            s = import_seahelm(con, blobs[0][0], blobs[0][1], model=args.model, judge_model=args.judge_model,
                               batches=blobs[1:])
    except ValueError as exc:
        print(f"error: nothing imported: {exc}", file=sys.stderr)
        return 2
    print(f"{s.model}: {s.task} ({s.lang}) {s.conversations} conversations, {s.turns} turn answers, "
          f"{s.judged_turns} self-reported judge scores by {s.judge_model}")
    return 0
