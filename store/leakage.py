"""Stored leakage signals (schema V20, table `leakage_signals`): one row per (cell, signal) in the shape of
`evaluator.leakage.LeakSignal` (`COLUMNS`), written by the services (a cell's output signals when the cell changes,
the `leakage` run mode's probes) and read by the board; and the model cards' declared training data. A probe's
row is keyed by (model, task, lang) with prompt_lang "*" (`evaluator.leakage.EVERY_PROMPT`): it is about the
dataset's items, and `services.leakage` applies it to every prompt language's cell.

Rows are plain mappings here (the store knows nothing of the evaluator); `services.leakage` converts them.
Every statement is parameterised: model names, task names and item ids are data, never SQL.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import duckdb

COLUMNS = ("model_id", "task", "lang", "prompt_lang", "signal", "flagged", "item_ids", "statistic", "p_value",
           "ci_low", "ci_high", "n_items", "detail", "computed_at")
"""Column order of `leakage_signals` (the same as `evaluator.leakage.FIELDS`)."""
_CELL = ("model_id", "task", "lang", "prompt_lang")


def save_signals(con: duckdb.DuckDBPyConnection, rows: Sequence[Mapping[str, Any]]) -> int:
    """Insert or replace signal rows (COLUMNS; a missing key or a None computed_at is NULL / now) in one statement,
    inside the caller's transaction; returns how many rows were written."""
    if not rows:
        return 0
    cols = [c for c in COLUMNS if c != "computed_at"]
    values = [[r.get(c) for r in rows] for c in cols]
    values[cols.index("item_ids")] = [list(r.get("item_ids") or ()) for r in rows]
    stamps = [r.get("computed_at") for r in rows]
    con.execute(f"INSERT OR REPLACE INTO leakage_signals ({', '.join(COLUMNS)}) "
                f"SELECT {', '.join('unnest(?)' for _ in cols)}, coalesce(unnest(?::TIMESTAMP[]), current_timestamp)",
                [*values, stamps])
    return len(rows)


def delete_cell_signals(con: duckdb.DuckDBPyConnection, cells: Iterable[Sequence[str]],
                        signals: Sequence[str] | None = None) -> None:
    """Delete the stored signals of these (model_id, task, lang, prompt_lang) cells (only the named `signals` when
    given: a cell's output signals are rewritten without touching its probes' rows)."""
    keys = [list(c) for c in cells]
    if not keys:
        return
    if signals is None:
        con.execute("DELETE FROM leakage_signals WHERE list_contains(?, [model_id, task, lang, prompt_lang])", [keys])
    else:
        con.execute("DELETE FROM leakage_signals WHERE list_contains(?, [model_id, task, lang, prompt_lang]) "
                    "AND list_contains(?, signal)", [keys, list(signals)])


def delete_item_signals(con: duckdb.DuckDBPyConnection, keys: Iterable[Sequence[str]],
                        signals: Sequence[str]) -> None:
    """Delete these signals' rows of these (model_id, task, lang) under every prompt language (a probe run replaces
    its earlier rows, "*" and those an older store kept under "en")."""
    triples = [list(k) for k in keys]
    if triples:
        con.execute("DELETE FROM leakage_signals WHERE list_contains(?, [model_id, task, lang]) "
                    "AND list_contains(?, signal)", [triples, list(signals)])


def read_signals(con: duckdb.DuckDBPyConnection, model_id: str | None = None, task: str | None = None,
                 lang: str | None = None, prompt_lang: str | None = None) -> list[dict[str, Any]]:
    """Stored signal rows (COLUMNS mappings), those of the given model / task / language / prompt language only,
    ordered by cell and signal."""
    conds, params = [], []
    for name, value in zip(_CELL, (model_id, task, lang, prompt_lang)):
        if value is not None:
            conds.append(f"{name} = ?")
            params.append(value)
    where = f"WHERE {' AND '.join(conds)}" if conds else ""
    cur = con.execute(f"SELECT {', '.join(COLUMNS)} FROM leakage_signals {where} ORDER BY ALL", params)
    return [dict(zip(COLUMNS, r)) for r in cur.fetchall()]


def declared_data(con: duckdb.DuckDBPyConnection, model_ids: Sequence[str] | None = None
                  ) -> dict[str, tuple[list[str], str | None]]:
    """model_id -> (declared benchmarks or datasets, the card's training-data text) of the models whose card
    declares either (those of `model_ids` only, when given)."""
    cond, params = ("AND list_contains(?, model_id)", [list(model_ids)]) if model_ids is not None else ("", [])
    rows = con.execute("SELECT model_id, declared_data, training_data FROM models "
                       f"WHERE (len(coalesce(declared_data, [])) > 0 OR training_data IS NOT NULL) {cond} "
                       "ORDER BY model_id", params).fetchall()
    return {m: (list(d or []), t) for m, d, t in rows}


def set_declaration(con: duckdb.DuckDBPyConnection, model_id: str, declared: Sequence[str] | None,
                    training_data: str | None) -> bool:
    """Set a stored model's declared training data (replacing the card's previous declaration); False when no
    such model is stored."""
    found = con.execute("UPDATE models SET declared_data = ?, training_data = ? WHERE model_id = ?",
                        [list(declared) if declared else None, training_data, model_id]).fetchone()[0]
    return bool(found)


def model_cells(con: duckdb.DuckDBPyConnection, model_ids: Sequence[str]) -> list[tuple[str, str, str, str]]:
    """(model_id, task, lang, prompt_lang) of every scored cell of these models (the aggregates' cells)."""
    return [tuple(r) for r in con.execute(
        "SELECT DISTINCT model_id, task, lang, prompt_lang FROM aggregates WHERE list_contains(?, model_id) "
        "ORDER BY ALL", [list(model_ids)]).fetchall()]


def cells_without_signals(con: duckdb.DuckDBPyConnection, tasks: Sequence[str],
                          signals: Sequence[str]) -> list[tuple[str, str, str, str]]:
    """(model_id, task, lang, prompt_lang) of the scored cells of these tasks with none of these signals stored
    (a store written before V20, or pulled from an older export)."""
    return [tuple(r) for r in con.execute("""
        SELECT DISTINCT model_id, task, lang, prompt_lang FROM aggregates WHERE list_contains(?, task)
        EXCEPT SELECT model_id, task, lang, prompt_lang FROM leakage_signals WHERE list_contains(?, signal)
        ORDER BY ALL""", [list(tasks), list(signals)]).fetchall()]
