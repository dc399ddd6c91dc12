"""Re-scoring pacute-bench's released per-item results with our extraction."""
import json

import pytest

from evaluator.methodology.pacute_compat import compare, compare_folder, summarize
from tests.helpers.samples import SAMPLES

DATA = SAMPLES
SAMPLE = DATA / "pacute" / "results-sample" / "gpt-4.1-nano" / "inference"


@pytest.mark.needs_samples
def test_rescoring_reproduces_pacute_bench_except_listed_differences():
    totals, diffs = compare_folder(SAMPLE)
    assert sum(t.n for t in totals) == 5940 and len(totals) == 8
    # per item, exact and contains match equal pacute-bench's answers under the paper's normalisation, except where
    # a reflection never closes: pacute-bench read its first line, Tanaw reads nothing (a format failure)
    left = [(d.task, d.item_id, d.metric, d.ours, d.reason) for d in diffs if d.ours != d.theirs_normalised]
    assert left == [("hierarchical-gen", "hierarchical_gen_00141", "contains_match", False, "unclosed_answer"),
                    ("langgame-gen", "langgame_gen_00148", "contains_match", False, "unclosed_answer")]
    by_task = {t.task: t for t in totals}
    assert by_task["hierarchical-gen"].ours == {"exact_match": 246, "contains_match": 328}
    assert by_task["hierarchical-gen"].theirs == {"exact_match": 223, "contains_match": 323}
    # against the released flags, only normalisation differences remain (every other flag of 2 x 5940 agrees)
    assert {d.reason for d in diffs} == {"normalisation", "unclosed_answer"}
    by = {(r["task"], r["metric"], r["direction"]): r["items"] for r in summarize(diffs)}
    assert by == {
        ("hierarchical-gen", "exact_match", "ours 1 / theirs 0"): 23,
        ("hierarchical-gen", "contains_match", "ours 1 / theirs 0"): 6,
        ("pacute-affixation-gen", "exact_match", "ours 1 / theirs 0"): 6,
        # syllabification_gen_00133: gold "hulí" composed, the answer's í decomposed (i + U+0301)
        ("pacute-syllabification-gen", "exact_match", "ours 1 / theirs 0"): 1,
        ("pacute-syllabification-gen", "contains_match", "ours 1 / theirs 0"): 1,
        ("hierarchical-gen", "contains_match", "ours 0 / theirs 1"): 1,
        ("langgame-gen", "contains_match", "ours 0 / theirs 1"): 1,
    }


@pytest.mark.needs_samples
def test_reflection_and_answer_blocks_in_real_rows():
    rows = [json.loads(x) for x in (SAMPLE / "pacute-affixation-gen.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all("<answer>" in r["response"] for r in rows[:20])
    n, diffs = compare("pacute-affixation-gen", rows[:20])
    assert n == 20 and all(d.reason == "normalisation" for d in diffs)


def test_hand_made_rows():
    rows = [
        {"id": "a", "response": "<reflection>r</reflection>\n<answer>um</answer>", "ground_truth": "-um-",
         "answer": "um", "exact_match": False, "contains_match": False},
        {"id": "b", "response": "<reflection>long and cut off", "ground_truth": "x", "answer": "<reflection>long",
         "exact_match": False, "contains_match": False},
        {"id": "c", "response": "<answer>kumain</answer>", "ground_truth": "kumain", "answer": "kumain",
         "exact_match": True, "contains_match": True},
    ]
    n, diffs = compare("pacute-affixation-gen", rows)
    assert n == 3 and [(d.item_id, d.metric, d.reason) for d in diffs] == [
        ("a", "exact_match", "normalisation"), ("a", "contains_match", "normalisation")]


def test_contains_match_reads_only_the_answer():
    rows = [
        # truncated reflection: the gold appears mid-chain, but the model never answered (format failure)
        {"id": "d", "response": "<reflection>insert n at the end\nso the word becomes tipann, but", "ground_truth":
         "tipann", "answer": "<reflection>insert n at the end\nso the word becomes tipann", "exact_match": False,
         "contains_match": True},
        # a closed answer block: only the answer is searched, even though the reflection names the gold
        {"id": "e", "response": "<reflection>maybe tipann</reflection>\n<answer>tipan</answer>",
         "ground_truth": "tipann", "answer": "tipan", "exact_match": False, "contains_match": False},
        # no answer block: the text after the closed reflection is searched, not the reflection
        {"id": "f", "response": "<reflection>maybe tipann</reflection>\nthe answer is tipan", "ground_truth":
         "tipann", "answer": "the answer is tipan", "exact_match": False, "contains_match": False},
    ]
    n, diffs = compare("hierarchical-gen", rows)
    assert n == 3 and [(d.item_id, d.metric, d.ours, d.theirs, d.reason) for d in diffs] == [
        ("d", "contains_match", False, True, "unclosed_answer")]
