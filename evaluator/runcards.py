"""Run cards: how a system's runs were made (harness, endpoint kind, generation settings, prompt template and its
hash, dates, source file), flattened to one value per setting, and the settings that differ between systems."""
from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping

MISSING = "—"
"""A setting a system's run card does not have."""


def flatten(settings: Any, prefix: str = "") -> dict[str, str]:
    """Nested settings as {"dotted.key": JSON text of the value}."""
    if isinstance(settings, str):
        try:
            settings = json.loads(settings)
        except ValueError:
            return {prefix or "settings": settings}
    if not isinstance(settings, Mapping):
        return {} if settings is None else {prefix or "settings": json.dumps(settings, sort_keys=True)}
    out: dict[str, str] = {}
    for key, value in settings.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, Mapping):
            out |= flatten(value, name)
        else:
            out[name] = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return out


def run_card(run: Mapping[str, Any]) -> dict[str, str]:
    """One run's card from its stored row (harness, source, source_file, settings, created_at): every setting
    flattened, plus the prompt template's SHA-256 (first 12 hex) when the settings hold one."""
    card = {"harness": run.get("harness"), "source": run.get("source"), "source file": run.get("source_file"),
            "date": str(run.get("created_at") or "")[:10] or None}
    settings = flatten(run.get("settings"))
    template = settings.get("prompt_template") or settings.get("prompt.template")
    if template:
        settings["prompt template sha256"] = hashlib.sha256(template.encode()).hexdigest()[:12]
    card |= {f"settings.{k}": v for k, v in settings.items()}
    return {k: str(v) for k, v in card.items() if v is not None}


def card_diff(cards: Mapping[str, Mapping[str, str]]) -> list[dict[str, str]]:
    """The settings whose values differ between systems ({system: card}): one row per setting with each system's
    value (MISSING where a card lacks it), in setting order; identical settings are left out."""
    keys = sorted({k for card in cards.values() for k in card})
    rows = []
    for key in keys:
        values = {system: card.get(key, MISSING) for system, card in cards.items()}
        if len(set(values.values())) > 1:
            rows.append({"setting": key, **values})
    return rows
