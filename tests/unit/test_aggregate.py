"""aggregate_cell: values, Wilson/bootstrap intervals, chance and normalisation, runs, statuses."""
import math

import numpy as np

import pytest

from evaluator.aggregate import aggregate_cell
from evaluator.stats import wilson
from evaluator.registry import get_task
from evaluator.scoring import score_prediction
from evaluator.spec import Item, Prediction


def cell(task_name, lang, triples, **kw):
    """triples: (item_id, gold, output[, run, order, options, logprobs, metadata])."""
    task = get_task(task_name)
    pairs = []
    for t in triples:
        iid, gold, out, run, order, options, lps, meta = (*t, 1, "ab", None, None, {})[: 8] if len(t) == 3 else t
        item = Item(task=task.name, lang=lang, item_id=iid, inputs={}, gold=gold, options=options, metadata=meta)
        p = Prediction(task=task.name, lang=lang, item_id=iid, prompt_lang="en", output=out, run=run, order=order,
                       option_logprobs=lps)
        pairs.append((item, score_prediction(task, item, p)))
    return {c.metric: c for c in aggregate_cell(task, lang, pairs, **kw)}


def test_wilson_known_values():
    lo, hi = wilson(0.5, 100)
    assert math.isclose(lo, 0.4038, abs_tol=1e-4) and math.isclose(hi, 0.5962, abs_tol=1e-4)
    lo, hi = wilson(1.0, 20)
    assert math.isclose(lo, 0.8389, abs_tol=1e-4) and hi == 1.0
    assert wilson(0.0, 20)[0] == 0.0 and wilson(0.0, 20)[1] > 0.15


def test_sentiment_cell_values_chance_and_failures():
    gold = ["positive", "positive", "negative", "neutral", "negative", "positive"]
    outs = ["Positif", "Negatif", "Negatif", "Netral", "???", "Positif"]
    cs = cell("sentiment", "id", [(str(i), g, o) for i, (g, o) in enumerate(zip(gold, outs))])
    acc, f1 = cs["accuracy"], cs["macro_f1"]
    assert acc.status == "ok" and math.isclose(acc.value, 400 / 6)
    # positive tp2 pred2 gold3 = .8; negative tp1 pred2 gold2 = .5; neutral 1 -> 2.3/3
    assert math.isclose(f1.value, 100 * 2.3 / 3) and f1.is_headline and not acc.is_headline
    assert math.isclose(acc.chance, 100 / 3) and math.isclose(acc.normalized, (400 / 6 - 100 / 3) / (200 / 3) * 100)
    assert acc.n == 6 and acc.n_runs == 1 and math.isclose(acc.parse_fail_rate, 1 / 6)
    assert (acc.ci_low, acc.ci_high) == tuple(100 * x for x in wilson(4 / 6, 6))
    assert f1.ci_low <= f1.value <= f1.ci_high and 0 <= f1.ci_low and f1.ci_high <= 100
    # the bootstrap is seeded: same interval twice
    again = cell("sentiment", "id", [(str(i), g, o) for i, (g, o) in enumerate(zip(gold, outs))])["macro_f1"]
    assert (again.ci_low, again.ci_high) == (f1.ci_low, f1.ci_high)


def test_tamil_sentiment_headline_is_accuracy_and_below_chance_not_clipped():
    cs = cell("sentiment", "ta", [("1", "positive", "எதிர்மறை"), ("2", "negative", "நேர்மறை"),
                                  ("3", "positive", "நேர்மறை"), ("4", "negative", "நேர்மறை")])
    acc = cs["accuracy"]
    assert acc.is_headline and acc.value == 25.0 and acc.chance == 50.0 and acc.normalized == -50.0
    assert "below chance" in acc.note


def test_perfect_score_has_non_degenerate_interval():
    cs = cell("nli", "id", [(str(i), "A", "A") for i in range(20)])
    assert cs["accuracy"].value == 100.0 and cs["accuracy"].ci_high == 100.0
    assert math.isclose(cs["accuracy"].ci_low, 83.89, abs_tol=0.01)
    assert cs["macro_f1"].value == 100.0 and cs["macro_f1"].ci_low < 100.0  # bootstrap degenerate -> Wilson


