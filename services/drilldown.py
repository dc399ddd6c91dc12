"""Fill in the drill-down pre-aggregates (schema V7) of cells stored before they existed.

A store written before V7, or an import of an older export, has runs and aggregates but no drill-down rows; the
pages read only those. Each such cell's stored answers are read back as ingest re-aggregates them and
`evaluator.drilldown.cell_drilldown` computes what ingest would have written; nothing else is changed.
"""
from __future__ import annotations

import duckdb

from evaluator.drilldown import cell_drilldown
from evaluator.registry import TASKS
from services.ingest import _rebuild
from store.db import transaction
from store.drilldown import cells_without_drilldown, save_drilldown


def backfill_drilldowns(con: duckdb.DuckDBPyConnection) -> int:
    """Write the missing pre-aggregates in one transaction; returns how many cells were filled."""
    missing = [c for c in cells_without_drilldown(con) if c[1] in TASKS]
    if not missing:
        return 0
    with transaction(con):
        for model_id, task, lang, prompt_lang in missing:
            pairs = _rebuild(con, model_id, TASKS[task], lang, prompt_lang)
            save_drilldown(con, model_id, task, lang, prompt_lang, cell_drilldown(pairs))
    return len(missing)
