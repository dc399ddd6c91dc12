"""String-match metrics for generative answers: PACUTE exact and contains match, LINDSEA open coreference.

Normalisation (PACUTE paper §5): case, surrounding whitespace, and leading/trailing hyphens of affix strings
(`-um-` ≡ `um`); text is NFC-normalised first so composed and decomposed diacritics (`í` vs `i` + U+0301) agree.
pacute-bench's released result files did not strip hyphens; `evaluator.methodology.pacute_compat` counts where that
changes a score.

PACUTE contains-match reads only the answer, as the paper's evaluator "extracts only the answer before scoring":
the closed `<answer>` block's answer; without one, the text after the last closed reasoning block; nothing when a
reasoning block never closes (a format failure). A reflection that lists candidates is never searched.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Any

from evaluator.answer_text import after_reasoning
from evaluator.metrics.base import MetricSpec, register


def normalize(s: Any) -> str:
    """NFC, lower-case, trim whitespace, then trim leading/trailing hyphens (and whitespace they exposed)."""
    return unicodedata.normalize("NFC", str(s)).strip().lower().strip("-").strip()


def _plain(s: Any) -> str:
    return unicodedata.normalize("NFC", str(s)).strip().lower()


def _golds(gold: Any) -> list[str]:
    return [normalize(g) for g in (gold if isinstance(gold, (list, tuple)) else (gold,)) if g is not None]


def exact_match_item(answer: str | None, gold: Any, *, lang: str = "", item: Any = None) -> float:
    """1.0 when the normalised answer equals a normalised gold."""
    if answer is None:
        return 0.0
    a = normalize(answer)
    return float(any(a == g for g in _golds(gold)))


_GLOSS = re.compile(r"\s*\([^()]*\)\s*$")


def referent_alternatives(gold: str) -> list[str]:
    """LINDSEA open-coreference gold → acceptable referents: "Tono or Tina (least preferred)" → ["Tono", "Tina"];
    a trailing parenthesis (preference note or English gloss) is dropped."""
    text = _GLOSS.sub("", gold).strip()
    return [part.strip() for part in re.split(r"\s+or\s+", text) if part.strip()] or [gold]


_ANSWER_BLOCK = re.compile(r"<answer>.*?</answer>", re.IGNORECASE | re.DOTALL)


def has_answer_block(output: str | None) -> bool:
    """The output holds a closed `<answer>…</answer>` block (case-insensitive)."""
    return bool(output) and _ANSWER_BLOCK.search(unicodedata.normalize("NFC", output)) is not None


def contains_region(answer: str | None, output: str | None, whole_output: bool = True) -> str | None:
    """The text contains-match searches: for a response without a closed answer block when the task allows it
    (`TaskSpec.contains_whole_output`, PACUTE), the text after the last closed reasoning block (None when one
    never closes); otherwise the extracted answer."""
    if output is not None and whole_output and not has_answer_block(output):
        return after_reasoning(output)
    return answer


def contains_match_item(answer: str | None, gold: Any, *, lang: str = "", item: Any = None,
                        output: str | None = None, task: Any = None) -> float:
    """1.0 when the answer matches exactly (hyphen-normalised) or the searched text contains a gold (case, NFC).

    The searched text is `contains_region`: without a closed `<answer>` block (PACUTE) the text after the last
    closed reasoning block, nothing when reasoning never closes; else the extracted answer. Hyphens are not trimmed for containment: a trimmed suffix `-ak` would otherwise be
    "found" in `yak`. A task with `gold_alternatives` (LINDSEA: "Tono or Tina (least preferred)") accepts any of
    them. Without `task` (pacute-bench re-scoring) the PACUTE rules apply.
    """
    if isinstance(gold, str) and getattr(task, "gold_alternatives", False):
        gold = referent_alternatives(gold)
    if answer is not None and exact_match_item(answer, gold):
        return 1.0
    region = contains_region(answer, output, getattr(task, "contains_whole_output", True))
    if region is None:
        return 0.0
    a = _plain(region)
    golds = gold if isinstance(gold, (list, tuple)) else (gold,)
    return float(any(g is not None and _plain(g) and _plain(g) in a for g in golds))


EXACT_MATCH = register(MetricSpec(
    name="exact_match", display="Exact match", item=exact_match_item, binary=True,
    description="Answer equals the gold after lower-casing and trimming whitespace and affix hyphens.",
    reference="PACUTE paper §5; pacute-bench exact_match"))
CONTAINS_MATCH = register(MetricSpec(
    name="contains_match", display="Contains match", item=contains_match_item, binary=True, reads_output=True,
    reads_task=True,
    description="Exact match, or the gold (lower-cased, trimmed, NFC) occurs inside the lower-cased answer; when a "
                "PACUTE response has no closed <answer> block, inside the text after the last closed reasoning "
                "block, and nowhere when reasoning never closes (the paper's evaluator \"extracts only the answer "
                "before scoring\"). Affix hyphens are kept for containment so `-ak` is not found in "
                "`yak`. LINDSEA open coreference: a gold such as \"Tono or Tina (least preferred)\" accepts either "
                "referent, searched in the extracted answer only.",
    reference="PACUTE paper §5, §7; pacute-bench contains_match (src/pacute_bench/evaluators/base.py @ dcab16b)"))
