"""String-match metrics for generative answers: PACUTE exact and contains match, LINDSEA open coreference.

Normalisation (PACUTE paper §5): case, surrounding whitespace, and leading/trailing hyphens of affix strings
(`-um-` ≡ `um`); text is NFC-normalised first so composed and decomposed diacritics (`í` vs `i` + U+0301) agree. pacute-bench's released result files did not strip hyphens; `evaluator.pacute_compat`
counts where that changes a score.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Any

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


def contains_match_item(answer: str | None, gold: Any, *, lang: str = "", item: Any = None) -> float:
    """1.0 when the answer matches exactly (hyphen-normalised) or contains a gold (case and whitespace only).

    Hyphens are not trimmed for containment: a trimmed suffix `-ak` would otherwise be "found" in `yak`.
    LINDSEA golds listing alternatives ("Tono or Tina (least preferred)") accept any of them.
    """
    if answer is None:
        return 0.0
    if isinstance(gold, str) and str(getattr(item, "task", "")).startswith("lindsea-"):
        gold = referent_alternatives(gold)
    if exact_match_item(answer, gold):
        return 1.0
    a = _plain(answer)
    golds = gold if isinstance(gold, (list, tuple)) else (gold,)
    return float(any(g is not None and _plain(g) and _plain(g) in a for g in golds))


EXACT_MATCH = register(MetricSpec(
    name="exact_match", display="Exact match", item=exact_match_item, binary=True,
    description="Answer equals the gold after lower-casing and trimming whitespace and affix hyphens.",
    reference="PACUTE paper §5; pacute-bench exact_match"))
CONTAINS_MATCH = register(MetricSpec(
    name="contains_match", display="Contains match", item=contains_match_item, binary=True,
    description="Exact match, or the gold (lower-cased, trimmed) occurs inside the lower-cased answer; affix "
                "hyphens are kept for containment so `-ak` is not found in `yak`. LINDSEA open coreference: a gold "
                "such as \"Tono or Tina (least preferred)\" accepts either referent.",
    reference="PACUTE paper §5; pacute-bench contains_match"))
