"""The leaderboard page on the embedded default database (Streamlit AppTest), with hand-checked numbers."""
import json

import pytest

from services.demo import DEMO_MODEL
from tests.conftest import REPO
from tests.helpers.demo_pages import leaderboard_at as _run

DEMO = REPO / "data" / "demo"

MAJ, RND = "Baseline · majority class (demo)", "Baseline · random choice, seed 0 (demo)"
GEMMA = DEMO_MODEL["model_id"]


def _gemma_mcq_accuracy(prompt_lang: str) -> float:
    """PACUTE hierarchical MCQ accuracy of the demo model straight from data/demo (argmax of its log-probs)."""
    items = {r["id"]: r for r in map(json.loads, (DEMO / "pacute" / "benchmarks" / "hierarchical_mcq.jsonl")
                                     .read_text(encoding="utf-8").splitlines())}
    rows = [r for r in map(json.loads, (DEMO / "gemma-3-270m.results.jsonl").read_text(encoding="utf-8").splitlines())
            if r["task"] == "pacute-hierarchical-mcq" and r["prompt_lang"] == prompt_lang]
    right = [items[r["item_id"]]["options"][r["option_logprobs"].index(max(r["option_logprobs"]))]
             == items[r["item_id"]]["answer"] for r in rows]
    return 100 * sum(right) / len(right)


def test_bhasa_normalized_english(demo_db, monkeypatch):
    at = _run(demo_db, monkeypatch)
    board = at.dataframe[0].value.set_index("model")
    assert set(board.index) == {GEMMA, MAJ, RND}  # a real model's demo run beside the baselines
    assert (board["rank"] == float("-inf")).all()  # demo runs are never ranked: "—" (−inf sorts last)
    # majority class on the twelve demo Indonesian sentiment items (5 positive, 4 negative, 3 neutral): always
    # "positive" → F1(positive) = 2·(5/12)/(5/12 + 1) = 10/17, macro-F1 = (10/17 + 0 + 0) / 3 = 19.6,
    # normalized (19.6 − 33.3) / 66.7 = −20.6
    assert board.loc[MAJ, "sentiment · id"] == pytest.approx((1000 / 51 - 100 / 3) / (200 / 3) * 100, abs=0.01)
    # both option orders: "A" every time is right exactly once per item → 50% = chance → 0
    assert board.loc[MAJ, "causal · id"] == pytest.approx(0.0)
    reported = at.dataframe[-1].value.set_index("system")
    assert reported.loc["gpt-4-0314", "causal · id"] == pytest.approx((96.8 - 50) / 50 * 100)


def test_raw_scores_and_native_prompt_from_the_url(demo_db, monkeypatch):
    at = _run(demo_db, monkeypatch, bench="BHASA", prompt="Native", score="Raw")
    board = at.dataframe[0].value.set_index("model")
    assert board.loc[MAJ, "sentiment · id"] == pytest.approx(1000 / 51, abs=0.01)  # macro-F1 10/17 / 3
    assert board.loc[MAJ, "sentiment · ta"] == pytest.approx(50.0)  # 6 of 12 positive, accuracy headline
    assert any("BHASA · raw scores · Native prompt" in h.value for h in at.subheader)


def test_pacute_and_empty_state(demo_db, monkeypatch):
    at = _run(demo_db, monkeypatch, bench="PACUTE", score="Raw")
    board = at.dataframe[0].value.set_index("model")
    # always the first option, which is the gold in 17 of the 63 demo items
    assert board.loc[MAJ, "pacute-hierarchical-mcq · tl"] == pytest.approx(100 * 17 / 63, abs=0.01)
    # the real model: the option with the highest summed log-probability in its result file, checked by hand
    assert board.loc[GEMMA, "pacute-hierarchical-mcq · tl"] == pytest.approx(_gemma_mcq_accuracy("en"), abs=0.01)
    at = _run(demo_db, monkeypatch, bench="LINDSEA", search="no such model")
    assert any("pass the filters" in i.value for i in at.info)


def test_every_reported_row_downloads_with_its_citation(demo_db, monkeypatch):
    at = _run(demo_db, monkeypatch)
    from pages._cached import q  # the app's own connection to the same file

    rows = q("reported_rows")
    assert len(rows) == 334 and rows["citation"].str.len().min() > 20
    assert any(b.label.startswith("Download every reported result") for b in at.get("download_button"))


def test_reported_rows_normalized_are_the_evaluators(demo_db, monkeypatch):
    """The papers' rows on the normalised leaderboard: the evaluator's normalisation with the chance level the
    cell's own aggregates use (stored when the rows load), e.g. causal reasoning (chance 50): 96.8 -> 93.6."""
    from evaluator.chance import metric_chance, normalized_score
    from evaluator.metrics import METRICS
    from evaluator.registry import TASKS
    from pages._cached import q

    at = _run(demo_db, monkeypatch, bench="BHASA", prompt="English", score="Normalized")
    shown = next(d.value for d in at.dataframe if list(d.value.columns[:2]) == ["system", "source"])
    shown = shown.set_index(["system", "source"])
    rows = q("reported_rows")
    rows = rows[rows["prompt_lang"].isin(["en", "n/a"])]
    checked = 0
    for system, source, task, lang, metric, value in zip(*(rows[c] for c in ("system", "source", "task", "lang",
                                                                             "metric", "value"))):
        col = f"{task} · {lang}"
        if col not in shown.columns or TASKS[task].headline_metric(lang) != metric:
            continue
        want = normalized_score(value, metric_chance(METRICS[metric], TASKS[task], lang))
        got = shown.loc[(system, source), col]
        assert (got != got and want is None) or got == pytest.approx(want), (system, col)
        checked += 1
    assert checked > 20
    assert shown.loc[("gpt-4-0314", "BHASA"), "causal · id"] == pytest.approx((96.8 - 50) / 50 * 100)
