"""The judge's prompt templates (`templates.yaml`, quoted from FastChat and SEA-HELM), each with a version: the
hash of its text, so a changed template never reuses an old judgement."""
from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Mapping

import yaml

TEMPLATES_FILE = Path(__file__).with_name("templates.yaml")

Kind = Literal["single", "pairwise"]
"""Single-answer grading (a 1-10 rating) or pairwise preference against a reference model's answer."""

LABELS = {"A_wins": "[[A]]", "B_wins": "[[B]]", "Tie": "[[C]]"}
"""The pairwise verdict labels (SEA-HELM's `judgement_labels`), filled into the pairwise system prompts."""


@dataclass(frozen=True)
class JudgeTemplate:
    """One judge prompt: which turn it grades, whether it shows a reference answer, its text and where it is from."""

    name: str
    kind: Kind
    turn: int
    """1: the first answer alone; 2: the whole two-turn conversation, graded on the second answer."""
    reference: bool
    """Shows the item's reference answers (categories with gold answers: math, reasoning)."""
    system: str
    user: str
    source: str

    @property
    def version(self) -> str:
        """The first 12 hex digits of the SHA-256 of the template's text."""
        text = json.dumps([self.kind, self.system, self.user], ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    @property
    def label(self) -> str:
        """"name@version", as stored with every judgement."""
        return f"{self.name}@{self.version}"

    def messages(self, fields: Mapping[str, Any]) -> list[dict]:
        """The judge's chat messages with `fields` filled in (question_1, answer_1, answer_a_1, ref_answer_1, ...)."""
        system = self.system.format(**LABELS) if self.kind == "pairwise" else self.system
        return [{"role": "system", "content": system}, {"role": "user", "content": self.user.format_map(fields)}]


@functools.cache
def templates() -> dict[str, JudgeTemplate]:
    """Every template by name."""
    rows = yaml.safe_load(TEMPLATES_FILE.read_text(encoding="utf-8"))["templates"]
    return {r["name"]: JudgeTemplate(**r) for r in rows}


def pick(kind: Kind, turn: int, reference: bool) -> JudgeTemplate:
    """The template of a kind for a turn (turns after the second use the second's), with or without a reference."""
    for t in templates().values():
        if t.kind == kind and t.turn == min(turn, 2) and t.reference == reference:
            return t
    raise KeyError(f"no {kind} judge template for turn {turn} (reference: {reference})")
