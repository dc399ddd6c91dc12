"""The stored leakage signals (V20): a LeakSignal written and read back is the same signal; a cell's output signals
are replaced without touching its other rows; a model card's declaration is set and read."""
from __future__ import annotations

import duckdb

from evaluator.leakage import FIELDS, LeakSignal
from store.leakage import (COLUMNS, declared_data, delete_cell_signals, delete_item_signals, read_signals,
                           save_signals, set_declaration)
from store.schema import PUBLIC_TABLES, ensure_schema


def _store():
    con = duckdb.connect(":memory:")
    ensure_schema(con)
    return con


def test_a_signal_round_trips_and_the_columns_agree():
    assert COLUMNS == FIELDS and "leakage_signals" in PUBLIC_TABLES
    con = _store()
    sig = LeakSignal("m'; DROP TABLE models; --", "translation-xx-en", "ta", "en", "mt_verbatim", True,
                     ("flores-3", "flores-7"), 0.25, None, 0.07, 0.59, 8, "exact or chrF++ >= 95")
    probe = LeakSignal(sig.model_id, sig.task, "ta", "en", "guided_completion", False, (), 0.1, 0.4, None, None, 8)
    assert save_signals(con, [sig.as_row(), probe.as_row()]) == 2
    rows = read_signals(con, model_id=sig.model_id)
    assert [LeakSignal.from_row(r) for r in rows] == [probe, sig]  # ordered by signal name
    assert all(r["computed_at"] is not None for r in rows)
    delete_cell_signals(con, [(sig.model_id, sig.task, "ta", "en")], ["mt_verbatim"])
    assert [r["signal"] for r in read_signals(con)] == ["guided_completion"]
    delete_cell_signals(con, [(sig.model_id, sig.task, "ta", "en")])
    assert read_signals(con) == []
    assert con.execute("SELECT count(*) FROM models").fetchone()[0] == 0


def test_a_probes_rows_are_deleted_under_every_prompt_language_of_its_items_only():
    con = _store()
    model = "m'; DROP TABLE leakage_signals; --"
    rows = [LeakSignal(model, "abssum", "id", pl, signal, True, ("a",)).as_row()
            for pl, signal in (("*", "guided_completion"), ("en", "guided_completion"), ("en", "ts_guessing"),
                               ("native", "ngram_overlap"))]
    rows.append(LeakSignal(model, "abssum", "th", "*", "guided_completion", True).as_row())
    save_signals(con, rows)
    delete_item_signals(con, [(model, "abssum", "id")], ["guided_completion"])
    assert [(r["lang"], r["prompt_lang"], r["signal"]) for r in read_signals(con)] == [
        ("id", "en", "ts_guessing"), ("id", "native", "ngram_overlap"), ("th", "*", "guided_completion")]
    delete_item_signals(con, [], ["ts_guessing"])
    assert len(read_signals(con)) == 3


def test_a_declaration_is_set_on_a_stored_model_only():
    con = _store()
    con.execute("INSERT INTO models (model_id, origin) VALUES ('a', 'uploaded'), ('b', 'uploaded')")
    assert set_declaration(con, "a", ["FLORES-200", "xlsum"], "Common Crawl to 2023")
    assert not set_declaration(con, "missing", ["FLORES-200"], None)
    assert declared_data(con) == {"a": (["FLORES-200", "xlsum"], "Common Crawl to 2023")}
    assert declared_data(con, ["b"]) == {}
