"""Cultural representation probes (`cultural/<lang>/cultural_representation.jsonl`, data README section 2).

`prompt`/`follow_up_prompt` are templates with `{target}` (and in Tamil `{follow_up_target}`); the loader fills
them, so items carry the question as asked. There is no gold: answers are rated by people.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from evaluator.datasets.base import Row, item_key, make_item, read_jsonl, register_loader
from evaluator.spec import Item

_SLOT = re.compile(r"\{(target|follow_up_target)\}")


def _fill(row: Row, field: str, template: str) -> str:
    """Substitute `{target}` / `{follow_up_target}` (the latter falls back to `target` when the file lacks it)."""
    values = {"target": row.req("target"), "follow_up_target": row.get("follow_up_target") or row.req("target")}
    filled = _SLOT.sub(lambda m: values[m.group(1)], template)
    leftover = re.search(r"\{[a-z_]+\}", filled)
    if leftover:
        raise row.fail(field, f"unknown placeholder {leftover.group(0)}")
    return filled


@register_loader("cultural.representation",
                 lambda lang: (f"cultural/{lang}/cultural_representation.jsonl",))
def read_representation(data_dir: Path, lang: str) -> Iterator[Item]:
    """Open-ended cultural questions: `prompt` and `follow_up_prompt` (None when absent) already filled."""
    for row in read_jsonl(data_dir / "cultural" / lang / "cultural_representation.jsonl"):
        prompt = _fill(row, "prompt", row.req("prompt"))
        follow = row.get("follow_up_prompt")
        inputs = {
            "prompt": prompt,
            "follow_up_prompt": _fill(row, "follow_up_prompt", follow) if follow else None,
            "target": row.req("target"),
        }
        metadata = {"aspect": row.get("aspect"), "category": row.get("category")}
        yield make_item("cultural.representation", lang, item_key(row), inputs, None, required=("prompt",),
                        metadata=metadata)
