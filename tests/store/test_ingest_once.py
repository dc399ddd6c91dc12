"""One ingest writes each scored row once and aggregates the rows it scored, without reading them back; the
numbers are the same as re-aggregating the cell from the store (the path used when a cell has other runs)."""
from __future__ import annotations

import pytest

from services import ingest
from store import cell_rows, writer
from store.db import connect
from tests.helpers.derived_tables import derived
from tests.helpers.fixtures_store import DATA_DIR, predictions


def _aggregates(con) -> list[tuple]:
    return con.execute("SELECT task, lang, prompt_lang, metric, value, ci_low, ci_high, n, n_runs, parse_fail_rate, "
                       "status FROM aggregates ORDER BY ALL").fetchall()


def test_ingest_aggregates_without_reading_back_and_matches_a_re_aggregation(monkeypatch):
    con = connect(":memory:")
    preds = [p for p in predictions("Gemma-2B") if p.task in ("sentiment", "lindsea-mp", "pacute-hierarchical-mcq")]

    def no_read_back(*a, **k):
        raise AssertionError("an ingest of a new cell read its rows back")

    with monkeypatch.context() as m:
        m.setattr(cell_rows, "cell_predictions", no_read_back)
        summary = ingest.ingest_predictions(con, preds, model={"model_id": "m"}, source={"file": "f.jsonl"},
                                            data_dir=DATA_DIR)
    assert summary.n_predictions == len(preds) and len(summary.cells) == 8  # (lindsea-mp id, ta; sentiment th; pacute) x 2 prompts
    once = _aggregates(con)
    cells = [(c.task, c.lang, c.prompt_lang) for c in summary.cells]
    ingest.refresh_aggregates(con, "m", cells)  # from the stored rows, rebuilt
    assert _aggregates(con) == once
    n_rows = con.execute("SELECT count(*) FROM predictions").fetchone()[0]
    assert n_rows == len({(p.task, p.lang, p.prompt_lang, p.run, p.item_id, p.order) for p in preds})


def test_a_cell_with_another_active_run_is_aggregated_over_both(monkeypatch):
    con = connect(":memory:")
    preds = [p for p in predictions("Gemma-2B") if p.task == "sentiment" and p.prompt_lang == "en"]
    ingest.ingest_predictions(con, preds, model={"model_id": "m"}, source={"file": "a", "hash": "h1"},
                              data_dir=DATA_DIR)
    second = [type(p)(**{**p.__dict__, "run": 2}) for p in preds]
    summary = ingest.ingest_predictions(con, second, model={"model_id": "m"}, source={"file": "b", "hash": "h2"},
                                        data_dir=DATA_DIR)
    assert summary.cells[0].n == len({p.item_id for p in preds})
    assert con.execute("SELECT n_runs FROM aggregates WHERE is_headline").fetchone()[0] == 2
    assert summary.cells[0].value == pytest.approx(
        con.execute("SELECT value FROM aggregates WHERE is_headline").fetchone()[0])


def test_one_append_per_table_for_a_whole_upload_of_several_runs_and_cells(monkeypatch):
    con = connect(":memory:")
    preds = [p for p in predictions("Gemma-2B") if p.task in ("sentiment", "lindsea-mp")]
    preds += [type(p)(**{**p.__dict__, "run": 2}) for p in preds]  # two runs of every cell
    appends: list[str] = []

    def counting(append):
        def counted(con_, table, data, casts, **kw):
            appends.append(table)
            return append(con_, table, data, casts, **kw)
        return counted

    for name in ("_insert_df", "_append_arrow"):  # pandas frames and Arrow tables
        monkeypatch.setattr(writer, name, counting(getattr(writer, name)))
    summary = ingest.ingest_predictions(con, preds, model={"model_id": "m"}, source={"file": "f.jsonl"},
                                        data_dir=DATA_DIR)
    assert len(summary.run_ids) >= 2 * len(summary.cells) >= 4
    for table in ("items", "predictions", "scores"):
        assert appends.count(table) == 1, (table, appends)
    assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == len(summary.run_ids)
    assert con.execute("SELECT count(*) FROM predictions").fetchone()[0] == len(
        {(p.task, p.lang, p.prompt_lang, p.run, p.item_id, p.order) for p in preds})


def test_rows_of_runs_stored_before_are_replaced_and_new_runs_appended_unchecked(monkeypatch):
    """An upload's predictions and scores are plain appends when none of its runs is stored, and replace the stored
    rows when one is (the same runs again: no file hash, same source kind), with the same numbers; self-reported
    scores (keyed without the option order) are always checked."""
    con = connect(":memory:")
    preds = [p for p in predictions("Gemma-2B") if p.task == "sentiment"]
    verbs = []
    real = writer._append_arrow

    def spy(con_, table, data, casts, **kw):
        verbs.append((table, kw.get("replace", True)))
        return real(con_, table, data, casts, **kw)

    monkeypatch.setattr(writer, "_append_arrow", spy)
    for _ in range(2):
        ingest.ingest_predictions(con, preds, model={"model_id": "m"}, source={"file": "f.jsonl"}, data_dir=DATA_DIR)
        if len(verbs) == 3:
            once, n_rows = _aggregates(con), con.execute("SELECT count(*) FROM predictions").fetchone()[0]
    assert [v for t, v in verbs if t in ("predictions", "scores")] == [False, False, True, True]
    assert [v for t, v in verbs if t == "self_reported"] == [True, True]
    assert _aggregates(con) == once and n_rows == len({(p.lang, p.prompt_lang, p.run, p.item_id, p.order)
                                                       for p in preds})
    assert con.execute("SELECT count(*) FROM predictions").fetchone()[0] == n_rows


def test_an_upload_too_big_to_aggregate_from_its_pairs_is_read_back_with_the_same_numbers(monkeypatch):
    """Above `WRITTEN_ROWS_MAX` rows the cells an ingest wrote are read back as columns (cheaper than building them
    from 100,000 Python objects); every derived table is the same as when they are built from the pairs, and a
    metric that needs the pairs gets the ones just written, not a rebuild from the store."""
    preds = predictions("Gemma-2B")
    stores = []
    for limit in (ingest.WRITTEN_ROWS_MAX, 0):
        con = connect(":memory:")
        with monkeypatch.context() as m:
            m.setattr(ingest, "WRITTEN_ROWS_MAX", limit)
            scans = []
            real = ingest.stored_columns
            m.setattr(ingest, "stored_columns", lambda *a, **k: scans.append(a[2]) or real(*a, **k))
            m.setattr(cell_rows, "cell_predictions", lambda *a, **k: pytest.fail("a written cell was rebuilt"))
            summary = ingest.ingest_predictions(con, preds, model={"model_id": "m"}, source={"file": "f.jsonl"},
                                                data_dir=DATA_DIR)
        cells = sorted((c.task, c.lang, c.prompt_lang) for c in summary.cells)
        assert scans == ([] if limit else [cells])  # one scan of every cell, or none
        stores.append(derived(con))
    assert stores[0] == stores[1] and stores[0]["aggregates"]
