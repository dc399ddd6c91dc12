"""Stored paired tests between systems (schema V13): the item outcomes the wiring tests, the writer of its rows,
and the lookup of pairs that are missing, stale or left without their cells.

services.pair_tests runs evaluator.pair_tests on a cell's stored item outcomes (`item_outcomes`, the per-item
scores the Compare page shows) whenever those outcomes are rewritten and calls `save_pair_tests` inside the
caller's transaction; store.queries.compare only reads the rows.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import duckdb

COLUMNS = ("task", "lang", "metric", "model_a", "prompt_lang_a", "model_b", "prompt_lang_b", "cell_a", "cell_b", "n",
           "diff", "ci_low", "ci_high", "p_value", "method", "a_only", "b_only")

_CELLS = "SELECT cell_no, model_id, task, lang, prompt_lang FROM drill_cells WHERE items > 0"
"""Cells with per-item outcomes (open-ended, human-rated cells have none)."""


def cell_outcomes(con: duckdb.DuckDBPyConnection, task: str, lang: str) -> list[tuple[int, str, str, str, str, float]]:
    """Every scored item outcome of a (task, lang)'s current cells as (cell_no, model_id, prompt_lang, metric,
    item_id, value 0-1) rows (NULL values left out)."""
    return con.execute(f"""
        SELECT c.cell_no, c.model_id, c.prompt_lang, o.metric, o.item_id, o.value
        FROM item_outcomes o JOIN ({_CELLS}) c USING (cell_no)
        WHERE c.task = ? AND c.lang = ? AND o.value IS NOT NULL AND NOT isnan(o.value)
        ORDER BY c.cell_no, o.metric, o.item_id""", [task, lang]).fetchall()


def system_counts(con: duckdb.DuckDBPyConnection, cells: Sequence[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """How many systems have per-item outcomes on each of these (task, lang) (fewer than two: nothing to compare;
    a missing key: none), in one query."""
    return {(t, lg): n for t, lg, n in con.execute(
        f"SELECT task, lang, count(*) FROM ({_CELLS}) WHERE list_contains(?, [task, lang]) GROUP BY ALL",
        [[list(c) for c in cells]]).fetchall()}


def delete_systems_pairs(con: duckdb.DuckDBPyConnection, targets: Iterable[tuple[str, str, str, str]]) -> None:
    """Delete, for several (task, lang, model_id, prompt_lang) systems in one statement, the stored tests of
    their (task, lang) that involve them, as A or B."""
    keys = [list(t) for t in targets]
    if keys:
        con.execute("DELETE FROM pair_tests WHERE list_contains(?, [task, lang, model_a, prompt_lang_a]) "
                    "OR list_contains(?, [task, lang, model_b, prompt_lang_b])", [keys, keys])


def save_pair_tests(con: duckdb.DuckDBPyConnection, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert test rows (COLUMNS; a missing key is NULL) in one statement of list parameters."""
    if not rows:
        return
    columns = [[r.get(c) for r in rows] for c in COLUMNS]
    con.execute(f"INSERT INTO pair_tests ({', '.join(COLUMNS)}) SELECT {', '.join('unnest(?)' for _ in COLUMNS)}",
                columns)


_EXPECTED = f"""
    SELECT a.task, a.lang, a.model_id AS model_a, a.prompt_lang AS prompt_lang_a, a.cell_no AS cell_a,
           b.model_id AS model_b, b.prompt_lang AS prompt_lang_b, b.cell_no AS cell_b
    FROM ({_CELLS}) a JOIN ({_CELLS}) b ON a.task = b.task AND a.lang = b.lang AND a.cell_no <> b.cell_no"""
_STORED = """SELECT DISTINCT task, lang, model_a, prompt_lang_a, cell_a, model_b, prompt_lang_b, cell_b
             FROM pair_tests"""


def stale_systems(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str, str]]:
    """(task, lang, model_id, prompt_lang) of systems with a pair of current cells not stored as computed from
    those two cells (a store written before V13, cells back-filled or pulled since)."""
    return [tuple(r) for r in con.execute(f"""
        SELECT DISTINCT task, lang, model_a, prompt_lang_a FROM ({_EXPECTED} EXCEPT {_STORED})
        ORDER BY ALL""").fetchall()]


