"""Classification and choice metrics against hand computations (scikit-learn definitions)."""
import math
import unicodedata

from evaluator.metrics import METRICS
from evaluator.metrics.choice import mcq_norm_acc_item, order_consistency, phenomenon_macro
from evaluator.metrics.classification import balanced_accuracy, macro_f1
from evaluator.metrics.match import contains_match_item, exact_match_item
from evaluator.registry import get_task
from evaluator.spec import Item


def rows(answers, golds):
    return [(a, g, {}) for a, g in zip(answers, golds)]


def test_macro_f1_hand_computed():
    # gold:  p p p n n u ; pred: p p n n None u
    # positive: tp2 pred2 gold3 -> 4/5 ; negative: tp1 pred2 gold2 -> 2/4 ; neutral: tp1 pred1 gold1 -> 1
    r = rows(["positive", "positive", "negative", "negative", None, "neutral"],
             ["positive", "positive", "positive", "negative", "negative", "neutral"])
    assert math.isclose(macro_f1(r), (0.8 + 0.5 + 1.0) / 3)
    # balanced accuracy: recalls 2/3, 1/2, 1/1
    assert math.isclose(balanced_accuracy(r), (2 / 3 + 1 / 2 + 1) / 3)


def test_macro_f1_includes_predicted_labels_missing_from_gold():
    # sklearn f1_score(['a','a'], ['a','b'], average='macro') == (2/3 + 0)/2
    assert math.isclose(macro_f1(rows(["a", "b"], ["a", "a"])), (2 / 3) / 2)


def test_accuracy_is_case_insensitive_and_multi_gold():
    acc = METRICS["accuracy"].item
    assert acc("Positive", "positive") == 1.0 and acc(None, "positive") == 0.0
    assert acc("b", ["a", "B"]) == 1.0


def test_mcq_normalized_accuracy_per_item_k():
    item4 = Item(task="t", lang="tl", item_id="1", inputs={}, gold="x", options=("x", "y", "z", "w"))
    item2 = Item(task="t", lang="tl", item_id="2", inputs={}, gold="x", options=("x", "y"))
    assert mcq_norm_acc_item("x", "x", item=item4) == 1.0
    assert math.isclose(mcq_norm_acc_item("y", "x", item=item4), -1 / 3)
    assert mcq_norm_acc_item("y", "x", item=item2) == -1.0
    # 2 of 4 right with k=4: acc 0.5 -> (0.5*4-1)/3 = 1/3, equal to the mean of the per-item values
    vals = [mcq_norm_acc_item(a, "x", item=item4) for a in ("x", "x", "y", "z")]
    assert math.isclose(sum(vals) / 4, 1 / 3)


def test_order_consistency_flips_ba_letters():
    r = [("A", "A", {"item_id": 1, "order": "ab"}), ("B", "B", {"item_id": 1, "order": "ba"}),   # same option
         ("A", "A", {"item_id": 2, "order": "ab"}), ("A", "B", {"item_id": 2, "order": "ba"}),   # position bias
         (None, "B", {"item_id": 3, "order": "ab"}), ("A", "A", {"item_id": 3, "order": "ba"}),  # unparsed
         ("B", "A", {"item_id": 4, "order": "ab"})]                                              # one order only
    assert math.isclose(order_consistency(r), 1 / 3)
    assert math.isnan(order_consistency(r[-1:]))


def test_phenomenon_macro():
    r = [("A", "A", {"metadata": {"phenomenon": "morphology"}}), ("B", "A", {"metadata": {"phenomenon": "morphology"}}),
         ("A", "A", {"metadata": {"phenomenon": "npi"}})]
    assert math.isclose(phenomenon_macro(r), (0.5 + 1.0) / 2)


def test_pacute_normalisation():
    assert exact_match_item(" Uminom ", "uminom") == 1.0
    assert exact_match_item("um", "-um-") == 1.0 and exact_match_item("mang", "mang-") == 1.0
    assert exact_match_item("mag-aral", "mag-aral") == 1.0 and exact_match_item("magaral", "mag-aral") == 0.0
    assert contains_match_item("ang sagot ay uminom", "uminom") == 1.0
    assert contains_match_item(None, "uminom") == 0.0 and exact_match_item("", "x") == 0.0
    assert contains_match_item("yak", "-ak") == 0.0  # hyphens are kept for containment
    decomposed = unicodedata.normalize("NFD", "hulí")
    assert decomposed != "hulí" and exact_match_item(decomposed, "hulí") == 1.0


def test_lindsea_referent_alternatives():
    from evaluator.metrics.match import referent_alternatives
    assert referent_alternatives("Tini or Tono or Tina (least preferred)") == ["Tini", "Tono", "Tina"]
    assert referent_alternatives("Tono membaca buku Tina (Tono read Tina's book)") == ["Tono membaca buku Tina"]
    coref = Item(task="lindsea-coref-open", lang="id", item_id="1", inputs={}, gold="Tono or Tina (least preferred)")
    lindsea = get_task("lindsea-coref-open")  # gold_alternatives: a field of the task's spec, not its name
    assert contains_match_item("Yang dimaksud adalah Tina.", coref.gold, item=coref, task=lindsea) == 1.0
    assert contains_match_item("Tini", coref.gold, item=coref, task=lindsea) == 0.0
    cute = Item(task="pacute-cute-gen", lang="tl", item_id="2", inputs={}, gold="the mushroom or the squirrel")
    assert contains_match_item("the squirrel", cute.gold, item=cute,
                               task=get_task("pacute-cute-gen")) == 0.0  # no splitting outside LINDSEA
