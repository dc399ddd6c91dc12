"""Reads of a model's stored cells for re-aggregation (the refresh and the drill-down back-fill): its active
predictions with their scores, the items they answer, and whether other active runs share a cell."""
from __future__ import annotations

from typing import Any, Iterable, Sequence

import duckdb


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


def cells_rows(con: duckdb.DuckDBPyConnection, model_id: str, cells: Sequence[Sequence[str]]) -> tuple[Any, Any]:
    """Every active prediction of these (task, lang, prompt_lang) cells and every stored item score of their active
    runs, as two Arrow tables in no particular order, joined and sorted by the caller (two scans: no join, pivot or
    sort on text keys in the store): predictions (cell = position in `cells`, run_no, slot, dup, item_id, ord,
    parsed, answer) and scores (slot, dup, item_id, ord, metric, value). `slot` numbers the (cell, run_no) of the
    active runs in store order, `dup` the runs sharing one (by run id; 0 when a run number is not repeated)."""
    keys = [list(c) for c in cells]
    runs = sorted(con.execute(
        "SELECT CAST(list_position(?, [task, lang, prompt_lang]) - 1 AS INTEGER), run_no, run_id FROM runs "
        "WHERE model_id = ? AND NOT superseded AND list_contains(?, [task, lang, prompt_lang])",
        [keys, model_id, keys]).fetchall())  # store order: cell, run number, run id
    slot, dup = [], []
    for k, (cell, run_no, _) in enumerate(runs):
        same = k > 0 and runs[k - 1][:2] == (cell, run_no)
        slot.append(slot[-1] + (not same) if slot else 0)
        dup.append(dup[-1] + 1 if same else 0)
    active = ("WITH active AS (SELECT unnest(?::INTEGER[]) AS cell, unnest(?::INTEGER[]) AS run_no, "
              "unnest(?::VARCHAR[]) AS run_id, unnest(?::INTEGER[]) AS slot, unnest(?::INTEGER[]) AS dup)")
    params = [*(list(c) for c in zip(*runs)), slot, dup] if runs else [[], [], [], [], []]
    preds = con.sql(f"""{active} SELECT a.cell, a.run_no, a.slot, a.dup, p.item_id, p.ord, p.parsed, p.answer
                        FROM active a JOIN predictions p ON p.run_id = a.run_id""", params=params)
    scores = con.sql(f"""{active} SELECT a.slot, a.dup, s.item_id, s.ord, s.metric, s.value
                         FROM active a JOIN scores s ON s.run_id = a.run_id""", params=params)
    return preds.to_arrow_table(), scores.to_arrow_table()


def items_of(con: duckdb.DuckDBPyConnection, cells: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
    """The stored items of these (task, lang): task, lang, item_id, inputs, gold, options, metadata (JSON text) and
    warnings."""
    cur = con.execute("SELECT task, lang, item_id, inputs, gold, options, metadata, warnings FROM items "
                      "WHERE list_contains(?, [task, lang])", [[list(c) for c in cells]])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row)) for row in cur.fetchall()]


def other_active_runs(con: duckdb.DuckDBPyConnection, model_id: str, task: str, lang: str, prompt_lang: str,
                      run_ids: Iterable[str]) -> int:
    """Active (not superseded) runs of a cell other than `run_ids`, whose rows an aggregate must also read."""
    return con.execute("SELECT count(*) FROM runs WHERE model_id = ? AND task = ? AND lang = ? AND prompt_lang = ? "
                       "AND NOT superseded AND NOT list_contains(?, run_id)",
                       [model_id, task, lang, prompt_lang, sorted(run_ids)]).fetchall()[0][0]
