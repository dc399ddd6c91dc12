"""Model metadata a result file states itself (never defaulted): what the upload form and `ingest` prefill, and
nothing else. A field the file does not state stays unset: asked on the form, stored NULL and shown as "—".

pacute-bench's `evaluation_results_*.json` states `model_type` ("it": instruction-tuned, "pt": pretrained) and,
in newer runs, `thinking` (a reasoning mode). lm-eval and SEA-HELM results state no model type, weights, size,
licence or release date."""
from __future__ import annotations

from typing import Any, Mapping

PACUTE_TYPES = {"it": "instruct", "instruct": "instruct", "chat": "instruct", "pt": "base", "base": "base"}
"""pacute-bench `model_type` values -> ours (models.model_type: base | instruct | reasoning)."""


def pacute_model_meta(entry: Mapping[str, Any]) -> dict[str, str]:
    """The model type a pacute-bench results entry states: "reasoning" when it ran with `thinking` on, else its
    `model_type` mapped (PACUTE_TYPES); empty when it states neither (or something else)."""
    if entry.get("thinking") is True:
        return {"model_type": "reasoning"}
    kind = entry.get("model_type")
    mapped = PACUTE_TYPES.get(kind.strip().lower()) if isinstance(kind, str) else None
    return {"model_type": mapped} if mapped else {}
