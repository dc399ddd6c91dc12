"""Writes of the drill-down pre-aggregates (schema V7), called with a cell's aggregates inside the caller's
transaction, and the lookups that find cells written before them."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import duckdb
import numpy as np
import pyarrow as pa

from store import live
from store.cell_rows import refresh_state

ANSWER = pa.struct([("run_no", pa.int32()), ("ba", pa.bool_()), ("value", pa.float64())])
"""An item outcome's answer (V14, store.schema_figures.ANSWERS_V14): run number, asked in order "ba"? (NULL for the
answers of an item never asked in order "ba"), score."""
OUTCOME_SCHEMA = pa.schema([
    ("cell_no", pa.int64()), ("model_id", pa.string()), ("task", pa.string()), ("lang", pa.string()),
    ("prompt_lang", pa.string()), ("metric", pa.string()), ("item_id", pa.string()), ("value", pa.float64()),
    ("right_ab", pa.bool_()), ("right_ba", pa.bool_()), ("right_all", pa.bool_()), ("parsed", pa.bool_()),
    ("answers", pa.list_(ANSWER))])
"""item_outcomes' columns in the table's order (V7), as `_append` inserts them."""
CELL_TABLES = ("drill_nodes",)
"""Tables deleted by the cell's columns (item_outcomes by its cell_no)."""


def _append(con: duckdb.DuckDBPyConnection, table: str, data: pa.Table) -> None:
    """Append an Arrow table whose columns are `table`'s, in its order (OUTCOME_SCHEMA), as a relation: no view
    to register and drop (~0.3 ms of a refresh)."""
    if data.num_rows:
        con.from_arrow(data).insert_into(table)


def _asked_ba(right_ba: Sequence[bool | None], ans: Mapping[str, Any]) -> pa.Array:
    """Each answer's `ba` (ANSWER): asked in order "ba", NULL where its outcome's right_ba is (no answer in "ba")."""
    counts = np.diff(np.asarray(ans["offsets"], dtype=np.int64))
    never = np.fromiter((r is None for r in right_ba), dtype=bool, count=len(right_ba))
    if never.all():  # a task asked in one order: no answer in "ba"
        return pa.nulls(int(counts.sum()), pa.bool_())
    if "ord_code" in ans:  # codes: no string per answer
        ba = np.asarray(ans["ord_code"]) == (ans["orders"].index("ba") if "ba" in ans["orders"] else -2)
    else:
        ba = np.asarray([o == "ba" for o in ans["ord"]], dtype=bool)
    return pa.array(ba, pa.bool_(), mask=np.repeat(never, counts))


def _outcomes(cell_no: int, key: list[str], drill: Any) -> pa.Table:
    """The item outcomes of a duck-typed CellDrilldown as an Arrow table shaped like `item_outcomes`."""
    cols, ans = drill.items, drill.answers
    n = len(cols["item_id"])
    answers = pa.ListArray.from_arrays(
        pa.array(ans["offsets"], pa.int32()),
        pa.StructArray.from_arrays([pa.array(ans["run_no"], pa.int32()), _asked_ba(cols["right_ba"], ans),
                                    pa.array(ans["value"], pa.float64())], fields=list(ANSWER)))
    fixed = {"cell_no": pa.array([cell_no] * n, pa.int64()),
             **{c: pa.array([v] * n, pa.string()) for c, v in zip(("model_id", "task", "lang", "prompt_lang"), key)}}
    data = {**fixed, **{f.name: pa.array(cols[f.name], f.type) for f in OUTCOME_SCHEMA if f.name in cols},
            "answers": answers}
    return pa.Table.from_pydict({f.name: data[f.name] for f in OUTCOME_SCHEMA}, schema=OUTCOME_SCHEMA)


def save_drilldown(con: duckdb.DuckDBPyConnection, model_id: str, task: str, lang: str, prompt_lang: str,
                   drill: Any) -> None:
    """Replace the pre-aggregates of one cell with a duck-typed `evaluator.drilldown.CellDrilldown`."""
    save_drilldowns(con, model_id, {(task, lang, prompt_lang): drill})