def test_both_orders_runs_and_order_consistency():
    rows = []
    for run in (1, 2):
        rows += [("1", "A", "A", run, "ab", ("x", "y"), None, {}), ("1", "A", "B", run, "ba", ("x", "y"), None, {}),
                 ("2", "B", "A", run, "ab", ("x", "y"), None, {}), ("2", "B", "A", run, "ba", ("x", "y"), None, {})]
    cs = cell("causal", "id", rows)
    # item 1 right in both orders; item 2 always "A": right in "ba" (gold flipped to A), wrong in "ab"
    assert cs["accuracy"].value == 75.0 and cs["accuracy"].n == 2 and cs["accuracy"].n_runs == 2
    assert cs["order_consistency"].value == 50.0 and cs["order_consistency"].chance is None
    assert "mean of 2 runs" in cs["accuracy"].note and "clustered SE" in cs["accuracy"].note
    one_order = cell("causal", "id", [r for r in rows if r[4] == "ab"])
    assert one_order["order_consistency"].status == "not_scored" and one_order["order_consistency"].value is None


def test_mcq_chance_from_options_and_norm_acc():
    opts4, opts2 = ("a", "b", "c", "d"), ("a", "b")
    cs = cell("pacute-affixation-mcq", "tl", [
        ("1", "a", None, 1, "ab", opts4, (-1.0, -2.0, -3.0, -4.0), {}),
        ("2", "a", None, 1, "ab", opts2, (-2.0, -1.0), {})])
    acc, norm = cs["mcq_acc"], cs["mcq_norm_acc"]
    assert acc.value == 50.0 and math.isclose(acc.chance, 100 * (1 / 4 + 1 / 2) / 2)
    assert math.isclose(norm.value, 100 * (1 + -1) / 2) and norm.chance == 0.0


def test_comet_without_checkpoint_is_unavailable_with_reason(monkeypatch):
    monkeypatch.delenv("TANAW_COMET_PATH", raising=False)
    cs = cell("translation-en-xx", "id", [("1", "Saya makan nasi.", "Saya makan nasi."),
                                          ("2", "Dia pergi.", "Dia pergi ke pasar.")])
    assert cs["comet22"].status == "unavailable" and cs["comet22"].value is None
    assert cs["comet22"].note.startswith("COMET-22 unavailable: ")
    assert cs["chrf++"].status == "ok" and cs["chrf++"].is_headline and "reference bootstrap" in cs["chrf++"].note


def test_thai_only_metric_has_no_cell_elsewhere():
    assert "squad_f1_newmm" not in cell("qa", "id", [("1", ["Jakarta"], "Jakarta")])
    th = cell("qa", "th", [("1", ["ภาษามือแบบอเมริกัน"], "คือภาษามือแบบอเมริกัน"), ("2", ["308"], "308")])
    assert th["squad_f1"].value == 50.0 and math.isclose(th["squad_f1_newmm"].value, 100 * (6 / 7 + 1) / 2)


def test_rouge_cell_uses_the_seeded_bootstrap_mid():
    from evaluator.metrics.summarization import bootstrap_mid, rouge_l
    pairs = [("1", "kucing itu tidur di atas tikar", "kucing tidur di tikar"),
             ("2", "harga beras naik lagi", "harga beras turun"), ("3", "hujan deras di Jakarta", "banjir")]
    cs = cell("abssum", "id", pairs)
    mid, lo, hi = bootstrap_mid([rouge_l(o, g, lang="id") for _, g, o in pairs])
    assert (cs["rougeL"].value, cs["rougeL"].ci_low, cs["rougeL"].ci_high) == (100 * mid, 100 * lo, 100 * hi)
    assert "rougeL_nows" not in cs


def test_ner_cell_micro_f1():
    task_text = "Budi tinggal di Jakarta ."
    gold = [{"text": "Budi", "type": "PERSON", "start": 0, "end": 4},
            {"text": "Jakarta", "type": "PLACE", "start": 16, "end": 23}]
    task = get_task("ner")
    item = Item(task="ner", lang="id", item_id="1", inputs={"text": task_text}, gold=gold)
    out = "@@PERSON@@Budi## tinggal di @@PERSON@@Jakarta##."
    res = score_prediction(task, item, Prediction(task="ner", lang="id", item_id="1", prompt_lang="en", output=out))
    assert res.extras["ner_counts"] == {"PERSON": [1, 1, 0], "PLACE": [0, 0, 1]}
    (c,) = aggregate_cell(task, "id", [(item, res)])
    assert c.metric == "ner_f1" and c.value == 50.0 and c.chance == 0.0
    assert "F1 by type: PERSON 66.7 (n=1), PLACE 0.0 (n=1)" in c.note


