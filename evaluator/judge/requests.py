"""The judge requests for one model's conversation: per turn one single-answer grading, or two pairwise requests
against the reference model's answers, one per presentation order (SEA-HELM's pairwise formatter: the model as
assistant A, then as assistant B)."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from evaluator.judge.templates import JudgeTemplate, Kind, pick

ORDERS = {"single": ("single",), "pairwise": ("ab", "ba")}
"""The presentation orders of each kind: "ab" shows the model's answer as A, "ba" the reference model's."""


@dataclass(frozen=True)
class Conversation:
    """One model's answers to one conversation item, with what the judge may compare them with."""

    run_id: str
    item_id: str
    questions: tuple[str, ...]
    answers: tuple[str | None, ...]
    """The model's answer per turn (None: not answered)."""
    baseline: tuple[str, ...] | None = None
    """The reference model's answers per turn (pairwise)."""
    references: tuple[str, ...] | None = None
    """Gold reference answers per turn (math and reasoning items)."""


@dataclass(frozen=True)
class JudgeRequest:
    """One request to the judge: which turn, which order, which template, the messages."""

    turn: int
    order: str
    template: JudgeTemplate
    messages: tuple[Mapping[str, str], ...]

    def key(self, judge_model: str, sampling: Mapping[str, Any]) -> str:
        """The cache key: SHA-256 of the judge model, template version, sampling settings and the messages."""
        text = json.dumps({"judge": judge_model, "template": self.template.label, "sampling": dict(sampling),
                           "messages": list(self.messages)}, ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()


def _fields(conv: Conversation, turn: int, order: str) -> dict[str, str]:
    """The template fields for a turn: the questions and answers up to it (and reference answers)."""
    out: dict[str, str] = {}
    for i in range(turn):
        n = i + 1
        mine = conv.answers[i] or ""
        out[f"question_{n}"] = conv.questions[i]
        out[f"answer_{n}"] = mine
        if conv.baseline is not None and i < len(conv.baseline):
            theirs = conv.baseline[i]
            out[f"answer_a_{n}"], out[f"answer_b_{n}"] = (mine, theirs) if order == "ab" else (theirs, mine)
        if conv.references is not None and i < len(conv.references):
            out[f"ref_answer_{n}"] = conv.references[i]
    out["question"], out["answer"] = out["question_1"], out["answer_1"]
    return out


def requests_for(conv: Conversation, turn: int, kind: Kind) -> list[JudgeRequest]:
    """The requests that judge `turn` of a conversation; none when an answer up to it is missing, or, pairwise, the
    reference model has no answer to it."""
    if turn > len(conv.questions) or any(a is None for a in conv.answers[:turn]):
        return []
    if kind == "pairwise" and (conv.baseline is None or len(conv.baseline) < turn):
        return []
    with_ref = conv.references is not None and len(conv.references) >= turn
    template = pick(kind, turn, with_ref)
    return [JudgeRequest(turn, order, template, tuple(template.messages(_fields(conv, turn, order))))
            for order in ORDERS[kind]]


def turns_of(conv: Conversation) -> Sequence[int]:
    """The turn numbers of a conversation."""
    return range(1, len(conv.questions) + 1)
