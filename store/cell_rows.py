"""Reads of a model's stored cells for re-aggregation (the refresh and the drill-down back-fill): the cells' active
runs, their predictions with their scores, and the items they answer."""
from __future__ import annotations

from typing import Any, Iterable, Mapping, NamedTuple, Sequence

import duckdb
import numpy as np


def cell_predictions(con: duckdb.DuckDBPyConnection, model_id: str, task: str, lang: str,
                     prompt_lang: str) -> list[dict[str, Any]]:
    """Every active prediction of a cell with its run number and per-item scores (metric -> value), ordered by run,
    item and order, in one pass (for re-aggregation; the items come from `items_of`)."""
    cur = con.execute("""
        WITH active AS (SELECT run_id, run_no FROM runs
                        WHERE model_id = ? AND task = ? AND lang = ? AND prompt_lang = ? AND NOT superseded),
             cell_scores AS (SELECT s.run_id, s.item_id, s.ord, map(list(s.metric), list(s.value)) AS scores
                             FROM scores s JOIN active USING (run_id) GROUP BY ALL)
        SELECT a.run_no, p.item_id, p.ord, p.output, p.answer, p.parsed, p.reasoning, p.extras, p.option_logprobs,
               cs.scores
        FROM active a JOIN predictions p ON p.run_id = a.run_id
        LEFT JOIN cell_scores cs ON cs.run_id = p.run_id AND cs.item_id = p.item_id AND cs.ord = p.ord
        ORDER BY a.run_no, p.item_id, p.ord""", [model_id, task, lang, prompt_lang])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row)) for row in cur.fetchall()]


LEVEL_CELLS = """
    SELECT DISTINCT c[2] AS lang, c[3] AS prompt_lang, c[1] LIKE 'lindsea-%' AS lindsea, c[1] AS task
    FROM (SELECT unnest(?::VARCHAR[][]) AS c)
    WHERE c[1] LIKE 'lindsea-%' OR c[1] LIKE 'pacute-hierarchical-%'"""
"""The (lang, prompt_lang, is LINDSEA, task) of the hierarchy cells among a list of [task, lang, prompt_lang]
(`store.drill_levels.level_groups`; `refresh_state` reads them with a refresh's other state)."""


Groups = tuple[list[list[str]], list[list[str]]]
"""(LINDSEA [lang, prompt_lang] groups, PACUTE hierarchy [task, lang, prompt_lang] cells) whose levels a change
of some cells affects."""


def groups_of(rows: Iterable[Sequence[Any]]) -> Groups:
    """`Groups` from LEVEL_CELLS' rows, in their sorted order (ORDER BY ALL: text by code point, false first)."""
    rows = sorted(tuple(r) for r in rows)
    return ([[lang, pl] for lang, pl, lindsea, _ in rows if lindsea],
            [[task, lang, pl] for lang, pl, lindsea, task in rows if not lindsea])


RunRow = tuple[str, str, str, int, str]
"""An active run: (task, lang, prompt_lang, run_no, run_id)."""


class RefreshState(NamedTuple):
    """What a refresh of a model's cells reads before it writes (`refresh_state`)."""

    runs: list[RunRow]
    """The cells' active runs, sorted."""
    next_cell: int
    """The number their drill-down cells get next: 1 + the largest `drill_cells.cell_no` outside them."""
    stored: frozenset[str]
    """Which of drill_cells (with drill_nodes), aggregates and run_counts (of the active runs)
    hold rows of these cells: a new cell (the live runner's every cell, a new model's upload) has none to delete."""
    levels: Groups
    """The drill-down level groups the cells pool into (`store.drill_levels.level_groups`)."""