def drop_orphan_pairs(con: duckdb.DuckDBPyConnection, model_id: str | None = None) -> int:
    """Delete the tests whose two cells are no longer the current cells of those systems (runs deleted, cells
    rewritten), only those of `model_id` (as A or B) when given; returns how many rows went."""
    if model_id is not None:
        return _drop_model_orphans(con, model_id)
    return con.execute(f"""
        DELETE FROM pair_tests WHERE (task, lang, model_a, prompt_lang_a, cell_a, model_b, prompt_lang_b, cell_b)
            IN (SELECT * FROM ({_STORED}) EXCEPT {_EXPECTED})""").fetchone()[0]


def _drop_model_orphans(con: duckdb.DuckDBPyConnection, model_id: str) -> int:
    """`drop_orphan_pairs` of one model: its stored pairs checked here against the current cells they name (two
    plain reads; a delete only when some pair is orphaned, which a refresh rarely leaves: the EXCEPT over a
    self-join of drill_cells cost ~3-4 ms per refresh)."""
    stored = con.execute(f"SELECT * FROM ({_STORED} WHERE model_a = ? OR model_b = ?)", [model_id, model_id]).fetchall()
    return drop_orphans_among(con, stored)


def pair_state(con: duckdb.DuckDBPyConnection, cells: Sequence[tuple[str, str]], model_id: str,
               without: Sequence[Sequence[str]] = ()) -> tuple[dict[tuple[str, str], int], list[tuple]]:
    """(`system_counts` of these (task, lang), the stored pairs of `model_id` as A or B: (task, lang, model_a,
    prompt_lang_a, cell_a, model_b, prompt_lang_b, cell_b) rows) in one statement, so a refresh of a model alone on
    its cells with no stored pairs reads once and deletes nothing (three statements, ~2.5 ms, before). `without`:
    (task, lang, model_id, prompt_lang) systems left out of the counts (a refresh about to write their cells counts
    them itself: `services.refresh_inputs`)."""
    skip, params = ("AND NOT list_contains(?, [task, lang, model_id, prompt_lang])", [[list(s) for s in without]]) \
        if without else ("", [])
    rows = con.execute(f"""
        SELECT true, task, lang, NULL, NULL, count(*), NULL, NULL, NULL FROM ({_CELLS})
        WHERE list_contains(?, [task, lang]) {skip} GROUP BY ALL
        UNION ALL SELECT false, * FROM ({_STORED} WHERE model_a = ? OR model_b = ?)""",
                       [[list(c) for c in cells], *params, model_id, model_id]).fetchall()
    return {(r[1], r[2]): r[5] for r in rows if r[0]}, [tuple(r[1:]) for r in rows if not r[0]]


def drop_orphans_among(con: duckdb.DuckDBPyConnection, stored: Sequence[tuple]) -> int:
    """Delete those of these stored pairs (rows as `pair_state` gives them) whose two cells are no longer the
    current cells of their systems (one read of the cells they name, a delete only when some pair is orphaned);
    returns how many rows went."""
    if not stored:
        return 0
    named = sorted({r[4] for r in stored} | {r[7] for r in stored})
    current: dict[int, set[tuple]] = {}
    for cell_no, *system in con.execute(f"SELECT cell_no, model_id, task, lang, prompt_lang FROM ({_CELLS}) "
                                        "WHERE list_contains(?, cell_no)", [named]).fetchall():
        current.setdefault(cell_no, set()).add(tuple(system))
    orphans = [[str(v) for v in r] for r in stored  # (task, lang, model_a, prompt_lang_a, cell_a, model_b, ...)
               if r[4] == r[7] or (r[2], r[0], r[1], r[3]) not in current.get(r[4], ())
               or (r[5], r[0], r[1], r[6]) not in current.get(r[7], ())]
    if not orphans:
        return 0
    return con.execute("DELETE FROM pair_tests WHERE list_contains(?, [task, lang, model_a, prompt_lang_a, "
                       "CAST(cell_a AS VARCHAR), model_b, prompt_lang_b, CAST(cell_b AS VARCHAR)])",
                       [orphans]).fetchone()[0]
