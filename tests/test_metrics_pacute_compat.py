"""Re-scoring pacute-bench's released per-item results with our extraction (issue 7 'done means')."""
import json

import pytest

from evaluator.metrics.pacute_compat import compare, compare_folder, summarize
from tests.samples import SAMPLES

DATA = SAMPLES
SAMPLE = DATA / "pacute" / "results-sample" / "gpt-4.1-nano" / "inference"


@pytest.mark.needs_samples
def test_rescoring_reproduces_pacute_bench_except_listed_differences():
    sizes, diffs = compare_folder(SAMPLE)
    assert sum(sizes.values()) == 5940 and len(sizes) == 8
    # every other item's exact_match and contains_match equal the file's flags (2 x 5940 flags compared)
    assert {d.reason for d in diffs} == {"hyphen", "unclosed_reflection", "unicode"}
    by = {(r["task"], r["metric"], r["direction"]): r["items"] for r in summarize(diffs)}
    assert by == {
        ("hierarchical-gen", "exact_match", "ours 1 / theirs 0"): 23,
        ("hierarchical-gen", "contains_match", "ours 1 / theirs 0"): 6,
        ("hierarchical-gen", "contains_match", "ours 0 / theirs 1"): 1,
        ("langgame-gen", "contains_match", "ours 0 / theirs 1"): 1,
        ("pacute-affixation-gen", "exact_match", "ours 1 / theirs 0"): 6,
        # syllabification_gen_00133: gold "hulí" composed, the answer's í decomposed (i + U+0301)
        ("pacute-syllabification-gen", "exact_match", "ours 1 / theirs 0"): 1,
        ("pacute-syllabification-gen", "contains_match", "ours 1 / theirs 0"): 1,
    }


@pytest.mark.needs_samples
def test_reflection_and_answer_blocks_in_real_rows():
    rows = [json.loads(x) for x in (SAMPLE / "pacute-affixation-gen.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all("<answer>" in r["response"] for r in rows[:20])
    n, diffs = compare("pacute-affixation-gen", rows[:20])
    assert n == 20 and all(d.reason == "hyphen" for d in diffs)


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
        ("a", "exact_match", "hyphen"), ("a", "contains_match", "hyphen")]
