"""What a judge's reply says: a 1-10 rating (single-answer grading) or a preference (pairwise), and the pairwise
outcome of both presentation orders."""
from __future__ import annotations

import re
from typing import Literal

from evaluator.judge.templates import LABELS

RATING = re.compile(r"\[\[(\d+\.?\d*)\]\]")
RATING_BACKUP = re.compile(r"\[(\d+\.?\d*)\]")
"""FastChat's `one_score_pattern` and its backup: "Rating: [[7]]", else "[7]"."""

Outcome = Literal["win", "loss", "tie"]
OUTCOME_SCORE = {"win": 1.0, "tie": 0.5, "loss": 0.0}
"""A pairwise outcome as a score against the reference answer (SEA-HELM's `get_score`)."""


def rating(reply: str | None) -> float | None:
    """The 1-10 rating of a single-answer grading reply (the first one given); None when there is none in 1-10."""
    if not reply:
        return None
    m = RATING.search(reply) or RATING_BACKUP.search(reply)
    if m is None:
        return None
    value = float(m.group(1))
    return value if 1.0 <= value <= 10.0 else None


def preference(reply: str | None) -> Literal["A", "B", "tie"] | None:
    """Which assistant a pairwise reply prefers: exactly one of [[A]], [[B]], [[C]] (tie) must appear, else None
    (SEA-HELM's `parse_judgement`)."""
    if not reply:
        return None
    found = [name for name, label in (("A", LABELS["A_wins"]), ("B", LABELS["B_wins"]), ("tie", LABELS["Tie"]))
             if label in reply]
    return found[0] if len(found) == 1 else None  # type: ignore[return-value]


def outcome(pref: str | None, order: str) -> Outcome | None:
    """The evaluated model's outcome from one order: "ab" shows it as assistant A, "ba" as assistant B."""
    if pref is None:
        return None
    if pref == "tie":
        return "tie"
    model_is = "A" if order == "ab" else "B"
    return "win" if pref == model_is else "loss"


def combined(first: Outcome | None, second: Outcome | None) -> Outcome | None:
    """The outcome of both orders: a tie when they disagree or the first is a tie, else what both say (SEA-HELM's
    `get_final_judgement`); None when either reply had no readable verdict."""
    if first is None or second is None:
        return None
    return "tie" if first == "tie" or first != second else first
