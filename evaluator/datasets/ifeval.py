"""SEA-IFEval items (`sea-ifeval/<lang>.jsonl`: SEA-HELM's `<lang>_sea_ifeval.jsonl` rows as published).

A row is `{"id", "prompts": [{"text"}], "metadata": {"language", "category", "subcategory"}, "kwargs": [{...}]}`:
one instruction per prompt, its id in `metadata.subcategory` and its checker's arguments in `kwargs[0]`. Rows in
Google IFEval's layout (`instruction_id_list` with one `kwargs` entry per instruction) are read too. The item's gold
is its instruction list `[{"id", "kwargs"}]`, checked against the registered checkers (`evaluator.instructions`)
when the file is read; the prompt is the text itself (asked in the item's language only).

SEA-HELM does not score `length_constraints:number_words` in Thai, Lao, Khmer and Burmese (no spaces between
words; `if_eval.py` at 6844e6c): those rows are left out here, so the cell has the items SEA-HELM scores.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from evaluator.datasets.base import DatasetError, Row, item_key, make_item, read_jsonl, register_loader
from evaluator.instructions import NO_WORD_SPACES, Instruction, InstructionError, instruction_of
from evaluator.spec import Item

SKIPPED = "length_constraints:number_words"
"""The instruction SEA-HELM leaves unscored in languages written without spaces between words."""


def _file(lang: str) -> str:
    return f"sea-ifeval/{lang}.jsonl"


def _prompt(row: Row) -> str:
    prompts = row.req("prompts", list)
    if not prompts or not isinstance(prompts[0], dict) or not isinstance(prompts[0].get("text"), str):
        raise row.fail("prompts[0].text", "missing (expected a list of {\"text\": ...})")
    return prompts[0]["text"]


def _instructions(row: Row) -> list[Instruction]:
    """The row's instructions, each checked against its checker's arguments."""
    kwargs = row.get("kwargs") or []
    if not isinstance(kwargs, list):
        raise row.fail("kwargs", "expected a list of objects")
    if row.get("instruction_id_list") is not None:
        ids = row.req("instruction_id_list", list)
        field = "instruction_id_list"
    else:
        meta = row.req("metadata", dict)
        ids = [meta.get("subcategory")]
        field = "metadata.subcategory"
    if not ids or len(kwargs) not in (0, len(ids)):
        raise row.fail("kwargs", f"expected one object per instruction ({len(ids)}), got {len(kwargs)}")
    out = []
    for i, inst in enumerate(ids):
        try:
            out.append(instruction_of(inst, kwargs[i] if kwargs else {}))
        except InstructionError as exc:
            raise row.fail(f"{field}[{i}]" if field == "instruction_id_list" else field, str(exc)) from None
    return out


def _item(row: Row, lang: str, instructions: list[Instruction]) -> Item:
    gold: list[dict[str, Any]] = [{"id": i.id, "kwargs": dict(i.kwargs)} for i in instructions]
    first = instructions[0].id
    category, _, _ = first.partition(":")
    return make_item("sea-ifeval", lang, item_key(row), {"text": _prompt(row)}, gold, required=("text",),
                     metadata={"category": category, "subcategory": first if len(instructions) == 1 else None})


@register_loader("sea-ifeval", lambda lang: (_file(lang),))
def read_ifeval(data_dir: Path, lang: str) -> Iterator[Item]:
    """The items of one language, in file order (SKIPPED rows left out where SEA-HELM leaves them out)."""
    seen: set[str] = set()
    for row in read_jsonl(Path(data_dir) / _file(lang)):
        instructions = _instructions(row)
        if lang in NO_WORD_SPACES and any(i.id == SKIPPED for i in instructions):
            continue
        key = item_key(row)
        if key in seen:
            raise DatasetError(f"{row.where('id')}: duplicate id {key!r}")
        seen.add(key)
        yield _item(row, lang, instructions)
