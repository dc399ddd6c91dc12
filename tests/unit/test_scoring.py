"""score_prediction: extraction + item metrics, unparseable handling and order flipping."""
import pytest

from evaluator.registry import get_task
from evaluator.scoring import score_prediction
from evaluator.spec import Item, Prediction


def pred(task, output, order="ab", **kw):
    return Prediction(task=task, lang=kw.pop("lang", "id"), item_id="7", prompt_lang="native", output=output,
                      order=order, **kw)


def test_sentiment_item_scores_only_item_metrics():
    task = get_task("sentiment")
    item = Item(task="sentiment", lang="id", item_id="7", inputs={"text": "..."}, gold="positive")
    res = score_prediction(task, item, pred("sentiment", "Jawaban: Positif"))
    assert (res.answer, res.parsed, dict(res.scores)) == ("positive", True, {"accuracy": 1.0})


def test_unparseable_scores_zero_and_is_flagged():
    task = get_task("nli")
    item = Item(task="nli", lang="id", item_id="7", inputs={}, gold="A")
    res = score_prediction(task, item, pred("nli", "Maybe A, maybe C"))
    assert res.parsed is False and res.answer is None and res.scores == {"accuracy": 0.0}


def test_ba_order_flips_the_gold_letter():
    task = get_task("causal")
    item = Item(task="causal", lang="id", item_id="7", inputs={}, gold="A", options=("x", "y"))
    assert score_prediction(task, item, pred("causal", "A")).scores["accuracy"] == 1.0
    assert score_prediction(task, item, pred("causal", "A", order="ba")).scores["accuracy"] == 0.0
    assert score_prediction(task, item, pred("causal", "B", order="ba")).scores["accuracy"] == 1.0


def test_pacute_mcq_by_logprob_and_reasoning_kept():
    task = get_task("pacute-affixation-mcq")
    item = Item(task=task.name, lang="tl", item_id="7", inputs={}, gold="kumain", options=("kinain", "kumain", "kain"))
    res = score_prediction(task, item, pred(task.name, None, lang="tl", option_logprobs=(-2.0, -0.5, -4.0)))
    assert res.answer == "kumain" and res.scores == {"mcq_acc": 1.0, "mcq_norm_acc": 1.0}
    res = score_prediction(task, item, pred(task.name, None, lang="tl", option_logprobs=(-0.1, -0.5, -4.0)))
    assert res.scores == {"mcq_acc": 0.0, "mcq_norm_acc": -0.5}
    gen = get_task("pacute-affixation-gen")
    res = score_prediction(gen, Item(task=gen.name, lang="tl", item_id="7", inputs={}, gold="-um-"),
                           pred(gen.name, "<think>affix?</think><answer>um</answer>", lang="tl", reasoning="r0"))
    assert res.scores == {"exact_match": 1.0, "contains_match": 1.0} and res.reasoning == "r0\n\naffix?"


def test_mismatched_item_is_an_error():
    task = get_task("sentiment")
    item = Item(task="sentiment", lang="id", item_id="8", inputs={}, gold="positive")
    with pytest.raises(ValueError, match="'7'"):
        score_prediction(task, item, pred("sentiment", "Positif"))
