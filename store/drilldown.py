"""Writes of the drill-down pre-aggregates (schema V7), called with a cell's aggregates inside the caller's
transaction, and the lookups that find cells written before them."""
from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa

ANSWER = pa.struct([("run_no", pa.int32()), ("ord", pa.string()), ("value", pa.float64())])
OUTCOME_SCHEMA = pa.schema([
    ("cell_no", pa.int64()), ("model_id", pa.string()), ("task", pa.string()), ("lang", pa.string()),
    ("prompt_lang", pa.string()), ("metric", pa.string()), ("item_id", pa.string()), ("value", pa.float64()),
    ("right_ab", pa.bool_()), ("right_ba", pa.bool_()), ("right_all", pa.bool_()), ("parsed", pa.bool_()),
    ("answers", pa.list_(ANSWER))])
NODE_SCHEMA = pa.schema([
    ("cell_no", pa.int64()), ("model_id", pa.string()), ("task", pa.string()), ("lang", pa.string()), ("prompt_lang", pa.string()),
    ("metric", pa.string()), ("phenomenon", pa.string()), ("category", pa.string()), ("subcategory", pa.string()),
    ("level", pa.int32()), ("n", pa.int32()), ("correct", pa.float64()), ("wrong", pa.int32())])
CELL_TABLES = ("drill_nodes", "failed_flags")
"""Tables deleted by the cell's columns (item_outcomes by its cell_no)."""


def _append(con: duckdb.DuckDBPyConnection, table: str, data: pa.Table) -> None:
    if not data.num_rows:
        return
    view = f"_tanaw_{table}_append"
    con.register(view, data)
    try:
        cols = ", ".join(data.schema.names)
        con.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM {view}")
    finally:
        con.unregister(view)


def _outcomes(cell_no: int, key: list[str], drill: Any) -> pa.Table:
    """The item outcomes of a duck-typed CellDrilldown as an Arrow table shaped like `item_outcomes`."""
    cols, ans = drill.items, drill.answers
    n = len(cols["item_id"])
    answers = pa.ListArray.from_arrays(
        pa.array(ans["offsets"], pa.int32()),
        pa.StructArray.from_arrays([pa.array(ans["run_no"], pa.int32()), pa.array(ans["ord"], pa.string()),
                                    pa.array(ans["value"], pa.float64())], fields=list(ANSWER)))
    fixed = {"cell_no": pa.array([cell_no] * n, pa.int64()),
             **{c: pa.array([v] * n, pa.string()) for c, v in zip(("model_id", "task", "lang", "prompt_lang"), key)}}
    data = {**fixed, **{f.name: pa.array(cols[f.name], f.type) for f in OUTCOME_SCHEMA if f.name in cols},
            "answers": answers}
    return pa.Table.from_pydict({f.name: data[f.name] for f in OUTCOME_SCHEMA}, schema=OUTCOME_SCHEMA)


def save_drilldown(con: duckdb.DuckDBPyConnection, model_id: str, task: str, lang: str, prompt_lang: str,
                   drill: Any) -> None:
    """Replace the pre-aggregates of one cell with a duck-typed `evaluator.drilldown.CellDrilldown`; its item
    outcomes get the next cell number, so they are stored together after the table's other rows."""
    key = [model_id, task, lang, prompt_lang]
    where = "model_id = ? AND task = ? AND lang = ? AND prompt_lang = ?"
    for (old,) in con.execute(f"SELECT cell_no FROM drill_cells WHERE {where}", key).fetchall():
        con.execute("DELETE FROM item_outcomes WHERE cell_no = ?", [old])
    for table in ("drill_cells", *CELL_TABLES):
        con.execute(f"DELETE FROM {table} WHERE {where}", key)
    cell_no = con.execute("SELECT coalesce(max(cell_no), 0) + 1 FROM drill_cells").fetchone()[0]
    con.execute("INSERT INTO drill_cells (cell_no, model_id, task, lang, prompt_lang, answers, unparsed, items) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [cell_no, *key, drill.n_answers, drill.n_unparsed, drill.n_items])
    base = dict(zip(("model_id", "task", "lang", "prompt_lang"), key))
    _append(con, "drill_nodes", pa.Table.from_pylist([{"cell_no": cell_no, **base, **n} for n in drill.nodes],
                                                     schema=NODE_SCHEMA))
    _append(con, "item_outcomes", _outcomes(cell_no, key, drill))
    if drill.flags:
        con.executemany("INSERT INTO failed_flags VALUES (?, ?, ?, ?, ?, ?)", [[*key, f, i] for f, i in drill.flags])
    runs = con.execute(f"SELECT run_no, run_id FROM runs WHERE {where} AND NOT superseded", key).fetchall()
    counted = [[run_id, *drill.runs[run_no]] for run_no, run_id in runs if run_no in drill.runs]
    if counted:
        ids, answers, unparsed = (list(c) for c in zip(*counted))
        con.execute("DELETE FROM run_counts WHERE list_contains(?, run_id)", [ids])
        con.execute("INSERT INTO run_counts (run_id, answers, unparsed) SELECT unnest(?), unnest(?), unnest(?)",
                    [ids, answers, unparsed])


def cells_without_drilldown(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str, str]]:
    """(model_id, task, lang, prompt_lang) of cells with current runs but no pre-aggregates (stores written before
    V7, imports of older exports)."""
    return [tuple(r) for r in con.execute("""
        SELECT DISTINCT model_id, task, lang, prompt_lang FROM runs WHERE NOT superseded
        EXCEPT SELECT model_id, task, lang, prompt_lang FROM drill_cells ORDER BY ALL""").fetchall()]


def drop_orphans(con: duckdb.DuckDBPyConnection) -> None:
    """Delete the pre-aggregates of cells left without runs (an upload deleted with its runs)."""
    gone = """SELECT model_id, task, lang, prompt_lang FROM drill_cells
              EXCEPT SELECT model_id, task, lang, prompt_lang FROM runs"""
    con.execute(f"""DELETE FROM item_outcomes WHERE cell_no IN (
        SELECT cell_no FROM drill_cells WHERE (model_id, task, lang, prompt_lang) IN ({gone}))""")
    for table in (*CELL_TABLES, "drill_cells"):
        con.execute(f"DELETE FROM {table} WHERE (model_id, task, lang, prompt_lang) IN ({gone})")
    con.execute("DELETE FROM run_counts WHERE run_id NOT IN (SELECT run_id FROM runs)")
