"""Every number a page shows is the evaluator's: the leaderboard, LINDSEA and PACUTE pages (AppTest, on the fixture
store built through the wiring) against `evaluator.aggregate` / `evaluator.rollup` run directly on the same items
and answers. Also: which metrics the store treats as 0/1 is `MetricSpec.binary`."""
from __future__ import annotations

import pytest

from evaluator.aggregate import aggregate_cell, breakdown, wilson
from evaluator.datasets import load_items
from evaluator.metrics import METRICS
from evaluator.registry import TASKS
from evaluator.rollup import rollup
from evaluator.scoring import score_prediction
from tests.fixtures_store import DATA_DIR, app_test, fixture_db, pages_on, predictions


@pytest.fixture(scope="module")
def db():
    with pages_on(fixture_db()) as path:
        yield path


def pairs(model: str, task: str, lang: str, prompt_lang: str) -> list:
    """(Item, ItemResult) of one cell, scored here by the evaluator from the fixture's own predictions."""
    items = {it.item_id: it for it in load_items(task, lang, data_dir=DATA_DIR)}
    return [(items[p.item_id], score_prediction(TASKS[task], items[p.item_id], p)) for p in predictions(model)
            if (p.task, p.lang, p.prompt_lang) == (task, lang, prompt_lang)]


def headline(model: str, task: str, lang: str, prompt_lang: str):
    return next(c for c in aggregate_cell(TASKS[task], lang, pairs(model, task, lang, prompt_lang)) if c.is_headline)


@pytest.mark.parametrize("score", ["Raw", "Normalized"])
def test_leaderboard_cells_and_overall_are_the_evaluators(db, score):
    at = app_test("leaderboard", bench="BHASA", prompt="English", score=score)
    assert not at.exception
    board = at.dataframe[0].value.set_index("model")
    col = "value" if score == "Raw" else "normalized"
    for model in ("SeaLion-9B-it", "Gemma-2B", "Closed-XL"):
        cell = headline(model, "sentiment", "th", "en")
        assert board.loc[model, "sentiment · th"] == pytest.approx(getattr(cell, col))
        want = rollup({("sentiment", "th"): getattr(cell, col)}, {"sentiment": "NLU"})
        assert board.loc[model, "overall"] == pytest.approx(want["overall"])
        assert board.loc[model, "NLU"] == pytest.approx(want["competency_mean"]["NLU"])


def test_lindsea_cells_are_the_evaluators(db):
    at = app_test("lindsea", model="SeaLion-9B-it", lang="id", prompt="en")
    assert not at.exception
    cells = next(d.value for d in at.dataframe if list(d.value.columns[:2]) == ["branch", "task"])
    cells = cells.set_index(["task", "prompt_lang"])
    for task in ("lindsea-mp", "lindsea-pragmatic-pair"):
        for prompt_lang in ("en", "native"):
            want = headline("SeaLion-9B-it", task, "id", prompt_lang)
            got = cells.loc[(task, prompt_lang)]
            assert (got["value"], got["ci_low"], got["ci_high"]) == pytest.approx(
                (want.value, want.ci_low, want.ci_high))
            assert got["n"] == want.n


def test_pacute_levels_are_the_evaluators(db):
    at = app_test("pacute", models=["SeaLion-9B-it", "Gemma-2B", "Closed-XL"], fmt="MCQ", prompt="en")
    assert not at.exception
    levels = next(d.value for d in at.dataframe if list(d.value.columns[:2]) == ["model_id", "level"])
    levels = levels.set_index(["model_id", "level"])
    for model in ("SeaLion-9B-it", "Gemma-2B", "Closed-XL"):
        for row in breakdown(pairs(model, "pacute-hierarchical-mcq", "tl", "en"), "mcq_acc", ("level",)):
            got = levels.loc[(model, row["level"])]
            low, high = wilson(row["micro"] / 100, row["n"])
            assert (got["value"], got["n"]) == (pytest.approx(row["micro"]), row["n"])
            assert (got["ci_low"], got["ci_high"]) == pytest.approx((100 * low, 100 * high))


def test_binary_metrics_in_the_store_are_metricspec_binary(db):
    from store.cached import connection
    from store.queries.explore import binary_metrics

    stored = set(binary_metrics(connection().cursor()))
    assert stored == {m.name for m in METRICS.values() if m.binary}
    assert "squad_em" in stored and "mcq_norm_acc" not in stored