def refresh_state(con: duckdb.DuckDBPyConnection, model_id: str, cells: Sequence[Sequence[str]]) -> RefreshState:
    """`RefreshState` of a model's (task, lang, prompt_lang) cells: one statement (with the level groups, a
    statement of their own before), and a second one only when none of them has a drill-down cell row (then whether
    node or aggregate rows were left without one, and whether their runs have stored counts: a new cell's
    run-count delete, which found nothing, cost as much as that check)."""
    keys = [list(c) for c in cells]
    rows = con.execute(f"""
        SELECT 'run', task, lang, prompt_lang, run_no, run_id, NULL FROM runs
        WHERE model_id = ? AND NOT superseded AND list_contains(?, [task, lang, prompt_lang])
        UNION ALL SELECT 'next', NULL, NULL, NULL, coalesce(max(cell_no) FILTER (WHERE NOT mine), 0) + 1, NULL,
               count(*) FILTER (WHERE mine)
        FROM (SELECT cell_no, list_contains(?, [model_id, task, lang, prompt_lang]) AS mine FROM drill_cells)
        UNION ALL SELECT 'level', task, lang, prompt_lang, NULL, NULL, CAST(lindsea AS INTEGER)
        FROM ({LEVEL_CELLS})""", [model_id, keys, [[model_id, *k] for k in keys], keys]).fetchall()
    runs = sorted(tuple(r[1:6]) for r in rows if r[0] == "run")
    next_cell, mine = next(r[4::2] for r in rows if r[0] == "next")
    levels = groups_of((lang, pl, bool(lindsea), task) for kind, task, lang, pl, _, _, lindsea in rows
                       if kind == "level")
    if mine:  # a cell's drill-down rows, its aggregates and its runs' counts are written together
        return RefreshState(runs, next_cell, frozenset(("drill_cells", "aggregates", "run_counts")), levels)
    own = "model_id = ? AND list_contains(?, [task, lang, prompt_lang])"
    left = con.execute(f"""
        SELECT 'drill_cells', count(*) FROM drill_nodes WHERE {own}
        UNION ALL SELECT 'aggregates', count(*) FROM aggregates WHERE {own}
        UNION ALL SELECT 'run_counts', count(*) FROM run_counts WHERE run_id IN (SELECT unnest(?))""",
                       [model_id, keys] * 2 + [[r[4] for r in runs]]).fetchall()
    return RefreshState(runs, next_cell, frozenset(table for table, n in left if n), levels)


class PlanState(NamedTuple):
    """What a live run's sink reads once, before its first commit, about the cells it is about to write
    (`plan_state`), so that a refresh of a clean cell needs no state read of its own (`services.live.StoreSink`)."""

    busy: frozenset[tuple[str, str, str]]
    """The cells that already hold something: an active run, a drill-down, node or aggregate row, or stored
    counts of one of the given runs. Only the others are clean."""
    next_cell: int
    """1 + the largest `drill_cells.cell_no` of the whole store."""
    levels: list[tuple]
    """LEVEL_CELLS' rows of the cells (lang, prompt_lang, is LINDSEA, task)."""


def plan_state(con: duckdb.DuckDBPyConnection, model_id: str, cells: Sequence[Sequence[str]],
               run_ids: Mapping[str, Sequence[str]]) -> PlanState:
    """`PlanState` of a model's (task, lang, prompt_lang) cells, in one statement; `run_ids`: run id -> its cell, the
    runs the caller will write."""
    keys = [list(c) for c in cells]
    own = "model_id = ? AND list_contains(?, [task, lang, prompt_lang])"
    rows = con.execute(f"""
        SELECT DISTINCT 'busy' AS kind, task, lang, prompt_lang, NULL AS n, NULL AS lindsea FROM (
            SELECT task, lang, prompt_lang FROM runs WHERE NOT superseded AND {own}
            UNION ALL SELECT task, lang, prompt_lang FROM drill_cells WHERE {own}
            UNION ALL SELECT task, lang, prompt_lang FROM drill_nodes WHERE {own}
            UNION ALL SELECT task, lang, prompt_lang FROM aggregates WHERE {own})
        UNION ALL SELECT DISTINCT 'counted', run_id, NULL, NULL, NULL, NULL FROM run_counts WHERE list_contains(?, run_id)
        UNION ALL SELECT 'next', NULL, NULL, NULL, coalesce(max(cell_no), 0) + 1, NULL FROM drill_cells
        UNION ALL SELECT 'level', task, lang, prompt_lang, NULL, lindsea FROM ({LEVEL_CELLS})""",
                       [model_id, keys] * 4 + [list(run_ids), keys]).fetchall()
    busy = {tuple(r[1:4]) for r in rows if r[0] == "busy"}
    busy |= {tuple(run_ids[r[1]]) for r in rows if r[0] == "counted"}
    next_cell = next(int(r[4]) for r in rows if r[0] == "next")
    levels = [(lang, pl, bool(lindsea), task) for kind, task, lang, pl, _, lindsea in rows if kind == "level"]
    return PlanState(frozenset(busy), next_cell, levels)


