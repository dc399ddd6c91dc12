"""PACUTE import rules on rows built the way pacute-bench's writer builds them.

Rows follow `src/pacute_bench/evaluators/vllm.py` (`_async_mcq`: `options` = [ground truth, *distractors],
`predicted_idx` = `torch.argmax`, `is_correct` = `predicted_idx == 0`, one summed log-probability per option;
`_async_gen`: `response`, `thinking_trace`, `reflection`, `answer` from `BaseEvaluator._extract_answer` and the
three match flags) and `save_inference_results` in `src/pacute_bench/evaluators/base.py` (one JSON line per row,
sorted by id), both at pacute-bench commit dcab16b617019bf63d56950b9e6858b9f1dfd7f2.
"""
from __future__ import annotations

import json

import pytest

from evaluator.formats.mapping import ItemIndex
from evaluator.formats.read import read_upload
from evaluator.registry import get_task
from evaluator.scoring import score_prediction
from evaluator.spec import Item


def _mcq_row(item_id: str, question: str, gold: str, distractors: list[str], logprobs: list[float]) -> dict:
    options = [gold, *distractors]
    best = max(range(len(logprobs)), key=lambda i: (logprobs[i], -i))  # torch.argmax: the first of equal maxima
    return {"id": item_id, "category": "spelling", "question": question, "ground_truth": gold, "options": options,
            "predicted_idx": best, "predicted_answer": options[best], "is_correct": best == 0,
            "logprobs": logprobs}


def _gen_row(item_id: str, question: str, gold: str, response: str) -> dict:
    answer = response.split("<answer>")[-1].split("</answer>")[0].strip().splitlines()[0]
    return {"id": item_id, "category": "insertion", "question": question, "ground_truth": gold,
            "response": response, "thinking_trace": None, "reflection": None, "answer": answer,
            "exact_match": answer == gold, "contains_match": gold in answer, "prefix_match": answer.startswith(gold)}


def _file(rows: list[dict]) -> bytes:
    rows = sorted(rows, key=lambda r: r.get("id", ""))  # save_inference_results: a stable sort by id
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


def _index(task: str, items: list[Item]) -> ItemIndex:
    return ItemIndex(loader=lambda t, lang, data_dir=None: [it for it in items if t == task])


def _mcq_item(item_id: str, options: tuple[str, ...], gold: str) -> Item:
    return Item(task="pacute-composition-mcq", lang="tl", item_id=item_id,
                inputs={"text_en": f"question {item_id}", "text_tl": f"tanong {item_id}"}, gold=gold, options=options)


def _score(item: Item, pred) -> dict:
    return score_prediction(get_task(item.task), item, pred).scores


def test_case_distinct_options_keep_their_own_logprobs():
    # our item lists the options in another order than the file (gold first), so alignment is by text
    item = _mcq_item("composition_mcq_00001", ("rizál", "Rizal", "Rizál", "RIZÁL"), "Rizál")
    row = _mcq_row("composition_mcq_00001", "question composition_mcq_00001", "Rizál", ["rizál", "Rizal", "RIZÁL"],
                   [-1.0, -2.0, -3.0, -4.0])
    up = read_upload(_file([row]), "pacute-composition-mcq.jsonl", fmt="pacute-bench",
                     index=_index("pacute-composition-mcq", [item]))
    assert up.ok, up.errors
    (pred,) = up.predictions
    # each text keeps its own number: "rizál" -2.0, "Rizal" -3.0, "Rizál" -1.0, "RIZÁL" -4.0
    assert pred.option_logprobs == (-2.0, -3.0, -1.0, -4.0)
    assert _score(item, pred)["mcq_acc"] == 1.0  # argmax of pacute-bench's log-probabilities is its gold
    # a decomposed spelling of the same option is the same option (NFC)
    nfd = dict(row, options=["Riza\u0301l", "riza\u0301l", "Rizal", "RIZA\u0301L"])
    up = read_upload(_file([nfd]), "pacute-composition-mcq.jsonl", fmt="pacute-bench",
                     index=_index("pacute-composition-mcq", [item]))
    assert up.ok and up.predictions[0].option_logprobs == (-2.0, -3.0, -1.0, -4.0)


def test_xcopa_keeps_its_first_character_rule():
    from evaluator.formats.align import permutation

    assert permutation(("barang itu rapuh.", "Barang itu kecil."), ("Barang itu kecil.", "Barang itu rapuh.")) \
        == (1, 0)
    assert isinstance(permutation(("bILANG", "BILANG"), ("BILANG", "Bilang"), exact=True), str)


