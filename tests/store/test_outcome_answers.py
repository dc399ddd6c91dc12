"""Schema V14: an item outcome's answers carry `ba` (asked in option order "ba"; NULL for an item never
asked in "ba") instead of the order's text. A store written before V14 migrates to the rows a refresh writes now, an
export written before V14 imports (its checksum checked as exported) and attaches (store.scale) to them too, and
Compare's answer list still pairs every answer with its own stored score in both orders."""
from __future__ import annotations

import shutil

import duckdb

from store import db
from store.parquet import ANSWERS_V7, export_store, import_store
from store.queries.compare import compare_outputs
from store.scale import connect_parquet
from tests.helpers.fixtures_store import fixture_db

TO_V7 = ("list_transform(answers, lambda a: {'run_no': a.run_no, "
         "'ord': CASE WHEN a.ba THEN 'ba' ELSE 'ab' END, 'value': a.value})")
"""The inverse of the V14 conversion: answers as a store before V14 wrote them."""


def _outcomes(con) -> list:
    return sorted(map(repr, con.execute("SELECT * FROM item_outcomes").fetchall()))


def _before_v14(tmp_path):
    """A copy of the fixture store as schema V13 held it, and the fixture's item outcomes (written as V14)."""
    path = tmp_path / "v13.duckdb"
    shutil.copy(fixture_db(), path)
    con = duckdb.connect(str(path))
    want = _outcomes(con)
    assert any("'ba': True" in r for r in want) and any("'ba': None" in r for r in want)  # both kinds of cell
    con.execute(f"ALTER TABLE item_outcomes ALTER answers SET DATA TYPE {ANSWERS_V7} USING {TO_V7}")
    con.execute("DELETE FROM schema_version WHERE version = 14")
    return con, path, want


def test_a_store_before_v14_migrates_to_what_a_refresh_writes(tmp_path):
    con, path, want = _before_v14(tmp_path)
    con.close()
    migrated = db.connect(path)
    assert _outcomes(migrated) == want
    migrated.close()


def test_an_export_before_v14_imports_and_attaches_converted(tmp_path):
    con, _, want = _before_v14(tmp_path)
    export_store(con, tmp_path / "export")  # manifest schema_version 13, checksums of the V7 answers
    con.close()
    dst = db.connect(tmp_path / "copy.duckdb")
    import_store(dst, tmp_path / "export")
    assert _outcomes(dst) == want
    dst.close()
    attached = connect_parquet(tmp_path / "export")
    assert _outcomes(attached) == want
    attached.close()


def test_compare_pairs_each_answer_with_its_own_score_in_both_orders():
    con = duckdb.connect(str(fixture_db()), read_only=True)
    task, lang, model = "lindsea-mp", "id", "Gemma-2B"
    item_id, metric = con.execute(  # an item right in one order and wrong in the other
        "SELECT item_id, metric FROM item_outcomes WHERE task = ? AND lang = ? AND model_id = ? "
        "AND prompt_lang = 'en' AND right_ab <> right_ba ORDER BY 1 LIMIT 1", [task, lang, model]).fetchone()
    systems = (f"{model}|en", "SeaLion-9B-it|native")
    shown = compare_outputs(con, task=task, lang=lang, item_id=item_id, systems=systems, metric=metric)
    stored = dict(((m, pl, rn, o), v) for m, pl, rn, o, v in con.execute(
        "SELECT r.model_id, r.prompt_lang, r.run_no, s.ord, s.value FROM scores s JOIN runs r USING (run_id) "
        "WHERE r.task = ? AND r.lang = ? AND s.item_id = ? AND s.metric = ? AND NOT r.superseded",
        [task, lang, item_id, metric]).fetchall())
    assert sorted(shown["ord"]) == ["ab", "ab", "ba", "ba"]
    assert len({(r.ord, r.score) for r in shown.itertuples() if r.model_id == model}) == 2
    for r in shown.itertuples():
        assert r.score == stored[(r.model_id, r.prompt_lang, r.run_no, r.ord)]
        assert bool(r.right) == (r.score >= 1)
    con.close()