def clean_state(plan: PlanState, cells: Sequence[Sequence[str]], runs: Iterable[RunRow], next_cell: int
                ) -> RefreshState:
    """The `RefreshState` that `refresh_state` would read for clean cells of `plan` (none in `plan.busy`) whose active
    runs are `runs`, the cell number next being `next_cell`: nothing stored, the runs sorted, their level groups."""
    keys = {tuple(c) for c in cells}
    return RefreshState(sorted(tuple(r) for r in runs), next_cell, frozenset(),
                        groups_of(r for r in plan.levels if (r[3], r[0], r[1]) in keys))


def cells_rows(con: duckdb.DuckDBPyConnection, model_id: str, cells: Sequence[Sequence[str]], ids: Sequence[str],
               usual: tuple[str, str | None], active: Sequence[RunRow] | None = None) -> tuple[Any, Any, Any]:
    """Every active prediction of these (task, lang, prompt_lang) cells and every stored item score of their active
    runs whose item id is one of `ids`, as two Arrow tables in no particular order, joined and sorted by the caller
    (two scans: no pivot or sort on text keys in the store), and the active runs: predictions (run = position in the
    runs, item = position in `ids`, ord, parsed, answer, tokens_in, tokens_out, latency_s), scores (run, item, ord,
    metric, value), runs as int64 arrays in store order (cell, run number, run id) of cell (position in `cells`),
    run_no, slot and dup. `slot` numbers the (cell, run_no) of the active runs, `dup` the runs sharing one (by run
    id; 0 when a run number is not repeated). Only the run ids and `ids` go to the scans, as two lists, and each row comes back with positions
    in them: no item id text per row to convert (a third of a scan's time). `usual`: the (order, metric) most
    rows hold, which come back NULL in the predictions' and scores' ord and the scores' metric (never NULL in the
    store: part of its key), so nearly no text is converted for them either. `active`: the cells' active runs as `refresh_state`
    read them (else read here)."""
    keys = [list(c) for c in cells]
    if active is None:
        active = refresh_state(con, model_id, cells).runs
    position = {tuple(k): i for i, k in reversed(list(enumerate(keys)))}  # a repeated cell: its first place
    runs = sorted((position[tuple(r[:3])], r[3], r[4]) for r in active if tuple(r[:3]) in position)  # store order
    cell = np.array([r[0] for r in runs], dtype=np.int64)
    run_no = np.array([r[1] for r in runs], dtype=np.int64)
    new_slot = np.ones(len(runs), dtype=bool)
    new_slot[1:] = (cell[1:] != cell[:-1]) | (run_no[1:] != run_no[:-1])
    slot = np.cumsum(new_slot) - 1
    starts = np.flatnonzero(new_slot)
    dup = np.arange(len(runs)) - starts[slot] if len(runs) else slot
    coded = ("WITH active AS (SELECT run_id, CAST(k - 1 AS INTEGER) AS run FROM unnest(?::VARCHAR[]) "
             "WITH ORDINALITY AS a(run_id, k)), "
             "ids AS (SELECT item_id, CAST(k - 1 AS INTEGER) AS item FROM unnest(?::VARCHAR[]) "
             "WITH ORDINALITY AS i(item_id, k))")
    params = [[r[2] for r in runs], list(ids)]
    preds = con.sql(f"""{coded} SELECT a.run, i.item, nullif(p.ord, ?) AS ord, p.parsed, p.answer, p.tokens_in,
                               p.tokens_out, p.latency_s
                        FROM active a JOIN predictions p ON p.run_id = a.run_id JOIN ids i ON i.item_id = p.item_id""",
                    params=[*params, usual[0]])
    scores = con.sql(f"""{coded} SELECT a.run, i.item, nullif(s.ord, ?) AS ord, nullif(s.metric, ?) AS metric, s.value
                         FROM active a JOIN scores s ON s.run_id = a.run_id JOIN ids i ON i.item_id = s.item_id""",
                     params=[*params, *usual])
    return (preds.to_arrow_table(), scores.to_arrow_table(),
            {"cell": cell, "run_no": run_no, "slot": slot, "dup": dup})


def items_of(con: duckdb.DuckDBPyConnection, cells: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
    """The stored items of these (task, lang): task, lang, item_id, inputs, gold, options, metadata (JSON text) and
    warnings."""
    cur = con.execute("SELECT task, lang, item_id, inputs, gold, options, metadata, warnings FROM items "
                      "WHERE list_contains(?, [task, lang])", [[list(c) for c in cells]])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row)) for row in cur.fetchall()]