@pytest.mark.parametrize("empty", [[]])
def test_empty_cell(empty):
    cs = aggregate_cell(get_task("nli"), "id", empty)
    assert {c.status for c in cs} == {"not_scored"} and all(c.n == 0 for c in cs)


# ------------------------------------------------------------------------------------- paired tests, roll-ups

def test_paired_test_binary_uses_mcnemar():
    from evaluator.pair_tests import paired_test
    a = [1] * 9 + [0] * 1 + [1] * 5
    b = [0] * 9 + [1] * 1 + [1] * 5
    r = paired_test(a, b)
    assert r.method == "mcnemar-exact" and (r.a_only, r.b_only, r.n) == (9, 1, 15)
    assert math.isclose(r.diff, 100 * 8 / 15) and r.p_value == pytest.approx(2 * 11 / 1024, rel=1e-12)
    assert r.ci_low <= r.diff <= r.ci_high


def test_paired_test_continuous_bootstrap_and_dict_alignment():
    from evaluator.pair_tests import paired_test
    r = paired_test({"x": 0.5, "y": 0.6, "z": 0.7, "only_a": 1.0}, {"x": 0.4, "y": 0.6, "z": 0.5})
    assert r.method == "paired-bootstrap" and r.n == 3 and math.isclose(r.diff, 10.0)
    # resampled mean difference is <= 0 only when every draw is item y: (1/3)^3, doubled
    assert abs(r.p_value - 2 / 27) < 0.01 and 0.0 <= r.ci_low <= r.ci_high <= 20.0 + 1e-9
    with pytest.raises(ValueError, match="same items"):
        paired_test([1, 0], [1])


def test_rollup_translation_directions_then_competency_language_overall():
    from evaluator.rollup import rollup
    groups = {"sentiment": "NLU", "qa": "NLU", "translation-en-xx": "NLG", "translation-xx-en": "NLG", "nli": "NLR"}
    scores = {("sentiment", "id"): 60.0, ("qa", "id"): 40.0, ("translation-en-xx", "id"): 30.0,
              ("translation-xx-en", "id"): 50.0, ("nli", "id"): 20.0, ("sentiment", "th"): 10.0}
    r = rollup(scores, groups)
    assert r["competency"][("id", "NLU")] == 50.0 and r["competency"][("id", "NLG")] == 40.0
    assert math.isclose(r["language"]["id"], (50 + 40 + 20) / 3) and r["language"]["th"] == 10.0
    assert math.isclose(r["overall"], ((110 / 3) + 10) / 2)
    assert r["coverage"][("id", "NLG")] == ["translation"]


def test_breakdown_micro_and_macro():
    from tests.helpers.breakdown import breakdown
    task = get_task("pacute-hierarchical-gen")
    pairs = []
    for i, (level, sub, ok) in enumerate([(2, "prefix", 1), (2, "prefix", 1), (2, "prefix", 1), (2, "suffix", 0),
                                          (3, "x", 0)]):
        item = Item(task=task.name, lang="tl", item_id=str(i), inputs={}, gold="a",
                    metadata={"level": level, "subcategory": sub})
        p = Prediction(task=task.name, lang="tl", item_id=str(i), prompt_lang="en", output="a" if ok else "b")
        pairs.append((item, score_prediction(task, item, p)))
    rows = breakdown(pairs, "exact_match")
    assert rows[0] == {"level": 2, "n": 4, "n_subcategory": 2, "micro": 75.0, "macro": 50.0}
    assert rows[1]["level"] == 3 and rows[1]["micro"] == 0.0


def test_rows_scored_before_a_metric_existed_are_scored_on_the_fly():
    from evaluator.spec import ItemResult
    task = get_task("qa")
    item = Item(task="qa", lang="th", item_id="1", inputs={}, gold=["ภาษามือแบบอเมริกัน"])
    p = Prediction(task="qa", lang="th", item_id="1", prompt_lang="en", output="คือภาษามือแบบอเมริกัน")
    old = ItemResult(prediction=p, answer="คือภาษามือแบบอเมริกัน", parsed=True, reasoning=None,
                     scores={"squad_f1": 0.0, "squad_em": 0.0})  # stored before squad_f1_newmm was added
    cs = {c.metric: c for c in aggregate_cell(task, "th", [(item, old)])}
    assert math.isclose(cs["squad_f1_newmm"].value, 100 * 6 / 7)