@pytest.mark.parametrize("order", [(0, 1, 2, 3), (1, 0, 3, 2), (3, 2, 1, 0), (2, 3, 0, 1)])
def test_a_tie_scores_one_over_k_in_any_option_order(order):
    gold, distractors = "k u m a i n", ["k u m a i", "ku ma in", "n i a m u k"]
    logprobs = [-7.5, -7.5, -7.5, -9.0]  # a 3-way exact tie with the gold: pacute-bench's index 0 wins it
    ours = tuple([gold, *distractors][i] for i in order)
    item = _mcq_item("composition_mcq_00002", ours, gold)
    row = _mcq_row("composition_mcq_00002", "question composition_mcq_00002", gold, distractors, logprobs)
    assert row["is_correct"] is True
    up = read_upload(_file([row]), "pacute-composition-mcq.jsonl", fmt="pacute-bench",
                     index=_index("pacute-composition-mcq", [item]))
    assert up.ok, up.errors
    scores = _score(item, up.predictions[0])
    assert scores["mcq_acc"] == pytest.approx(1 / 3)
    assert scores["mcq_norm_acc"] == pytest.approx((4 / 3 - 1) / 3)


def _gen_item(item_id: str, gold: str) -> Item:
    return Item(task="pacute-manipulation-gen", lang="tl", item_id=item_id,
                inputs={"text_en": f"Put z in {item_id}", "text_tl": f"Ilagay z sa {item_id}"}, gold=gold)


def test_an_unclosed_reflection_scores_zero_and_is_a_format_failure():
    item = _gen_item("manipulation_gen_00003", "salungzat")
    # pacute-bench's _extract_answer finds no answer tag and takes the first line, the reflection itself
    response = "<reflection>insert z after g: salungzat. but wait, the word"
    row = _gen_row(item.item_id, item.inputs["text_en"], "salungzat", response)
    row.update(answer=response, contains_match=True)
    up = read_upload(_file([row]), "pacute-manipulation-gen.jsonl", fmt="pacute-bench",
                     index=_index(item.task, [item]))
    assert up.ok, up.errors
    res = score_prediction(get_task(item.task), item, up.predictions[0])
    assert (res.parsed, res.scores) == (False, {"exact_match": 0.0, "contains_match": 0.0})
    assert up.predictions[0].self_reported["contains_match"] == 1.0  # pacute-bench's flag stays self-reported


def test_a_retried_id_imports_with_a_warning_listing_the_lines():
    items = [_gen_item(f"manipulation_gen_{i:05d}", "salungzat") for i in range(3)]
    rows = [_gen_row(it.item_id, it.inputs["text_en"], "salungzat", "<answer>salungzat</answer>") for it in items]
    retry = _gen_row(items[1].item_id, items[1].inputs["text_en"], "salungzat", "<answer>salungat</answer>")
    up = read_upload(_file([*rows, retry]), "pacute-manipulation-gen.jsonl", fmt="pacute-bench",
                     index=_index(items[0].task, items))
    assert up.ok and not up.errors
    assert len(up.predictions) == 3
    kept = next(p for p in up.predictions if p.item_id == items[1].item_id)
    assert kept.output == "<answer>salungzat</answer>"  # the first of the equal ids, as the stable sort wrote it
    (warning,) = [w for w in up.warnings if w.field == "id"]
    assert warning.line == 3 and "line 2 is kept, line 3 is not imported" in warning.problem


def test_other_formats_still_refuse_a_repeated_id_with_different_outputs():
    from evaluator.formats.mapping import FIRST_LINE_KEPT

    assert FIRST_LINE_KEPT == {"pacute-bench"}


def test_hierarchical_summary_lands_in_the_rows_native_cell():
    from evaluator.formats.pacute_bench import parse_summary

    doc = {"hf_model_name": "m", "benchmarks": {
        "hierarchical-gen": {"num_samples": 600, "exact_match": 0.5, "contains_match": 0.6, "prefix_match": 0.5},
        "pacute-affixation-gen": {"num_samples": 140, "exact_match": 0.5, "contains_match": 0.6,
                                  "prefix_match": 0.5}}}
    parsed = parse_summary(json.dumps(doc).encode(), "evaluation_results_1.json")
    cells = {(s.task, s.prompt_lang) for s in parsed.summary}
    assert cells == {("pacute-hierarchical-gen", "native"), ("pacute-affixation-gen", "en")}
