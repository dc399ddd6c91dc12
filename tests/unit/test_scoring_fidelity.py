"""Scoring as the papers and reference tools define it: QA normalisation and Thai newmm headline."""
import json
import math

import pytest

from evaluator.metrics.qa import normalize_answer, squad_f1, squad_f1_newmm
from evaluator.registry import get_task
from tests.helpers.samples import SAMPLES

DATA = SAMPLES
needs_qa = pytest.mark.needs_samples


def test_articles_are_removed_in_english_only():
    # SEA-HELM question_answering.py: "Articles only apply to English" (remove_articles commented out)
    assert normalize_answer("The Hague, a city", "en") == "hague city"
    assert normalize_answer("The Hague, a city", "id") == "the hague a city"
    # Indonesian "a" is not an article: "Tipe A" must keep its token
    assert squad_f1("tipe a", ["tipe a"], lang="id") == 1.0
    assert math.isclose(squad_f1("tipe a", ["tipe"], lang="id"), 2 / 3)
    assert squad_f1("tipe a", ["tipe"], lang="en") == 1.0


def test_thai_headline_is_newmm_f1_and_whitespace_f1_is_kept():
    qa = get_task("qa")
    assert qa.headline_metric("th") == "squad_f1_newmm"
    assert {qa.headline_metric(lang) for lang in ("id", "vi", "ta")} == {"squad_f1"}
    assert "squad_f1" in qa.metrics  # secondary for Thai, printed first in the paper's tables


def _gold_plus_20(lang: str) -> float:
    """Mean F1 (0-100) when each prediction is the first gold answer plus the next 20 context characters."""
    rows = [json.loads(x) for x in (DATA / "bhasa" / "qa" / f"{lang}.jsonl").read_text(encoding="utf-8").splitlines()]
    metric = squad_f1_newmm if lang == "th" else squad_f1
    scores = []
    for r in rows:
        gold, start = r["answers"]["text"], r["answers"]["answer_start"][0]
        pred = r["context"][start:start + len(gold[0]) + 20] if start >= 0 else gold[0]
        scores.append(metric(pred, gold, lang=lang))
    return 100 * sum(scores) / len(scores)


@needs_qa
@pytest.mark.parametrize("lang,expected", [("id", 66.16), ("vi", 43.31), ("th", 46.59), ("ta", 50.43)])
def test_qa_f1_on_the_shared_samples(lang, expected):
    """Gold plus 20 characters scored by SEA-HELM's own QA F1 gives these means (100 items per language; id was
    66.41 with English article removal, the th headline 60.86 with whitespace tokens).

    Reference run: github.com/aisingapore/SEA-HELM at commit 6844e6c5cae439a413281df31271d388fcbad12f, its
    src/metrics/question_answering.py (last changed in cc8e95a0ace20114f7338332c7fa09d799c0970a) imported from its
    `src/` copied to a scratch folder, never into this repo; ujson, datasets and omegaconf, which its imports pull
    in and the metric does not use, stubbed. `QuestionAnsweringMetric` made without its constructor (which reads a
    task config), `lang` set, its dataloader a pandas frame with `label` = each row's `answers["text"]` list and
    `cleaned_responses` = the predictions `_gold_plus_20` builds; `calculate_metrics()["f1"]` (for th it newmm-
    tokenizes the first gold answer and the prediction) rounded to 2 decimals: id 66.1615, vi 43.3113, th 46.5942,
    ta 50.4322. Python 3.11, pandas as pinned here, PyThaiNLP 5.4.0."""
    assert round(_gold_plus_20(lang), 2) == expected


# ------------------------------------------------------------------------------------------ PACUTE GEN / MCQ

def _pacute_item(task: str, options=None, gold="kumain", item_id="x"):
    from evaluator.spec import Item

    return Item(task=task, lang="tl", item_id=item_id, inputs={"text_en": "q", "text_tl": "q"}, gold=gold,
                options=options)


