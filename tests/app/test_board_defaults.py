"""Pages open on a benchmark, format and prompt language that have results (query parameters still win),
and the PACUTE generation hierarchy gets the same read-out as MCQ (L2 against L0-L1; chance 0 for exact match)."""
from __future__ import annotations

import pytest

from tests.helpers.fixtures_store import DATA_DIR, MODELS, app_test, pages_on, predictions

PACUTE_ONLY = ("SeaLion-9B-it", "Gemma-2B")


def _ingest(con, model: str, keep) -> None:
    from services.ingest import ingest_predictions

    preds = [p for p in predictions(model) if keep(p)]
    ingest_predictions(con, preds, model={"model_id": model, **MODELS[model], "origin": "evaluated"},
                       source={"file": f"{model}-{len(preds)}.jsonl", "kind": "upload", "harness": "tanaw",
                               "settings": {"temperature": 0.0}}, data_dir=DATA_DIR)


def _gen_native(p) -> bool:
    return p.task == "pacute-hierarchical-gen" and p.prompt_lang == "native"


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """Two stores: PACUTE GEN native results only, and the same plus BHASA sentiment."""
    from store import db

    paths = {}
    for name, extra in (("pacute", False), ("bhasa", True)):
        path = tmp_path_factory.mktemp(name) / "t.duckdb"
        con = db.connect(path)
        for model in PACUTE_ONLY:
            _ingest(con, model, _gen_native)
        if extra:
            _ingest(con, "Closed-XL", lambda p: p.task == "sentiment")
        con.close()
        paths[name] = path
    return paths


def _board(at):
    return at.dataframe[0].value.set_index("model")


def test_only_pacute_gen_native_opens_there(stores):
    with pages_on(stores["pacute"]):
        at = app_test("leaderboard")
        assert not at.exception, [e.value for e in at.exception]
        assert at.segmented_control(key="bench").value == "PACUTE"
        assert at.segmented_control(key="prompt").value == "Native"
        assert any("PACUTE · normalized scores · Native prompt" in h.value for h in at.subheader)
        assert set(_board(at).index) == set(PACUTE_ONLY)
        assert not any("No PACUTE results" in i.value for i in at.info)

        at = app_test("pacute")
        assert not at.exception, [e.value for e in at.exception]
        assert at.radio(key="fmt").value == "GEN" and at.radio(key="prompt").value == "native"
        assert "Where it breaks (GEN, chance 0%)" in [h.value for h in at.subheader]
        assert len(at.get("plotly_chart")) >= 1
        readouts = [t.value for t in at.text]
        # one read-out per model (plain text), naming its L2 score with its interval
        for model in PACUTE_ONLY:
            assert sum(r[2:].startswith(f"{model} ") for r in readouts) == 1, readouts
        assert all(" at L2" in r and "95% CI" in r for r in readouts)


def test_query_parameters_still_win(stores):
    with pages_on(stores["pacute"]):
        at = app_test("leaderboard", bench="BHASA", prompt="English")
        assert at.segmented_control(key="bench").value == "BHASA"
        assert any("No BHASA results" in i.value for i in at.info)
        assert any("Also with results: benchmarks PACUTE" in c.value for c in at.caption)
        at = app_test("pacute", fmt="MCQ", prompt="en")
        assert at.radio(key="fmt").value == "MCQ"
        assert any("Also with results: formats GEN" in c.value for c in at.caption)


def test_the_board_with_more_models_opens_first(stores):
    """PACUTE (two evaluated models) beats BHASA (one); picked, BHASA opens on the prompt that has its results."""
    with pages_on(stores["bhasa"]):
        at = app_test("leaderboard")
        assert not at.exception, [e.value for e in at.exception]
        assert at.segmented_control(key="bench").value == "PACUTE"
        assert at.segmented_control(key="prompt").value == "Native"
        assert any("Also with results: benchmarks BHASA" in c.value for c in at.caption)
        at = app_test("leaderboard", bench="BHASA")
        assert at.segmented_control(key="prompt").value == "English"
        assert list(_board(at).index) == ["Closed-XL"]


def test_missing_values_show_as_a_dash_and_sort_last(stores):
    with pages_on(stores["bhasa"]):
        at = app_test("leaderboard", bench="BHASA", prompt="English")
        shown = at.dataframe[0].value
        assert shown.loc[0, "params_b"] == float("-inf")  # Closed-XL has no known size: "—", never None
        text = shown.select_dtypes(exclude="number")
        assert not text.isna().any().any() and not text.isin(["None", "nan"]).any().any()
        assert not shown.select_dtypes("number").isna().any().any()  # missing numbers are −inf, drawn as "—"


def test_embed_view_is_the_table_alone(stores):
    with pages_on(stores["bhasa"]):
        at = app_test("leaderboard", embed="1", bench="PACUTE", prompt="Native")
        assert not at.exception, [e.value for e in at.exception]
        assert len(at.dataframe) == 1 and not at.title and not at.get("plotly_chart")
        assert not at.segmented_control and not at.get("download_button")[1:]
        assert set(at.dataframe[0].value["model"]) == set(PACUTE_ONLY)
        assert "PACUTE · normalized scores · Native prompt" in at.markdown[0].value