def save_drilldowns(con: duckdb.DuckDBPyConnection, model_id: str, drills: Mapping[tuple[str, str, str], Any], *,
                    state: tuple[Sequence[tuple], int] | None = None) -> None:
    """Replace the pre-aggregates of a model's (task, lang, prompt_lang) cells with duck-typed
    `evaluator.drilldown.CellDrilldown`s, one statement per table for all of them; each cell's item outcomes get
    the next cell number (in the order given), so they are stored together after the table's other rows.
    `state`: the cells' `store.cell_rows.RefreshState` read in this transaction (else it is read here)."""
    if not drills:
        return
    state = state if state is not None else refresh_state(con, model_id, list(drills))
    keys = [[model_id, *cell] for cell in drills]
    if "drill_cells" in state.stored:  # else a new cell: no pre-aggregates to delete (written only with its row)
        _delete_cells(con, keys)
    numbers = list(range(state.next_cell, state.next_cell + len(keys)))
    con.execute("INSERT INTO drill_cells (cell_no, model_id, task, lang, prompt_lang, answers, unparsed, items) "
                "SELECT unnest(?), ?, unnest(?), unnest(?), unnest(?), unnest(?), unnest(?), unnest(?)",
                [numbers, model_id, *([k[i] for k in keys] for i in (1, 2, 3)),
                 *([getattr(d, f) for d in drills.values()] for f in ("n_answers", "n_unparsed", "n_items"))])
    _insert_nodes(con, [(no, key, node) for no, key, d in zip(numbers, keys, drills.values()) for node in d.nodes])
    _append(con, "item_outcomes", pa.concat_tables([_outcomes(no, key, d) for no, key, d in
                                                    zip(numbers, keys, drills.values())]))
    _save_run_counts(con, drills, state.runs, delete="run_counts" in state.stored)


def _delete_cells(con: duckdb.DuckDBPyConnection, keys: list[list[str]]) -> None:
    """Delete the pre-aggregates of these [model_id, task, lang, prompt_lang] cells (but their run counts)."""
    in_cells = "list_contains(?, [model_id, task, lang, prompt_lang])"
    old = [n for (n,) in con.execute(f"DELETE FROM drill_cells WHERE {in_cells} RETURNING cell_no", [keys]).fetchall()]
    if old:  # a constant list: DuckDB skips the row groups of other cells (a subquery scanned every cell number)
        con.execute(f"DELETE FROM item_outcomes WHERE cell_no IN ({', '.join('?' * len(old))})", old)
    for table in CELL_TABLES:
        con.execute(f"DELETE FROM {table} WHERE {in_cells}", [keys])


NODE_COLUMNS = ("phenomenon", "category", "subcategory", "level", "n", "correct", "wrong")


def _insert_nodes(con: duckdb.DuckDBPyConnection, nodes: list[tuple[int, list[str], Mapping[str, Any]]]) -> None:
    """Insert (cell number, [model_id, task, lang, prompt_lang], node row) rows into drill_nodes in one statement,
    a list parameter per column (no Arrow table to build and register; the INSERT casts them to the columns' types)."""
    if not nodes:
        return
    cols = [[no for no, _, _ in nodes], *([key[i] for _, key, _ in nodes] for i in range(4)),
            [n["metric"] for _, _, n in nodes], *([n.get(c) for _, _, n in nodes] for c in NODE_COLUMNS)]
    names = ", ".join(("cell_no", "model_id", "task", "lang", "prompt_lang", "metric", *NODE_COLUMNS))
    con.execute(f"INSERT INTO drill_nodes ({names}) SELECT {', '.join('unnest(?)' for _ in cols)}", cols)


def _save_run_counts(con: duckdb.DuckDBPyConnection, drills: Mapping[tuple[str, str, str], Any],
                     runs: Sequence[tuple], *, delete: bool = True) -> None:
    """Each current run's answers, unparsed answers, tokens and latency (V15; NULL when the drill-down has none),
    from its cell's drill-down; `runs`: the cells' active (task, lang, prompt_lang, run_no, run_id); `delete`:
    whether some of them may have counts stored."""
    counted = run_count_rows(drills, runs)
    if counted:
        if delete:
            con.execute("DELETE FROM run_counts WHERE run_id IN (SELECT unnest(?))",
                        [[row[0] for row in counted]])  # a hash join
        _insert_run_counts(con, counted)


def run_count_rows(drills: Mapping[tuple[str, str, str], Any], runs: Sequence[tuple]) -> list[list[Any]]:
    """The run counts `_save_run_counts` stores: [run_id, answers, unparsed, tokens_in, tokens_out, latency_sum,
    latency_n] per current run of these cells that its cell's drill-down counted (`runs` as there)."""
    none = (None, None, None, None)
    return [[run_id, *d.runs[run_no], *d.run_usage.get(run_no, none)] for t, lg, pl, run_no, run_id in runs
            if (t, lg, pl) in drills and run_no in (d := drills[(t, lg, pl)]).runs]


def _insert_run_counts(con: duckdb.DuckDBPyConnection, rows: Sequence[Sequence[Any]]) -> None:
    """Insert run counts, rows in `store.live.RUN_COUNT_COLUMNS` order, in one statement (`store.live.append`: list
    parameters for a few runs, one Arrow table for many); computed_at by its default, the transaction's start."""
    live.append(con, "run_counts", rows, replace=False)


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