def _score(task_name: str, item, output=None, logprobs=None):
    from evaluator.scoring import score_prediction
    from evaluator.spec import Prediction

    task = get_task(task_name)
    pred = Prediction(task=task.name, lang="tl", item_id=item.item_id, prompt_lang="en", output=output,
                      option_logprobs=logprobs)
    return score_prediction(task, item, pred)


def test_gen_reads_only_the_answer_an_unclosed_reflection_is_a_format_failure():
    item = _pacute_item("pacute-hierarchical-gen")
    # pacute-bench's writer (src/pacute_bench/evaluators/base.py `_extract_answer` @ dcab16b) would read the
    # reflection's first line here; the paper's evaluator "extracts only the answer": none, so 0 and unparsed
    cut = _score(item.task, item, "<reflection>add -um- after k: kumain. but wait, the word")
    assert (cut.parsed, cut.scores) == (False, {"exact_match": 0.0, "contains_match": 0.0})
    assert cut.extras["failure"] == "reasoning block never closed: no final answer"
    after = _score(item.task, item, "<reflection>kinain? no</reflection>\nso the answer is kumain")
    assert (after.answer, after.scores) == ("so the answer is kumain", {"exact_match": 0.0, "contains_match": 1.0})
    listed = _score(item.task, item, "<reflection>kumain or kinain</reflection>\nkinain")
    assert listed.scores == {"exact_match": 0.0, "contains_match": 0.0}  # candidates in the reflection never count
    closed = _score(item.task, item, "<reflection>kumain?</reflection><answer>kinain</answer>")
    assert closed.scores == {"exact_match": 0.0, "contains_match": 0.0}  # the answer block is what was answered
    right = _score(item.task, item, "<reflection>r</reflection><answer>-kumain-</answer>")
    assert right.scores == {"exact_match": 1.0, "contains_match": 1.0}


def test_lindsea_contains_match_still_reads_the_extracted_answer():
    from evaluator.metrics.match import contains_match_item
    from evaluator.spec import Item

    from evaluator.registry import get_task

    item = Item(task="lindsea-coref-open", lang="id", item_id="c", inputs={}, gold="Tono")
    task = get_task(item.task)  # contains_whole_output=False: a field of the task's spec
    assert contains_match_item("Tina", "Tono", item=item, output="Tono or Tina? Tina", task=task) == 0.0


def test_mcq_tie_scores_one_over_k_in_any_option_order():
    import itertools

    from evaluator.metrics.choice import argmax_option

    options = ["kumain", "kinain", "kainin", "kakain"]
    for tied, credit in (([-1.0, -1.0, -3.0, -4.0], 0.5), ([-1.0, -1.0, -1.0, -4.0], 1 / 3),
                         ([-2.0, -1.0, -1.0, -4.0], 0.0), ([-1.0] * 4, 0.25)):
        for perm in itertools.permutations(range(4)):
            opts, lps = [options[i] for i in perm], [tied[i] for i in perm]
            res = _score("pacute-affixation-mcq", _pacute_item("pacute-affixation-mcq", tuple(opts)),
                         logprobs=tuple(lps))
            assert res.scores["mcq_acc"] == pytest.approx(credit)
            assert res.scores["mcq_norm_acc"] == pytest.approx((credit * 4 - 1) / 3)
            assert res.answer == opts[argmax_option(lps, opts)]
    assert argmax_option([-2.0, -1.0], ["b", "a"]) == 1  # no tie: plain argmax


def _pacute_bench_f1(acc_flags):
    """pacute-bench `_calc_metrics` (evaluator.py @ 89a610f), transcribed: gold = index 0 = the positive class."""
    tp = sum(acc_flags)
    fn = len(acc_flags) - tp
    precision = tp / (tp + 1e-10)
    recall = tp / (tp + fn + 1e-10)
    return 2 * precision * recall / (precision + recall + 1e-10)


