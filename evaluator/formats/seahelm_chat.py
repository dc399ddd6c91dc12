"""SEA-HELM's mt-bench files: the inference file (every conversation with the model's answer to each turn) and
the judge batch response files (the judge's replies), read as SEA-HELM writes them at 6844e6c.

- `inferences/{lang}/mt-bench/{model}_mt-bench_{lang}.jsonl` (`src/dataloaders/base_dataloader.py`,
  `get_inference_filepath`, `write_out_dataframe`): the dataset row (`question_id`, `prompts: [{"text": ...}]` per
  turn, `baselines: {model: [answer per turn]}`, `references`, `metadata.category`) plus `responses` (one per turn)
  and, once scored, `individual_scores: {"weighted_win_rate": [per turn]}` (`src/metrics/llm_judges/
  pairwise_llm_judge_metric.py`: 1 win, 0.5 tie, 0 loss against the baseline model).
- `{model}_mt-bench_{lang}_turn1_judge_batch_response.jsonl` (`src/dataloaders/judges/judge_dataloader.py`):
  `custom_ids` "{question_id}_turn{n}_{baseline-before|baseline-after}" and `responses`, the judge's reply
  ("[[A]]", "[[B]]", "[[C]]"; baseline-after shows the model as assistant A).

Both are self-reported: the per-turn score is SEA-HELM's (or read from its judge's replies with SEA-HELM's rule),
stored as a judge score with the judge named, never as a metric score. Every problem names file, line and field.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from evaluator.chat_items import TurnsError, conversation_inputs
from evaluator.formats import limits as L
from evaluator.formats.base import FormatError
from evaluator.judge import verdicts
from evaluator.spec import Item

SEAHELM_JUDGE = "gpt-4.1-2025-04-14"
"""The judge SEA-HELM's mt-bench config names at 6844e6c (`judge.judge_model_name`), when no other is given."""
SELF_REPORTED_TEMPLATE = "seahelm:mt-bench-pairwise"
"""The template name self-reported judge scores are stored under (SEA-HELM's pairwise prompts)."""
_CUSTOM_ID = re.compile(r"^(?P<qid>.+)_turn(?P<turn>\d+)_(?P<order>baseline-before|baseline-after)$")
ORDERS = {"baseline-after": "ab", "baseline-before": "ba"}
"""SEA-HELM's presentation orders as ours: baseline-after shows the model's answer as assistant A."""


class ChatFileError(ValueError):
    """Problems in a file; `errors` each name file, line and field. Nothing of the file is imported."""

    def __init__(self, errors: list[FormatError]):
        super().__init__("; ".join(str(e) for e in errors[:5]) + (f" (and {len(errors) - 5} more)"
                                                                   if len(errors) > 5 else ""))
        self.errors = errors


@dataclass(frozen=True)
class ChatRow:
    """One conversation of an inference file: the item, the model's answer per turn, SEA-HELM's score per turn."""

    item: Item
    answers: tuple[str | None, ...]
    scores: tuple[float | None, ...]
    line: int


def _row(obj: dict, task: str, lang: str, line: int) -> ChatRow:
    if not isinstance(obj, dict):
        raise L.RowError(None, "expected a JSON object")
    qid = L.ident(obj, "question_id")
    try:
        inputs = conversation_inputs(obj)
    except TurnsError as e:
        raise L.RowError(e.field, e.problem) from None
    turns = inputs["turns"]
    responses = L.lst(obj, "responses", required=True)
    answers = []
    for i in range(len(turns)):
        r = responses[i] if i < len(responses) else None
        r = r[0] if isinstance(r, list) and r else r  # several samples per turn: the first
        if r is not None and not isinstance(r, str):
            raise L.RowError(f"responses[{i}]", "expected a string")
        answers.append(r)
    meta = L.obj(obj, "metadata")
    scores: list[float | None] = [None] * len(turns)
    individual = obj.get("individual_scores")
    if isinstance(individual, dict) and "weighted_win_rate" in individual:
        per_turn = individual["weighted_win_rate"]
        if not isinstance(per_turn, list):
            raise L.RowError("individual_scores.weighted_win_rate", "expected a list (one score per turn)")
        for i, v in enumerate(per_turn[:len(turns)]):
            scores[i] = L.number(v, f"individual_scores.weighted_win_rate[{i}]")
    item = Item(task=task, lang=lang, item_id=qid,
                inputs=inputs,
                gold=None, metadata={"category": meta.get("category") if isinstance(meta.get("category"), str)
                                     else None})
    return ChatRow(item, tuple(answers), tuple(scores), line)


def parse_inference(data: bytes, file: str, task: str, lang: str, limits: L.Limits = L.DEFAULT_LIMITS
                    ) -> list[ChatRow]:
    """Every conversation of a SEA-HELM mt-bench inference file; ChatFileError listing every bad line."""
    rows, errors = [], []
    for line, obj, err in L.json_lines(data, file, limits):
        if err is not None:
            errors.append(err)
            continue
        try:
            rows.append(_row(obj, task, lang, line))
        except L.RowError as e:
            errors.append(FormatError(file, line, e.field, e.problem))
    if errors:
        raise ChatFileError(errors)
    if not rows:
        raise ChatFileError([FormatError(file, None, None, "no conversation in the file")])
    return rows


def parse_judge_batch(data: bytes, file: str, limits: L.Limits = L.DEFAULT_LIMITS
                      ) -> dict[tuple[str, int], dict[str, str]]:
    """(question_id, turn) -> {order ("ab"/"ba"): the judge's reply} of a judge batch response file."""
    out: dict[tuple[str, int], dict[str, str]] = {}
    errors = []
    for line, obj, err in L.json_lines(data, file, limits):
        if err is not None:
            errors.append(err)
            continue
        try:
            cid = L.text(obj, "custom_ids")
            m = _CUSTOM_ID.match(cid or "")
            if m is None:
                raise L.RowError("custom_ids", "expected {question_id}_turn{n}_baseline-before|baseline-after")
            reply = obj.get("responses")
            reply = reply[0] if isinstance(reply, list) and reply else reply
            if not isinstance(reply, str):
                raise L.RowError("responses", "expected the judge's reply as a string")
            out.setdefault((m["qid"], int(m["turn"])), {})[ORDERS[m["order"]]] = reply
        except L.RowError as e:
            errors.append(FormatError(file, line, e.field, e.problem))
    if errors:
        raise ChatFileError(errors)
    return out


def turn_verdict(replies: dict[str, str] | None) -> tuple[float | None, str]:
    """A turn's score and verdict from its judge replies in both orders (a tie when they disagree)."""
    if not replies or set(replies) != {"ab", "ba"}:
        return None, "self-reported"
    each = [verdicts.outcome(verdicts.preference(replies[o]), o) for o in ("ab", "ba")]
    both = verdicts.combined(*each)
    return (None if both is None else verdicts.OUTCOME_SCORE[both],
            ",".join(e or "unreadable" for e in each) + f" -> {both or 'unreadable'}")
