"""The board's SEA-HELM view on stores holding SEA-HELM results files (imported through the upload path): the
file's competency totals where the view has them, SEA average only for a model that covers every language."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from services.seahelm_view import seahelm_board
from services.upload import ingest_upload, read_upload
from store.db import connect
from store.queries import QUERIES
from tests.helpers import tool_files as T
from tests.helpers.samples import SAMPLES

REAL = SAMPLES / "real-results" / "seahelm" / "gemma-4-E4B-it_seahelm_results.json"


def _store(tmp_path, files: dict[str, bytes]):
    db = tmp_path / "view.duckdb"
    for model, data in files.items():
        out = ingest_upload(db, read_upload(data, f"{model}_seahelm_results.json"), model={"model_id": model})
        assert out.status == "imported", out.errors
    return db


def _view(db, prompt_lang: str = "native"):
    con = connect(db)
    try:
        return seahelm_board(QUERIES["seahelm_rescored"](con.cursor(), prompt_lang=prompt_lang),
                             QUERIES["seahelm_reported"](con.cursor()))
    finally:
        con.close()


@pytest.mark.needs_samples
def test_shared_seahelm_file_totals_where_the_view_has_them(tmp_path):
    doc = json.loads(REAL.read_bytes())
    view = _view(_store(tmp_path, {"gemma-4-E4B-it": REAL.read_bytes()}))
    comps = view.competencies.set_index(["lang", "competency"])
    shown = comps[comps["score"].notna()]
    # only knowledge ran in that file (Global-MMLU-Lite in id, vi, tl, ms, my; ThaiExam in th): each equals the
    # file's own competency total, which SEA-HELM micro-averages over the subjects (its `global_mmlu_lite` node)
    assert sorted(shown.index) == sorted((lang, "knowledge") for lang in ("id", "vi", "th", "tl", "ms", "my"))
    for lang, comp in shown.index:
        assert shown.loc[(lang, comp), "score"] == pytest.approx(doc[lang][comp]["total"], abs=0.1)
        assert shown.loc[(lang, comp), "source"] == "file"
    assert comps.loc[("id", "knowledge"), "score"] == pytest.approx(59.766, abs=0.1)
    assert comps.loc[("th", "knowledge"), "score"] == pytest.approx(43.281, abs=0.1)
    # every other competency failed there: missing with the tasks it lacks, never SEA-HELM's 0
    assert comps.loc[("id", "nlu"), "why"] == "not scored: sentiment, qa, metaphor"
    langs = view.languages.set_index("lang")
    assert langs["score"].isna().all()
    assert langs.loc["id", "why"].startswith("incomplete: nlu, safety, nlg, nlr, linguistic-diagnostics")
    board = view.board.iloc[0]
    assert pd.isna(board["SEA average"]) and board["why"] == "languages not complete: id, vi, th, ta, tl, ms, my"
    # the file's own totals stay beside, as the file gives them (a failed task counted 0)
    totals = view.file_totals.set_index(["lang", "level"])["value"]
    assert totals[("id", "language")] == pytest.approx(7.470770202020202)
    assert totals[("sea", "sea")] == pytest.approx(doc["total"])


def test_sea_average_only_for_the_model_that_covers_every_language(tmp_path):
    complete = T.seahelm_suite_results()
    incomplete = T.seahelm_suite_results(langs=("id", "vi", "th", "ta", "tl", "ms"))  # no Burmese
    db = _store(tmp_path, {"complete": json.dumps(complete).encode(), "no-burmese": json.dumps(incomplete).encode()})
    view = _view(db)
    board = view.board.set_index("model")
    assert list(view.board["model"]) == ["complete", "no-burmese"]  # best SEA average first, missing last
    # (48.75 + 335/7 + 335/7 + 47.5 + 48.125 + 47.5 + 47.5) / 7, the mean of the hand-computed language totals
    expected = (48.75 + 2 * 335 / 7 + 3 * 47.5 + 48.125) / 7
    assert board.loc["complete", "SEA average"] == pytest.approx(expected, abs=1e-9)
    assert board.loc["complete", "SEA average"] == pytest.approx(complete["total"], abs=0.1)  # the file's own
    for lang, total in T.SEAHELM_SUITE_TOTALS.items():
        assert board.loc["complete", lang] == pytest.approx(total, abs=1e-9)
    assert board.loc["complete", "why"] == ""
    # the model without Burmese: every other language as the complete one, no SEA average, and why
    assert pd.isna(board.loc["no-burmese", "SEA average"])
    assert board.loc["no-burmese", "why"] == "languages not complete: my"
    assert board.loc["no-burmese", "id"] == pytest.approx(48.75)
    assert pd.isna(board.loc["no-burmese", "my"])
    langs = view.languages.set_index(["model", "lang"])
    assert langs.loc[("no-burmese", "my"), "why"] == "incomplete: nlu, safety, nlg, nlr, instruction-following, knowledge"
    comps = view.competencies.set_index(["model", "lang", "competency"])
    # syntax-criteria (scored 0 in the file) is outside SEA-HELM's linguistic-diagnostics total: mp-r, pragmatics
    assert comps.loc[("complete", "id", "linguistic-diagnostics"), "score"] == pytest.approx(50.0)
    assert comps.loc[("complete", "id", "nlu"), "score"] == pytest.approx(40.0)  # (20 + 50 + 50) / 3
