"""Stored drill-down levels (schema V11): the node counts the wiring pools, the writer of its rows, and the lookup
of models whose levels are missing or stale.

services.drill_levels pools a model's LINDSEA and PACUTE hierarchy nodes (`drill_nodes`) with
evaluator.drill_levels whenever its roll-ups are refreshed and calls `save_levels` inside the caller's transaction;
store.queries.lindsea and store.queries.pacute only filter the rows.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import duckdb
import pandas as pd

from store.cell_rows import LEVEL_CELLS, Groups, groups_of
from store.queries.explore import BINARY_SQL
from store.queries.lindsea import BRANCH_SQL

LINDSEA_KEYS = ("branch", "phenomenon", "category", "subcategory")
"""LINDSEA drill-down keys, coarse to fine."""
PACUTE_KEYS = ("level",)
"""PACUTE hierarchy key."""
COLUMNS = ("model_id", "lang", "prompt_lang", "scope", "metric", "depth", *LINDSEA_KEYS, *PACUTE_KEYS, "n", "correct",
           "value", "ci_low", "ci_high", "chance", "parts", "macro")

_LINDSEA_NODES = f"""
    SELECT lang, prompt_lang, {BRANCH_SQL.format(t='task')} AS branch,
           coalesce(nullif(phenomenon, ''), 'translation') AS phenomenon, coalesce(nullif(category, ''), '(none)')
           AS category, nullif(nullif(subcategory, ''), 'none') AS subcategory, n, correct,
           CASE WHEN metric = 'accuracy' THEN 50.0 ELSE 0.0 END AS chance
    FROM drill_nodes
    WHERE cell_no IN (SELECT cell_no FROM drill_cells WHERE model_id = ? AND task LIKE 'lindsea-%'
                      AND (? IS NULL OR list_contains(?, [lang, prompt_lang])))
      AND metric IN {BINARY_SQL} AND n > 0"""

_PACUTE_NODES = """
    SELECT lang, prompt_lang, task, metric, level, n, correct
    FROM drill_nodes
    WHERE cell_no IN (SELECT cell_no FROM drill_cells WHERE model_id = ? AND task LIKE 'pacute-hierarchical-%'
                      AND (? IS NULL OR list_contains(?, [task, lang, prompt_lang])))
      AND n > 0"""

def level_groups(con: duckdb.DuckDBPyConnection, cells: Sequence[Sequence[str]]) -> Groups:
    """The level groups the (task, lang, prompt_lang) `cells` belong to: a LINDSEA cell's tree pools every LINDSEA
    task of its language and prompt language, a PACUTE hierarchy cell's levels are its own."""
    return groups_of(con.execute(LEVEL_CELLS, [[list(c) for c in cells]]).fetchall())


def lindsea_nodes(con: duckdb.DuckDBPyConnection, model_id: str,
                  groups: Sequence[Sequence[str]] | None = None) -> pd.DataFrame:
    """A model's LINDSEA node counts on 0/1 metrics with their drill-down keys: lang, prompt_lang, branch,
    phenomenon, category, subcategory, n, correct, chance (50 for binary choices, 0 for open answers).
    `groups`: only these [lang, prompt_lang]."""
    return con.execute(_LINDSEA_NODES, [model_id, groups, groups]).df()


def pacute_nodes(con: duckdb.DuckDBPyConnection, model_id: str,
                 cells: Sequence[Sequence[str]] | None = None) -> pd.DataFrame:
    """A model's PACUTE hierarchy node counts: lang, prompt_lang, task, metric, level, n, correct. `cells`: only
    these [task, lang, prompt_lang]."""
    return con.execute(_PACUTE_NODES, [model_id, cells, cells]).df()


def _cell(value):
    return None if value is None or (not isinstance(value, str) and pd.isna(value)) else value


def save_levels(con: duckdb.DuckDBPyConnection, model_id: str, rows: Sequence[Mapping[str, Any]],
                groups: Groups | None = None) -> None:
    """Replace a model's stored levels (only those of `groups` when given: `level_groups`) with `rows` (COLUMNS
    after model_id; a missing key is NULL)."""
    if groups is None:
        con.execute("DELETE FROM drill_levels WHERE model_id = ?", [model_id])
    else:
        con.execute("DELETE FROM drill_levels WHERE model_id = ? AND (scope = 'lindsea' AND list_contains(?, "
                    "[lang, prompt_lang]) OR list_contains(?, [scope, lang, prompt_lang]))", [model_id, *groups])
    if not rows:
        return
    frame = pd.DataFrame([[model_id, *(_cell(r.get(c)) for c in COLUMNS[1:])] for r in rows], columns=list(COLUMNS))
    view = "_tanaw_drill_levels_append"
    con.register(view, frame)  # one INSERT … SELECT: executemany pays a round trip per row
    try:
        con.execute(f"INSERT INTO drill_levels ({', '.join(COLUMNS)}) SELECT {', '.join(COLUMNS)} FROM {view}")
    finally:
        con.unregister(view)


def stale_models(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Models whose stored levels are missing or do not add up to their node counts (a store written before V11,
    drill-downs back-filled or pulled after the levels were stored)."""
    return [r[0] for r in con.execute(f"""
        WITH nodes AS (
            SELECT model_id, lang, prompt_lang, 'lindsea' AS scope, '' AS metric, sum(n) AS n, sum(correct) AS c
            FROM drill_nodes WHERE task LIKE 'lindsea-%' AND metric IN {BINARY_SQL} AND n > 0 GROUP BY ALL
            UNION ALL
            SELECT model_id, lang, prompt_lang, task, metric, sum(n), sum(correct)
            FROM drill_nodes WHERE task LIKE 'pacute-hierarchical-%' AND n > 0 GROUP BY ALL),
        stored AS (SELECT model_id, lang, prompt_lang, scope, metric, n, correct AS c FROM drill_levels
                   WHERE depth = 0)
        SELECT DISTINCT model_id FROM nodes a FULL JOIN stored b USING (model_id, lang, prompt_lang, scope, metric)
        WHERE a.n IS DISTINCT FROM b.n OR abs(a.c - b.c) > 1e-6 OR a.c IS NULL OR b.c IS NULL
        ORDER BY 1""").fetchall()]
