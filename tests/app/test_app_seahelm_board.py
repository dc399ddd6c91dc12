"""Leaderboard: the view selector switches between Tanaw's BHASA roll-up and SEA-HELM's (Streamlit AppTest on the
demo store plus two SEA-HELM results files: one covering SEA-HELM's seven languages, one without Burmese)."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from evaluator.seahelm_rollup import RULE
from services.upload import ingest_upload, read_upload
from tests.helpers import tool_files as T
from tests.helpers.demo_pages import REPO

SEAHELM = "SEA-HELM rule"


@pytest.fixture(scope="module")
def seahelm_db(demo_db):
    for model, langs in (("suite-complete", tuple(T.SEAHELM_SUITE)), ("suite-no-burmese", tuple(T.SEAHELM_SUITE)[:-1])):
        data = json.dumps(T.seahelm_suite_results(langs)).encode()
        out = ingest_upload(demo_db, read_upload(data, f"{model}_seahelm_results.json"), model={"model_id": model})
        assert out.status == "imported", out.errors
    return demo_db


def _app(db, monkeypatch) -> AppTest:
    monkeypatch.setenv("TANAW_DB", str(db))
    at = AppTest.from_file(str(REPO / "pages" / "leaderboard.py"), default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_view_selector_switches_to_seahelms_rollup(seahelm_db, monkeypatch):
    at = _app(seahelm_db, monkeypatch)
    view = at.segmented_control(key="view")
    assert view.options == ["Tanaw (BHASA rule)", SEAHELM] and view.value == "Tanaw (BHASA rule)"
    assert not any(s.value.startswith("SEA-HELM view") for s in at.subheader)
    view.set_value(SEAHELM).run()
    assert not at.exception, [e.value for e in at.exception]
    # the prompt chosen before stays (the files' own scores are native whatever it is)
    assert [s.value for s in at.subheader if s.value.startswith("SEA-HELM view")] == [
        "SEA-HELM view · normalised scores · English prompt"]
    assert RULE in [c.value for c in at.caption]  # the view is labelled with its rule
    board = at.dataframe[0].value.set_index("model")
    assert board.loc["suite-complete", "SEA average"] == pytest.approx((48.75 + 2 * 335 / 7 + 3 * 47.5 + 48.125) / 7)
    assert board.loc["suite-no-burmese", "SEA average"] == float("-inf")  # shown "—": missing, not a partial mean
    assert board.loc["suite-no-burmese", "why"] == "languages not complete: my"
    assert board.loc["suite-no-burmese", "id"] == pytest.approx(48.75)
    assert board.index[0] == "suite-complete"  # the one SEA average first, the rest by name
    # demo models: Tanaw's re-scored BHASA cells on SEA-HELM's scale, no language complete (no if-eval, mt-bench...)
    demo = board.drop(index=["suite-complete", "suite-no-burmese"])
    assert not demo.empty and (demo["SEA average"] == float("-inf")).all()
    # back to Tanaw's view: the BHASA board, no SEA-HELM table
    at.segmented_control(key="view").set_value("Tanaw (BHASA rule)").run()
    assert not any(s.value.startswith("SEA-HELM view") for s in at.subheader)


def test_seahelm_view_opens_from_the_url(seahelm_db, monkeypatch):
    monkeypatch.setenv("TANAW_DB", str(seahelm_db))
    at = AppTest.from_file(str(REPO / "pages" / "leaderboard.py"), default_timeout=120)
    at.query_params["view"] = SEAHELM
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.segmented_control(key="view").value == SEAHELM
    assert at.segmented_control(key="prompt").value == "Native"  # SEA-HELM's prompts are native
    assert at.segmented_control(key="bench").disabled and at.segmented_control(key="score").disabled
    comps = at.dataframe[1].value.set_index(["model", "lang", "competency"])
    assert comps.loc[("suite-complete", "id", "nlu"), "score"] == pytest.approx(40.0)  # (20 + 50 + 50) / 3
    assert comps.loc[("suite-complete", "id", "nlu"), "source"] == "file"
