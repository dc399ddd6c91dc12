"""Run cards and the Compare page's run-card diff list exactly the settings that differ."""
from __future__ import annotations

from evaluator.runcards import MISSING, card_diff, run_card
from tests.helpers.fixtures_store import DATA_DIR, MODELS, app_test, pages_on, predictions


def test_card_diff_lists_exactly_the_differing_settings():
    a = run_card({"harness": "tanaw", "source": "upload", "source_file": "a.jsonl", "created_at": "2026-11-30 10:00",
                  "settings": '{"temperature": 0, "max_tokens": 256, "endpoint": {"kind": "openai"}, '
                              '"prompt_template": "Q: {q}"}'})
    b = run_card({"harness": "tanaw", "source": "upload", "source_file": "b.jsonl", "created_at": "2026-11-30 11:00",
                  "settings": '{"temperature": 0.7, "max_tokens": 256, "endpoint": {"kind": "openai"}, "seed": 1, '
                              '"prompt_template": "Q: {q}"}'})
    rows = {r["setting"]: (r["A"], r["B"]) for r in card_diff({"A": a, "B": b})}
    assert rows == {"source file": ("a.jsonl", "b.jsonl"), "settings.temperature": ("0", "0.7"),
                    "settings.seed": (MISSING, "1")}
    assert a["settings.prompt template sha256"] == b["settings.prompt template sha256"]
    assert a["settings.endpoint.kind"] == "openai"


def test_compare_page_shows_the_diff_above_the_items(tmp_path):
    from services.ingest import ingest_predictions
    from store import db

    con = db.connect(tmp_path / "c.duckdb")
    for model, settings in (("SeaLion-9B-it", {"temperature": 0.0, "max_tokens": 64}),
                            ("Gemma-2B", {"temperature": 0.2, "max_tokens": 64})):
        preds = [p for p in predictions(model) if p.task == "sentiment" and p.prompt_lang == "en"]
        ingest_predictions(con, preds, model={"model_id": model, **MODELS[model], "origin": "evaluated"},
                           source={"file": f"{model}.jsonl", "kind": "upload", "harness": "tanaw",
                                   "settings": settings}, data_dir=DATA_DIR)
    con.close()
    with pages_on(tmp_path / "c.duckdb"):
        at = app_test("compare", task="sentiment", lang="th", sys=["SeaLion-9B-it|en", "Gemma-2B|en"])
    assert not at.exception, [e.value for e in at.exception]
    assert at.expander[0].label == "Run cards: 2 settings differ"
    diff = next(d.value for d in at.dataframe if "setting" in d.value.columns).set_index("setting")
    assert set(diff.index) == {"source file", "settings.temperature"}
    assert diff.loc["settings.temperature"].tolist() == ["0.0", "0.2"]
