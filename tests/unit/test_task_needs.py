"""A task's needs are fields of its spec, never tests of its name: a renamed copy of a task is scored, baselined and
aligned exactly like the original, and no production module compares a task's name with a literal."""
from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import pytest

from evaluator.registry import get_task
from evaluator.scoring import score_prediction
from evaluator.spec import Item, Prediction
from services.demo import baseline_output

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("evaluator", "services", "store", "pages")
NAME_TEST = re.compile(r"""\b(task|task_name|task_id|spec)(\.name)?\s*(==|!=)\s*["']|"""
                       r"""\b(task|task_name|task_id)(\.name)?\.startswith\(|"""
                       r"""\b(task|task_name|task_id)(\.name)?\s+(not\s+)?in\s+\(["']""")


def _renamed(name: str):
    return dataclasses.replace(get_task(name), name=f"renamed-{name}", aliases=())


def _scores(task, gold, output):
    item = Item(task=task.name, lang="id", item_id="1", inputs={}, gold=gold)
    pred = Prediction(task=task.name, lang="id", item_id="1", prompt_lang="en", output=output)
    return score_prediction(task, item, pred).scores


@pytest.mark.parametrize("output, expected", [
    ("Yang dimaksud adalah Tina.", 1.0),  # gold_alternatives: "Tono or Tina" accepts Tina
    ("<think>Tono or Tina?</think>Tini", 0.0),  # contains_whole_output=False: the reasoning is not searched
])
def test_lindsea_coreference_needs_are_fields(output, expected):
    gold = "Tono or Tina (least preferred)"
    original, renamed = get_task("lindsea-coref-open"), _renamed("lindsea-coref-open")
    assert _scores(original, gold, output) == _scores(renamed, gold, output) == {"contains_match": expected}
    pacute_like = dataclasses.replace(renamed, gold_alternatives=False, contains_whole_output=True)
    assert _scores(pacute_like, gold, output) == {"contains_match": 0.0}  # "Tono or Tina (least...)" is one gold


def test_pacute_contains_match_reads_the_whole_response_under_any_name():
    output = "The answer could be kumain, I think."  # no <answer> block: the whole response is searched
    original, renamed = get_task("pacute-affixation-gen"), _renamed("pacute-affixation-gen")
    assert _scores(original, "kumain", output)["contains_match"] == 1.0
    assert _scores(renamed, "kumain", output) == _scores(original, "kumain", output)
    assert _scores(original, "the mushroom or the squirrel", "the squirrel")["contains_match"] == 0.0


@pytest.mark.parametrize("name, inputs, expected", [
    ("abssum", {"text": "First one. Second one."}, "First one."),
    ("translation-en-xx", {"text": "Good morning. Bye."}, "Good morning. Bye."),
    ("translation-xx-en", {"text": "Selamat pagi."}, "Selamat pagi."),
    ("qa", {"context": "Jakarta is big. It rains.", "question": "q"}, "Jakarta is big."),
])
def test_copy_baselines_follow_the_spec_not_the_name(name, inputs, expected):
    item = Item(task=name, lang="id", item_id="1", inputs=inputs, gold="x")
    for task in (get_task(name), _renamed(name)):
        assert baseline_output("majority", task, item, [item], random.Random(0)) == (expected, None)
    plain = dataclasses.replace(get_task(name), copy_baseline=None)
    assert baseline_output("majority", plain, item, [item], random.Random(0)) == (None, None)


def test_no_module_compares_a_task_name_with_a_literal():
    found = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if NAME_TEST.search(line):
                    found.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert found == []


@pytest.mark.parametrize("line", ['if task_name == "abssum":', 'if task.name.startswith("translation"):',
                                  'if spec.name == "order_consistency" else', 'if task in ("nli", "causal"):',
                                  'and not task.startswith("lindsea-")'])
def test_the_scan_catches_each_kind_of_name_test(line):
    assert NAME_TEST.search(line)


def test_a_campaigns_default_protocol_is_a_field_of_the_task():
    from evaluator.human import protocols
    from evaluator.registry import TASKS

    chosen = {name: protocols.protocol_for(name).name for name, t in TASKS.items() if t.human_protocol}
    assert chosen == {"translation-en-xx": "mt", "translation-xx-en": "mt", "translation-id-xx": "mt",
                      "translation-xx-id": "mt", "abssum": "summarisation"}
    with pytest.raises(ValueError, match="has no default protocol"):
        protocols.protocol_for("sentiment")
