"""Drill-down levels of the LINDSEA and PACUTE pages, computed once from the stored node counts.

`refresh_levels` runs wherever a model's roll-ups are refreshed (services.ingest.refresh_rollups: after its cells'
drill-downs are written by ingest, upload deletion or the live runner), inside the same transaction: the LINDSEA
tree pools a model-language's LINDSEA tasks per prompt language, the PACUTE levels each hierarchy cell per metric,
both with evaluator.drill_levels.pooled_levels (items pooled, Wilson intervals). `backfill_levels` recomputes the
models a store upgrade, a drill-down back-fill or a Hub pull left missing or stale.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import duckdb

from evaluator.drill_levels import pooled_levels
from store.db import transaction
from store.drill_levels import (LINDSEA_KEYS, PACUTE_KEYS, Groups, level_groups, lindsea_nodes, pacute_nodes,
                                save_levels, stale_models)


def _levels(nodes, group: list[str], keys: tuple[str, ...], scope) -> list[dict]:
    rows = []
    for ids, part in nodes.groupby(group, dropna=False):
        base = dict(zip(group, ids))
        base.setdefault("scope", scope)
        base.setdefault("metric", "")
        if "task" in base:
            base["scope"] = base.pop("task")
        records = part.astype(object).where(part.notna(), None).to_dict("records")
        for r in pooled_levels(records, keys):
            rows.append({**base, **dict(zip(keys, r.pop("keys"))), **r})
    return rows


def level_rows(lindsea, pacute) -> list[dict]:
    """Stored rows from a model's LINDSEA and PACUTE node counts (store.drill_levels frames)."""
    return (_levels(lindsea, ["lang", "prompt_lang"], LINDSEA_KEYS, "lindsea")
            + _levels(pacute, ["lang", "prompt_lang", "task", "metric"], PACUTE_KEYS, None))


def refresh_levels(con: duckdb.DuckDBPyConnection, model_ids: Iterable[str],
                   cells: Sequence[Sequence[str]] | None = None, groups: Groups | None = None) -> None:
    """Recompute and store the drill-down levels of these models (inside the caller's transaction); `cells`: only
    the levels these (task, lang, prompt_lang) cells pool into (nothing when none is a LINDSEA or PACUTE
    hierarchy cell); `groups`: those levels' groups when the caller read them (`store.cell_rows.refresh_state`)."""
    if groups is None:
        groups = level_groups(con, cells) if cells is not None else None
    if groups is not None and not any(groups):
        return
    lindsea, pacute = groups or (None, None)
    for model_id in sorted(set(model_ids)):
        rows = level_rows(lindsea_nodes(con, model_id, lindsea), pacute_nodes(con, model_id, pacute))
        save_levels(con, model_id, rows, groups)


def backfill_levels(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Recompute, in one transaction, the models whose stored levels are missing or stale; returns them."""
    stale = stale_models(con)
    if stale:
        with transaction(con):
            refresh_levels(con, stale)
    return stale