def test_runs_answering_different_questions_average_each_question_over_its_runs():
    # run 1 answers q1 and q3 right, q2 wrong; run 2 answers only q1, wrong
    rows = [("q1", "A", "A", 1, "ab", ("x", "y"), None, {}), ("q2", "A", "B", 1, "ab", ("x", "y"), None, {}),
            ("q3", "A", "A", 1, "ab", ("x", "y"), None, {}), ("q1", "A", "B", 2, "ab", ("x", "y"), None, {})]
    acc = cell("causal", "id", rows)["accuracy"]
    # q1 = 0.5, q2 = 0, q3 = 1 → 0.5; the mean of run scores would be (2/3 + 0)/2 = 1/3
    assert acc.n_runs == 2 and math.isclose(acc.value, 50.0)
    assert "mean of 2 runs; run-to-run SD" in acc.note
    assert math.isclose(acc.run_sd, float(np.std([100 * 2 / 3, 0.0], ddof=1)))


def test_one_run_has_no_spread_and_complete_runs_average_the_runs():
    one = cell("causal", "id", [(f"q{k}", "A", "A" if k % 3 else "B") for k in range(9)])["accuracy"]
    assert one.run_sd is None and "runs" not in one.note and "stratified" not in one.note
    runs = [(f"q{k}", "A", "A" if (k + r) % 3 else "B", r, "ab", ("x", "y"), None, {}) for r in (1, 2, 3)
            for k in range(9)]
    three = cell("causal", "id", runs)["accuracy"]
    assert math.isclose(three.value, 100 * 6 / 9) and three.run_sd == 0.0


def _labelled(counts: dict[str, int], runs: int = 2) -> dict:
    golds = [g for g, k in counts.items() for _ in range(k)]
    return cell("sentiment", "id", [(f"i{k:02d}", g, g if (k + r) % 4 else "neutral", r, "ab", None, None, {})
                                    for r in range(1, runs + 1) for k, g in enumerate(golds)])


def test_low_class_support_is_flagged_below_ten_items_in_the_rarest_class():
    nine = _labelled({"positive": 12, "negative": 9, "neutral": 11})
    ten = _labelled({"positive": 12, "negative": 10, "neutral": 11})
    for metric in ("accuracy", "macro_f1", "balanced_accuracy"):
        assert nine[metric].min_class_n == 9 and ten[metric].min_class_n == 10
        assert "low class support: the rarest gold class has 9 items (fewer than 10)" in nine[metric].note
        assert "low class support" not in ten[metric].note
    one_run = _labelled({"positive": 12, "negative": 9, "neutral": 11}, runs=1)["macro_f1"]
    assert "low class support" in one_run.note and "stratified" not in one_run.note


def test_several_runs_of_a_classification_cell_bootstrap_stratified_by_gold_class():
    from evaluator.aggregate import BOOTSTRAP_SEED, N_BOOTSTRAP
    from evaluator.stats import percentile_interval, stratified_draws

    cs = _labelled({"positive": 12, "negative": 9, "neutral": 11}, runs=3)
    acc = cs["accuracy"]
    assert "95% CI: bootstrap over items stratified by gold class" in acc.note
    # ids i00..i31 sort as written; classes coded in sorted label order: negative 0, neutral 1, positive 2
    golds = ["positive"] * 12 + ["negative"] * 9 + ["neutral"] * 11
    code = {"negative": 0, "neutral": 1, "positive": 2}
    right = np.array([[1.0 if (g if (k + r) % 4 else "neutral") == g else 0.0 for k, g in enumerate(golds)]
                      for r in (1, 2, 3)])
    draws = stratified_draws(BOOTSTRAP_SEED, N_BOOTSTRAP, tuple(code[g] for g in golds))
    lo, hi = percentile_interval(right.mean(axis=0)[draws].mean(axis=1))
    assert math.isclose(acc.ci_low, 100 * lo) and math.isclose(acc.ci_high, 100 * hi)
    assert math.isclose(acc.value, 100 * right.mean())
