"""A refresh reads its cells' rows with two scans and joins the scores and sorts the rows in numpy
(services.stored_columns); the columns equal the one-query SQL read they replace (join and pivot on the text keys,
ORDER BY cell, run, item id, order), whatever order the tables hold their rows in, with scores missing, an extra
metric, NULL scores and rows whose item is not stored."""
from __future__ import annotations

import shutil

import numpy as np

from evaluator.registry import TASKS
from tests.helpers.fixtures_store import fixture_db

REFERENCE = """
    WITH active AS (SELECT run_id, run_no, task, lang,
                           CAST(list_position(?, [task, lang, prompt_lang]) - 1 AS INTEGER) AS cell
                    FROM runs WHERE model_id = ? AND NOT superseded AND list_contains(?, [task, lang, prompt_lang])),
         sc AS (SELECT s.run_id, s.item_id, s.ord, map(list(s.metric), list(s.value)) AS scores
                FROM scores s JOIN active USING (run_id) GROUP BY ALL)
    SELECT a.cell, a.run_no, p.item_id, p.ord, p.parsed, p.answer, sc.scores
    FROM active a JOIN predictions p ON p.run_id = a.run_id
    LEFT JOIN sc ON sc.run_id = p.run_id AND sc.item_id = p.item_id AND sc.ord = p.ord
    SEMI JOIN items i ON i.task = a.task AND i.lang = a.lang AND i.item_id = p.item_id
    ORDER BY a.cell, a.run_no, p.item_id, p.ord, p.run_id"""


def _shuffled(con, table: str) -> None:
    con.execute(f"CREATE TEMP TABLE t AS SELECT * FROM {table} ORDER BY hash(rowid * 7919)")
    con.execute(f"DELETE FROM {table}")
    con.execute(f"INSERT INTO {table} SELECT * FROM t")
    con.execute("DROP TABLE t")


def test_columns_equal_the_sql_join_and_order(tmp_path):
    import duckdb

    from services.stored_columns import stored_columns

    path = tmp_path / "c.duckdb"
    shutil.copy(fixture_db(), path)
    con = duckdb.connect(str(path))
    _shuffled(con, "scores")
    _shuffled(con, "predictions")
    con.execute("DELETE FROM scores WHERE hash(item_id) % 11 = 0")  # rows without a stored score
    con.execute("UPDATE scores SET value = NULL WHERE hash(item_id || ord) % 13 = 0")
    con.execute("INSERT INTO scores SELECT run_id, item_id, ord, 'extra', 0.25 FROM predictions "
                "WHERE hash(item_id) % 5 = 0")  # a metric no task has, on some rows
    con.execute("DELETE FROM items WHERE hash(item_id) % 17 = 0")  # predictions whose item is not stored
    for table in ("predictions", "scores"):  # a second active run with a run's cell and number (another source)
        con.execute(f"INSERT INTO {table} SELECT * REPLACE ('0' || run_id AS run_id) FROM {table} "
                    "WHERE run_id = (SELECT min(run_id) FROM runs)")
    con.execute("INSERT INTO runs SELECT * REPLACE ('0' || run_id AS run_id) FROM runs "
                "WHERE run_id = (SELECT min(run_id) FROM runs)")
    checked = 0
    for (model,) in con.execute("SELECT DISTINCT model_id FROM runs ORDER BY 1").fetchall():
        cells = [tuple(c) for c in con.execute("SELECT DISTINCT task, lang, prompt_lang FROM runs WHERE model_id = ? "
                                               "ORDER BY ALL", [model]).fetchall()]
        got = stored_columns(con, model, cells, lambda task: TASKS[task].metrics, lambda key: list)
        keys = [list(c) for c in cells]
        rows = con.execute(REFERENCE, [keys, model, keys]).fetchall()
        for k, cell in enumerate(cells):
            want = [r for r in rows if r[0] == k]
            cols = got[cell]
            assert [(r[1], r[2], r[3], bool(r[4]), r[5]) for r in want] == list(zip(
                cols.run.tolist(), [cols.ids[c] for c in cols.item_code.tolist()],
                [cols.orders[c] for c in cols.order_code.tolist()], cols.parsed.tolist(),
                [cols.answers[c] if c >= 0 else None for c in cols.answer_code.tolist()])), cell
            stored = {m for r in want for m in (r[6] or {})}
            assert set(cols.scores) == stored | set(TASKS[cell[0]].metrics), cell
            for metric, values in cols.scores.items():
                expected = [(r[6] or {}).get(metric) for r in want]
                expected = [np.nan if v is None else v for v in expected]
                assert np.array_equal(values, np.array(expected, dtype=float), equal_nan=True), (cell, metric)
            checked += len(want)
    assert checked > 1000
    con.close()


def test_one_value_columns_code_as_hashed_ones():
    """The one-comparison paths for a column holding one value (`_encoded(often_one=True)`, `_lookup` of one
    value) give the codes the dictionary encoding and the hash lookup give, nulls and other values included."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from services.stored_columns import _encoded, _lookup

    columns = [["ab"] * 3, ["ab", None, "ab"], ["ab", "ba", "ab"], ["ba", "ab", "ba"], [], [None, None]]
    for rows in columns:
        col = pa.chunked_array([rows[:1], rows[1:]], pa.string())
        values, codes = _encoded(col, often_one=True)
        want_values, want_codes = _encoded(col)
        assert [values[c] if c >= 0 else None for c in codes] == rows
        assert [want_values[c] if c >= 0 else None for c in want_codes] == rows
        for lookup in (["ab"], ["ba"], ["ab", "ba"]):
            got = _lookup(col, lookup).tolist()
            want = pc.index_in(col, value_set=pa.array(lookup, pa.string())).fill_null(-1).to_pylist()
            assert got == want, (rows, lookup)
