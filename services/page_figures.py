"""Page figures computed once and stored (V12), so every query the pages call only filters and joins.

- `refresh_reported`: the papers' reported rows normalised like the aggregates (evaluator.reported), when the rows
  load (services.demo) and whenever a start or a Hub pull finds them stale.
- `refresh_model_figures`: runs wherever a model's roll-ups are refreshed (services.ingest.refresh_rollups: ingest,
  upload deletion, the live runner's per-cell refresh, a Hub pull), and when a model is hidden or shown again, inside
  the caller's transaction: the field of the model's headline cells (every visible model's rank range, median and
  delta on them, evaluator.model_figures.cell_field) and its PACUTE control ceilings (evaluator.ceiling).
- `backfill_page_figures`: at start and after a Hub pull, whatever a store written before V12 or an export lacks.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import duckdb

from evaluator.ceiling import control_ceilings
from evaluator.model_figures import cell_field
from evaluator.reported import reported_normalized
from evaluator.rollup import CONTROLS
from store import page_figures as stored
from store.db import transaction


def refresh_reported(con: duckdb.DuckDBPyConnection) -> int:
    """Recompute and store every reported row's chance and normalised value (caller's transaction); returns rows."""
    rows = []
    for r in stored.reported_rows(con).astype(object).to_dict("records"):
        r = {k: (None if v != v else v) for k, v in r.items()}  # NaN -> NULL
        chance, normalized = reported_normalized(r["task"], r["lang"], r["metric"], r["value"])
        rows.append({**r, "chance": chance, "normalized": normalized})
    stored.save_reported_normalized(con, rows)
    return len(rows)


def _refresh_field(con: duckdb.DuckDBPyConnection, model_ids: Sequence[str],
                   among: Sequence[Sequence[str]] | None, scanned: Sequence[tuple] | None = None) -> None:
    """The field of the cells these models are on whose scored rows changed (the live runner's refresh after one
    cell recomputes that cell's, not the model's every cell); `scanned`: what `store.page_figures.field_scan` would
    read now, when the caller has it."""
    cells: dict[tuple, dict] = {}
    hashes: dict[tuple, str | None] = {}
    had: set[tuple] = set()  # stale cells with stored rows to replace
    stale = stored.stale_field_cells(con, model_ids, among, had) if scanned is None else \
        stored.stale_from(scanned, had)
    for *key, inputs_hash, model_id, value, lo, hi in stale:
        cell = cells.setdefault(tuple(key), {})
        hashes[tuple(key)] = inputs_hash
        if model_id is not None:
            cell[model_id] = (float(value), lo, hi)
    rows = [{"model_id": m, **dict(zip(stored.CELL_KEY, key)), **f, "inputs_hash": hashes[key]}
            for key, cell in cells.items() for m, f in cell_field(cell).items()]
    stored.save_field(con, [list(k) for k in cells if k in had], rows)


def refresh_model_figures(con: duckdb.DuckDBPyConnection, model_ids: Iterable[str],
                          cells: Iterable[Sequence[str]] | None = None,
                          field: Sequence[tuple] | None = None) -> None:
    """Recompute and store the page figures of these models (inside the caller's transaction). `cells`: the
    (task, lang, prompt_lang) cells just recomputed, when only those changed (None: any may have); `field`: the field's read (`store.page_figures.field_scan` of these models on `cells`) when the caller has it."""
    models = sorted(set(model_ids))
    if not models:
        return
    among = None if cells is None else sorted({tuple(c)[:3] for c in cells})
    _refresh_field(con, models, among, field)
    for model_id in models:
        if among is None or any(task in CONTROLS for task, *_ in among):  # else its ceilings are unchanged
            stored.save_ceilings(con, model_id, control_ceilings(stored.english_cells(con, model_id).to_dict("records")))


def backfill_page_figures(con: duckdb.DuckDBPyConnection) -> dict[str, object]:
    """Compute, in one transaction, the page figures a store written before V12 (or an export) lacks; returns
    what was done."""
    done: dict[str, object] = {}
    with transaction(con):
        if stored.reported_stale(con):
            done["reported"] = refresh_reported(con)
        missing = stored.models_without_figures(con)
        if missing:
            refresh_model_figures(con, missing)
            done["models"] = missing
    return done
