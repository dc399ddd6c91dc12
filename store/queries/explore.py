"""Shared pieces of the explorer queries: model filters, the models list, which metrics are 0/1.

Per-item rows join runs → scores → items (and predictions for answers). Drill-down levels come stored with n,
`correct` and their 95% Wilson intervals (`drill_levels`, pooled by evaluator.drill_levels), as the cell scores do.
Heavy pages read a model's per-item "facts" once
(one scan of the per-item tables, cached by the app) and derive their views from that frame with small queries.
"""
from __future__ import annotations

from typing import Any, Sequence

import pandas as pd

from store.queries import query

SIZE_BUCKETS: dict[str, tuple[float, float | None]] = {
    "<4B": (0, 4), "4-15B": (4, 15), "15-100B": (15, 100), ">100B": (100, None)}
"""Model size filter buckets: label -> [low, high) in billions of parameters."""

def binary_metrics(con) -> list[str]:
    """Metrics whose per-item scores are 0/1 (an item is right or wrong), as the wiring mirrored them from
    `MetricSpec.binary` into the `metrics` table."""
    return [r[0] for r in con.execute("SELECT metric FROM metrics WHERE is_binary ORDER BY metric").fetchall()]


def model_filter_sql(alias: str = "m", *, size: str | None = None, model_type: str | None = None,
                     weights: str | None = None, sea_tuned: bool | None = None,
                     search: str | None = None) -> tuple[str, list]:
    """A `WHERE`-ready condition on the models table (aliased `alias`) and its parameters; hidden models excluded."""
    conds, params = [f"NOT coalesce({alias}.hidden, false)"], []
    if size == "unknown":
        conds.append(f"{alias}.params_b IS NULL")
    elif size:
        low, high = SIZE_BUCKETS[size]
        conds.append(f"{alias}.params_b >= ?")
        params.append(low)
        if high is not None:
            conds.append(f"{alias}.params_b < ?")
            params.append(high)
    if model_type:
        conds.append(f"{alias}.model_type = ?")
        params.append(model_type)
    if weights:
        conds.append(f"{alias}.weights = ?")
        params.append(weights)
    if sea_tuned is not None:
        conds.append(f"coalesce({alias}.sea_tuned, false) = ?")
        params.append(bool(sea_tuned))
    if search:
        conds.append(f"concat_ws(' ', {alias}.model_id, {alias}.family, {alias}.organisation) ILIKE ?")
        params.append(f"%{search}%")
    return " AND ".join(conds), params


@query
def explore_models(con, *, size: str | None = None, model_type: str | None = None, weights: str | None = None,
                   sea_tuned: bool | None = None, search: str | None = None,
                   task_prefix: str | None = None) -> pd.DataFrame:
    """The model_id of every model passing the shared filters (with runs of a task starting with `task_prefix`,
    when given), in order: what the pages' model pickers list."""
    where, params = model_filter_sql("m", size=size, model_type=model_type, weights=weights, sea_tuned=sea_tuned,
                                     search=search)
    fam = ""
    if task_prefix:
        fam = "AND m.model_id IN (SELECT model_id FROM runs WHERE task LIKE ? AND NOT superseded)"
        params.append(f"{task_prefix}%")
    return con.execute(f"""
        SELECT m.model_id FROM models m WHERE {where} {fam} ORDER BY m.model_id""", params).df()


BINARY_SQL = "(SELECT metric FROM metrics WHERE is_binary)"
"""`binary_metrics` as a subquery, for queries that filter on it without a round trip of their own."""


def run_windows(con, runs_where: str, params: list) -> list[tuple[str, object, object]]:
    """(run_id, earliest, latest) of the runs matching `runs_where` (on `runs r`): a run's prediction rows were
    written between its created_at and its run_counts.computed_at (transaction timestamps; None when unknown)."""
    return con.execute(f"""
        SELECT r.run_id, r.created_at, c.computed_at FROM runs r LEFT JOIN run_counts c ON c.run_id = r.run_id
        WHERE {runs_where} ORDER BY r.run_id""", params).fetchall()


def predictions_of(windows: list[tuple[str, object, object]], where: str = "true", params: list | None = None,
                   tags: tuple[Sequence[str], Sequence[Sequence[Any]]] = ((), ())) -> tuple[str, list]:
    """A subquery of the prediction rows of these runs (from `run_windows`) matching `where` (on `p`), one branch per
    run bounded by its write window, so each reads only the row groups written then; and its parameters. `tags`:
    (column names, one row of values per window) selected after each branch's columns as parameters, so a caller
    can label the rows without joining them to other rows (a run may be listed more than once, with other tags);
    the names are the caller's code, never data."""
    names, values = tags
    if not windows:
        return "SELECT *" + "".join(f", NULL AS {n}" for n in names) + " FROM predictions p WHERE false", []
    tail = "".join(f", ? AS {n}" for n in names)
    parts, args = [], []
    for i, (run_id, earliest, latest) in enumerate(windows):
        bounds = "".join(f" AND p.created_at {op} ?" for op, v in ((">=", earliest), ("<=", latest)) if v is not None)
        parts.append(f"SELECT *{tail} FROM predictions p WHERE p.run_id = ?{bounds} AND ({where})")
        args += [*(values[i] if names else ()), run_id, *(v for v in (earliest, latest) if v is not None),
                 *(params or [])]
    return " UNION ALL ".join(parts), args
