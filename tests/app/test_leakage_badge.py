"""The leaderboard's leakage badge (Streamlit AppTest): on a store where one model copies 8 MT references, the
flagged cell carries the badge with its evidence in the cell table and the leakage section, the clean-items view
shows the score on the 4 unflagged items beside the full score, and the ranks are those of the full scores."""
from __future__ import annotations

import pytest

from services.leakage import clean_score
from store.db import connect
from tests.helpers.demo_pages import leaderboard_at
from tests.helpers.leakage_fixture import LANG, MODEL, PROMPT, TASK, copied_ids, ingest_memoriser, mt_items
from tests.helpers.fixtures_store import frame_with, pages_on


@pytest.fixture(scope="module")
def leak_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("leak") / "tanaw.duckdb"
    con = connect(path)
    ingest_memoriser(con)
    ingest_memoriser(con, model_id="Declared-3B", organisation="Example")
    from services.leakage import declare

    declare(con, "Declared-3B", ["FLORES-200"], "Pretraining mix includes FLORES-200 devtest.")
    expected = clean_score(con, MODEL, TASK, LANG, PROMPT)
    con.close()
    with pages_on(path):  # this store as the app's, with fresh connection and caches
        yield path, expected


def test_the_flagged_cell_shows_its_badge_evidence_and_clean_score(leak_db, monkeypatch):
    path, expected = leak_db
    at = leaderboard_at(path, monkeypatch, bench="BHASA", prompt="English")
    assert any(s.value == "Leakage signals" for s in at.subheader)
    flagged = frame_with(at, "badge", "model", "task", "lang", "evidence")
    rows = {(r["model"], r["signal"]): r for r in flagged.to_dict("records")}
    assert set(rows) == {(MODEL, "mt_verbatim"), ("Declared-3B", "mt_verbatim"), ("Declared-3B", "declared")}
    mine = rows[(MODEL, "mt_verbatim")]
    assert mine["badge"] == "⚠ leakage" and mine["items flagged"] == 8 and mine["n items"] == 12
    assert mine["flagged item ids"] == ", ".join(copied_ids(mt_items()))
    assert mine["evidence"].startswith("mt_verbatim: 8 of 12 items (66.7%, 95% CI 39.1–86.2%)")
    assert rows[("Declared-3B", "declared")]["evidence"] == \
        "declared: the model card declares FLORES-200 in its training data"
    cells = frame_with(at, "model", "origin", "task", "lang")
    badges = dict(zip(cells["model"], cells["leakage"]))
    assert badges[MODEL].startswith("⚠ leakage: mt_verbatim: 8 of 12 items")
    clean = frame_with(at, "items used", "metric", "score")
    assert clean["items used"].tolist() == ["all items", "clean items (no signal flagged)"]
    assert clean["score"].tolist() == pytest.approx([expected["full"].value, expected["clean"].value])
    assert clean["n items"].tolist() == [12, 4]


def test_methodology_explains_each_signal_with_its_false_positives():
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "pages" / "methodology.py"), default_timeout=60)
    at.query_params["section"] = "Data leakage"
    at.run()
    assert not at.exception
    rows = at.dataframe[0].value
    assert rows["signal"].tolist() == ["mt_verbatim", "ngram_overlap", "unexplained_entities"]
    assert rows["false positives, as stored"].tolist() == [
        "0 of 576 items (95% upper bound 0.7%)", "0 of 504 items (95% upper bound 0.8%)",
        "0 of 240 items (95% upper bound 1.6%)"]
    assert "never changes a rank" in " ".join(m.value for m in at.markdown)


def test_the_model_page_shows_the_declaration_as_plain_text(leak_db, monkeypatch):
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    path, _ = leak_db
    monkeypatch.setenv("TANAW_DB", str(path))
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "pages" / "model.py"), default_timeout=90)
    at.query_params["model"] = "Declared-3B"
    at.run()
    assert not at.exception
    assert [t.value for t in at.text] == ["FLORES-200 · Pretraining mix includes FLORES-200 devtest."]


def test_a_hostile_model_name_and_declaration_stay_text(tmp_path, monkeypatch):
    """A flagged model named in Streamlit's Markdown, declaring a hostile text: the badge row, the clean-items
    picker and the model page show it as data, never drawn (no Markdown element carries it unescaped)."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from services.leakage import declare
    from tests.helpers.hostile_names import NAME

    path = tmp_path / "hostile.duckdb"
    con = connect(path)
    ingest_memoriser(con, model_id=NAME)
    declare(con, NAME, ["FLORES-200"], NAME)
    con.close()
    with pages_on(path):  # this store as the app's, with fresh connection and caches
        at = leaderboard_at(path, monkeypatch, bench="BHASA", prompt="English")
        flagged = frame_with(at, "badge", "model", "task", "lang", "evidence")
        assert set(flagged["model"]) == {NAME}
        assert at.selectbox(key="leak_cell").options == [f"{NAME} · {TASK} · {LANG}"]
        drawn = [m.value for m in [*at.markdown, *at.caption, *at.subheader, *at.title]]
        assert not any(NAME in text for text in drawn)
        page = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "pages" / "model.py"), default_timeout=90)
        page.query_params["model"] = NAME
        page.run()
    assert not page.exception and [t.value for t in page.text] == [f"FLORES-200 · {NAME}"]
    assert not any(NAME in m.value for m in [*page.markdown, *page.caption])
