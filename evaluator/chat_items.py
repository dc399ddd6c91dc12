"""A conversation item's inputs, as the dataset loader and the SEA-HELM import both read them (no runner imports:
`evaluator.datasets` loads this)."""
from __future__ import annotations

from typing import Any, Mapping

TURNS_FIELD = "turns"
"""Item input holding the user's messages of a conversation, in order."""


class TurnsError(ValueError):
    """A conversation field that is not what `conversation_inputs` needs (its callers name file and line)."""

    def __init__(self, field: str, problem: str):
        super().__init__(f"{field}: {problem}")
        self.field, self.problem = field, problem


def _texts(values: Any, field: str) -> list[str]:
    """A non-empty list of strings (a turn may be given as {"text": ...}); TurnsError naming the field otherwise."""
    if not isinstance(values, list) or not values:
        raise TurnsError(field, "a non-empty list is required")
    out = []
    for i, v in enumerate(values):
        v = v.get("text") if isinstance(v, dict) else v
        if not isinstance(v, str):
            raise TurnsError(f"{field}[{i}]", "text is required")
        out.append(v)
    return out


def conversation_inputs(row: Mapping[str, Any]) -> dict:
    """A conversation item's inputs from a SEA-MT-Bench row (dataset or SEA-HELM inference file): `turns` from
    `prompts`, the first `baselines` model's answers as `baseline` (the reference model of pairwise judging) and
    `references` (gold answers per turn, or None)."""
    baselines = row.get("baselines") or {}
    if not isinstance(baselines, dict):
        raise TurnsError("baselines", "an object (model -> answers) is required")
    reference_model = next(iter(baselines), None)
    refs = row.get("references")
    return {"turns": _texts(row.get("prompts"), "prompts"),
            "baseline": _texts(baselines[reference_model], f"baselines.{reference_model}") if reference_model
            else None,
            "baseline_model": reference_model,
            "references": _texts(refs, "references") if refs else None}
