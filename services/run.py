"""Live runs into the store: a `RunSpec` in, the runner's statuses out (the CLI `run` and the worker's child call it).

`execute` builds the backend the spec names, opens the store, hands the spec to `evaluator.run.run` unchanged with
a `StoreSink` (scored answers written through `services.ingest.save_live`), and returns the runner's cell statuses.
`run_and_report` adds the printed summary and the exit code shared by `python -m evaluator run` and
`python -m services.run_child`: 0 all stored, 1 some answers failed, 2 the spec or backend is unusable.
"""
from __future__ import annotations

import asyncio
import sys
from typing import Any, Mapping, Sequence

from evaluator import backends
from evaluator.run import Cell, CellStatus, run, summary_table
from evaluator.runspec import ConfigError, RunSpec
from evaluator.spec import Item, ItemResult
from services import ingest


class StoreSink:
    """Results into DuckDB through `ingest.save_live`: one small transaction per group of answers."""

    def __init__(self, con: Any, model_id: str, model_info: Mapping[str, Any] | None = None):
        self.con, self.model_id, self.model_info = con, model_id, dict(model_info or {})
        self._known: set = set()

    def _run_id(self, cell: Cell) -> str:
        return ingest.run_id(self.model_id, cell.task.name, cell.lang, cell.prompt_lang, cell.run_no, "evaluated")

    def stored(self, cell: Cell) -> set[tuple[str, str]]:
        """(item_id, order) already stored for the cell's run."""
        from store import writer

        return writer.stored_keys(self.con, self._run_id(cell))

    def save_many(self, rows: Sequence[tuple[Cell, Mapping[str, Any], Item, ItemResult]]) -> None:
        """Store scored answers (cell, settings, item, result) in one transaction (committed on return)."""
        live = [({"task": cell.task.name, "lang": cell.lang, "prompt_lang": cell.prompt_lang, "run_no": cell.run_no,
                  "settings": dict(settings)}, item, result) for cell, settings, item, result in rows]
        ingest.save_live(self.con, self.model_id, live, model_info=self.model_info, known=self._known)

    def refresh(self, cell: Cell) -> float | None:
        """Recompute the cell's aggregates; returns its headline value (0-100) when scored."""
        cur = self.con.cursor()  # its own connection: runs on the refresh thread beside the writer
        try:
            cells = ingest.refresh_aggregates(cur, self.model_id, [(cell.task.name, cell.lang, cell.prompt_lang)])
        finally:
            cur.close()
        return cells[0].value if cells else None


async def _ask_all(spec: RunSpec, backend: Any, endpoint: dict, sink: StoreSink, progress: bool) -> list:
    try:
        counter = getattr(backend, "count_tokens", None)
        return await run(backend, sink, spec, endpoint=endpoint, progress=progress, count_tokens=counter,
                         tokenizer=getattr(backend, "tokenizer_name", "model tokenizer"))
    finally:
        await backend.close()


def execute(spec: RunSpec, *, progress: bool = False) -> list[CellStatus]:
    """Run a spec into its store (`spec.db`); ConfigError or ImportError when its backend cannot be built."""
    from store.db import connect

    backend, endpoint = backends.for_spec(spec.checked())
    con = connect(spec.db)
    try:
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