@pytest.mark.parametrize("hits,n", [(3, 4), (1, 4), (0, 5), (7, 7), (29, 100)])
def test_mcq_f1_is_pacute_bench_f1(hits, n):
    from evaluator.metrics.choice import mcq_f1, mcq_f1_resample
    import numpy as np

    rows = [("g" if i < hits else "d", "g", {}) for i in range(n)]
    acc = hits / n
    assert math.isclose(mcq_f1(rows), 2 * acc / (1 + acc))
    assert math.isclose(mcq_f1(rows), _pacute_bench_f1([i < hits for i in range(n)]), abs_tol=1e-9)
    draws = np.arange(n)[None, :]
    assert math.isclose(float(mcq_f1_resample([[r] for r in rows], draws)[0]), mcq_f1(rows))


def test_mcq_norm_acc_uses_each_items_option_count():
    from evaluator.metrics.choice import mcq_norm_acc_item

    two = _pacute_item("pacute-syllabification-mcq", ("a", "b"), gold="a")
    four = _pacute_item("pacute-syllabification-mcq", ("a", "b", "c", "d"), gold="a")
    assert mcq_norm_acc_item("b", "a", item=two) == -1.0   # (0·2 − 1)/(2 − 1); pacute-bench's k = 4 gives −1/3
    assert math.isclose(mcq_norm_acc_item("b", "a", item=four), -1 / 3)


# ------------------------------------------------------------------------------------------ SEA-HELM view

def _cls_rows(pairs, task="sentiment", lang="id"):
    return [(a, g, {"task": task, "lang": lang}) for a, g in pairs]


def test_seahelm_view_is_normalised_balanced_accuracy_clipped_at_zero():
    from evaluator.metrics.classification import balanced_accuracy, seahelm_macro_f1, seahelm_nba

    # gold: 2 positive, 1 negative, 1 neutral; one unparsed answer
    rows = _cls_rows([("positive", "positive"), (None, "positive"), ("negative", "negative"), ("positive", "neutral")])
    # sklearn balanced_accuracy_score(y_true, y_pred with "null") = mean recall (1/2, 1, 0) = 1/2
    assert math.isclose(balanced_accuracy(rows), 0.5)
    # SEA-HELM: max((0.5 − 1/3)/(1 − 1/3), 0) = 0.25 (K = 3 labels for Indonesian sentiment)
    assert math.isclose(seahelm_nba(rows), 0.25)
    # f1_score(average="macro") over {positive, negative, neutral, null}: positive P = R = 1/2 -> (1/2 + 1 + 0 + 0)/4
    assert math.isclose(seahelm_macro_f1(rows), (1 / 2 + 1) / 4)
    below = _cls_rows([("negative", "positive"), ("positive", "negative")], lang="ta")  # K = 2, bacc 0
    assert seahelm_nba(below) == 0.0
    assert {"seahelm_nba", "seahelm_macro_f1"} <= set(get_task("nli").metrics) & set(get_task("causal").metrics)


# ------------------------------------------------------------------------------------------ data defects

needs_samples = pytest.mark.needs_samples


@needs_samples
def test_syllabification_mcq_duplicates_and_lindsea_typo_are_flagged():
    from evaluator.datasets import load_items, load_report
    from evaluator.datasets.validate import duplicate_groups

    syl = load_report("pacute-syllabification-mcq", "tl", data_dir=DATA)
    assert syl.counts["duplicate-item"] == 91
    groups = duplicate_groups(load_items("pacute-syllabification-mcq", "tl", data_dir=DATA))
    assert len(groups) == 39 and sum(map(len, groups)) == 91
    mp = load_report("lindsea-mp", "id", data_dir=DATA)
    assert mp.flagged["argument_structure-21"] == ("known-typo: wrong 'mengambilan' (fixed copy: 'mengambilkan')",)
    assert mp.counts.get("known-typo") == 1
