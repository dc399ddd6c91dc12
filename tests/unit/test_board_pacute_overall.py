"""PACUTE's overall is the main suite only; the controls (LangGame, multi-digit addition, CUTE) are a
ceiling shown beside it, never averaged in."""
from __future__ import annotations

import pytest

from evaluator.rollup import CONTROLS, rollup_rows


def _cell(task, value):
    return {"task": task, "lang": "tl", "prompt_lang": "en", "value": value, "normalized": value, "status": "ok"}


def test_controls_are_a_ceiling_not_part_of_the_overall():
    assert CONTROLS == {"pacute-langgame-mcq", "pacute-langgame-gen", "pacute-mda-mcq", "pacute-mda-gen",
                        "pacute-cute-gen"}
    rows = rollup_rows([_cell("pacute-hierarchical-gen", 60.0), _cell("pacute-affixation-gen", 40.0),
                        _cell("pacute-mda-gen", 100.0), _cell("pacute-cute-gen", 90.0)])
    got = {(r["family"], r["score"], r["level"], r["key"]): (r["value"], r["coverage"]) for r in rows}
    for family in ("", "pacute"):
        # WS = (60 + 40) / 2 = 50 is the only competency of the only language: overall 50 over 2 cells
        assert got[(family, "value", "overall", "")] == (pytest.approx(50.0), 2)
        assert got[(family, "value", "language", "tl")] == (pytest.approx(50.0), 2)
        assert got[(family, "value", "ceiling", "")] == (pytest.approx(95.0), 2)  # (100 + 90) / 2
        assert (family, "value", "competency", "WS-control") not in got


def test_leaderboard_shows_the_ceiling_beside_the_overall():
    from store import db
    from store.queries.leaderboard import CEILING, leaderboard_cells, leaderboard_table
    from tests.helpers.fixtures_store import fixture_db

    con = db.connect(fixture_db())
    try:
        board = leaderboard_table(con, "en", "value", "pacute").set_index("model")
        cells = leaderboard_cells(con, "en", "pacute")
    finally:
        con.close()
    cols = list(board.columns)
    assert cols.index(CEILING) == cols.index("overall") + 1
    for model, mine in cells.groupby("model"):
        ok = mine[mine["status"] == "ok"]
        control = ok["task"].isin(CONTROLS)
        # one language (tl), one competency (WS): the overall is the mean of the main-suite cells
        assert board.loc[model, "overall"] == pytest.approx(ok.loc[~control, "value"].mean())
        assert board.loc[model, CEILING] == pytest.approx(ok.loc[control, "value"].mean())
        assert board.loc[model, "coverage"] == (~control).sum()
