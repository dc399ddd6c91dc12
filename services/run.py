"""Live runs into the store: a `RunSpec` in, the runner's statuses out (the CLI `run` and the worker's child call it).

`execute` builds the backend the spec names, opens the store, hands the spec to `evaluator.run.run` unchanged with
a `services.live.StoreSink` (scored answers written in groups through `services.live.save_live`), and returns the
runner's cell statuses.
`run_and_report` adds the printed summary and the exit code shared by `python -m evaluator run` and
`python -m services.run_child`: 0 all stored, 1 some answers failed, 2 the spec or backend is unusable.
"""
from __future__ import annotations

import asyncio
import sys
from typing import Any

from evaluator import backends
from evaluator.run import CellStatus, run, summary_table
from evaluator.runspec import ConfigError, RunSpec
from services.live import StoreSink


async def _ask_all(spec: RunSpec, backend: Any, endpoint: dict, sink: StoreSink, progress: bool) -> list:
    try:
        counter = getattr(backend, "count_tokens", None)
        return await run(backend, sink, spec, endpoint=endpoint, progress=progress, count_tokens=counter,
                         tokenizer=getattr(backend, "tokenizer_name", "model tokenizer"))
    finally:
        await backend.close()


def execute(spec: RunSpec, *, progress: bool = False) -> list[CellStatus]:
    """Run a spec into its store (`spec.db`); ConfigError or ImportError when its backend cannot be built."""
    from services.ownership import name_refusal
    from store.db import connect
    from store.owners import OPERATOR

    backend, endpoint = backends.for_spec(spec.checked())
    con = connect(spec.db)
    try:
        refusal = name_refusal(con, spec.model, spec.model_info.get("owner") or OPERATOR)
        if refusal is not None:  # another identity's model, or a name that looks like one
            raise ConfigError(f"model: {refusal}")
        return asyncio.run(_ask_all(spec, backend, endpoint, StoreSink(con, spec.model, spec.model_info), progress))
    finally:
        con.close()


def run_and_report(spec: RunSpec, *, progress: bool = False) -> int:
    """`execute` with the summary table on stdout and errors as one line on stderr; the exit code."""
    try:
        statuses = execute(spec, progress=progress)
    except (ConfigError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(summary_table(statuses))
    failed = sum(s.failed for s in statuses)
    asked = sum(s.asked for s in statuses)
    print(f"\n{asked} answers stored, {sum(s.resumed for s in statuses)} already stored, {failed} failed "
          f"-> {spec.db or 'default store'}")
    return 1 if failed else 0
