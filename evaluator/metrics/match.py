"""String-match metrics for generative answers: PACUTE exact and contains match, LINDSEA open coreference.

Normalisation (PACUTE paper §5): case, surrounding whitespace, and leading/trailing hyphens of affix strings
(`-um-` ≡ `um`); text is NFC-normalised first so composed and decomposed diacritics (`í` vs `i` + U+0301) agree. pacute-bench's released result files did not strip hyphens; `evaluator.pacute_compat`
counts where that changes a score.
"""
from __future__ import annotations

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


def contains_match_item(answer: str | None, gold: Any, *, lang: str = "", item: Any = None) -> float:
    """1.0 when the answer matches exactly (hyphen-normalised) or contains a gold (case and whitespace only).

    Hyphens are not trimmed for containment: a trimmed suffix `-ak` would otherwise be "found" in `yak`.
    """
    if answer is None:
        return 0.0
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
                "hyphens are kept for containment so `-ak` is not found in `yak`.",
    reference="PACUTE paper §5; pacute-bench contains_match"))
