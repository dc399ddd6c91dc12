"""Compare's conversation view: a two-turn conversation side by side per turn, every text as plain text, and the
judge's scores labelled as judge scores beside 'unvalidated' (no human campaign on the cell)."""
from __future__ import annotations

import pytest

from tests.helpers.chat_store import ITEMS, JUDGED, LANG, MODELS, TASK, answer, judged_chat_store
from tests.helpers.fixtures_store import app_test, pages_on

A, B = (f"{m}|native" for m in MODELS)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("chat") / "chat.duckdb"
    judged_chat_store(path)
    with pages_on(path) as p:
        yield p


def test_a_conversation_side_by_side_per_turn_as_plain_text(db):
    at = app_test("compare", view="Conversations", chat_task=TASK, chat_lang=LANG, chat_sys=[A, B], chat_item="2")
    assert not at.exception
    assert at.radio[0].value == "Conversations"
    codes = [c.value for c in at.code]
    q1, q2 = ITEMS["2"]["turns"]
    # turn 1: the question, then A's and B's answers; then turn 2 likewise (markup shown as typed, never rendered)
    assert codes == [q1, answer(MODELS[0], "2", 1), answer(MODELS[1], "2", 1),
                     q2, answer(MODELS[0], "2", 2), answer(MODELS[1], "2", 2)]
    assert "**bukan markdown** <b>x</b>" in codes[1]
    marks = [m.value for m in at.markdown]
    assert "**Turn 1 · user**" in marks and "**Turn 2 · user**" in marks
    judges = next(d.value for d in at.dataframe if "judge score" in d.value.columns)
    got = dict(zip(judges["system"], judges["judge score"]))
    assert got == {A: JUDGED[MODELS[0]], B: JUDGED[MODELS[1]]}
    assert set(judges["agreement"]) == {"unvalidated"} and set(judges["judge"]) == {"judge-x"}
    assert any("LLM judge scores" in m and "kept apart from metric scores" in m for m in marks)


def test_scored_items_stay_the_default_view(db):
    at = app_test("compare")
    assert not at.exception
    assert at.radio[0].value == "Scored items"
