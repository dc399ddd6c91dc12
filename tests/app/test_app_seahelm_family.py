"""The leaderboard's SEA-HELM tab: the multiple-choice tasks (Belebele, Global-MMLU-Lite, Kalahi) of a model on the
fixture data's SEA-HELM-layout items, through Streamlit's AppTest."""
from __future__ import annotations

import pytest

from tests.helpers.fixtures_store import DATA_DIR, app_test, pages_on

TAGS = {"tl": "Sagot", "id": "Jawaban"}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from evaluator.datasets import load_items
    from evaluator.spec import Prediction
    from services.ingest import ingest_predictions
    from store import db

    path = tmp_path_factory.mktemp("seahelm_family") / "t.duckdb"
    preds = []
    for task, lang in (("belebele", "tl"), ("global-mmlu-lite", "id"), ("kalahi", "tl")):
        for i, item in enumerate(load_items(task, lang, data_dir=DATA_DIR)):
            # right on every other item (golds A, C, A, C); the others (golds B, D) answered A
            letter = item.gold if i % 2 == 0 else "A"
            preds.append(Prediction(task=task, lang=lang, item_id=item.item_id, prompt_lang="native",
                                    output=f"{TAGS[lang]}: {letter}"))
    con = db.connect(path)
    ingest_predictions(con, preds, model={"model_id": "Mcq-1", "model_type": "instruct", "weights": "open",
                                          "origin": "evaluated"},
                       source={"file": "mcq.jsonl", "kind": "upload", "harness": "tanaw", "settings": {}},
                       data_dir=DATA_DIR)
    con.close()
    return path


def test_the_seahelm_tab_shows_the_new_tasks(store):
    """Each cell: recall A 2/2, B 0/2, C 2/2, D 0/2 -> balanced accuracy 1/2, normalised by 1/4 to 1/3; the
    competencies NLU (Belebele), KNOW (Global-MMLU-Lite) and CULT (Kalahi) each hold one cell."""
    cells = ["belebele · tl", "global-mmlu-lite · id", "kalahi · tl"]
    with pages_on(store):
        at = app_test("leaderboard", bench="Knowledge & reading", prompt="Native", score="Raw")
        assert not at.exception, [e.value for e in at.exception]
        assert at.segmented_control(key="bench").value == "Knowledge & reading"
        row = at.dataframe[0].value.set_index("model").loc["Mcq-1"]
        assert [row[c] for c in cells] == [pytest.approx(50.0)] * 3
        assert [row[c] for c in ("NLU", "KNOW", "CULT")] == [pytest.approx(50.0)] * 3
        at = app_test("leaderboard", bench="Knowledge & reading", prompt="Native")
        assert not at.exception, [e.value for e in at.exception]
        row = at.dataframe[0].value.set_index("model").loc["Mcq-1"]
        assert [row[c] for c in cells] == [pytest.approx(100 / 3)] * 3
