"""Data-quality checks run while loading; each returns short warning strings `code[: detail]` kept on the item.

Warning codes:
- `empty-input: FIELD`: a prompt field is empty or whitespace.
- `replacement-char: FIELD`: U+FFFD in a text field (undecodable bytes in the source, e.g. MLHSD).
- `mcq-gold-missing`: the gold answer is not among the options.
- `mcq-duplicate-options: 'X'`: the same option string appears more than once.
- `identical-minimal-pair`: the acceptable and unacceptable sentences are the same string.
- `qa-answer-not-in-context: 'X'`: a gold answer is not a substring of the context.
- `bom-kept: FIELD`: the field starts with U+FEFF; it is kept because answer offsets count it.
- `ner-span-mismatch: START-END`: an entity's offsets do not select its text.
- `xcopa-question-corrected: effect→cause`: the XCOPA question word disagrees with the other languages and was
  replaced by the cross-language consensus (the mislabelling the BHASA paper reports).
- `xcopa-question-unchecked`: no consensus field and no Tamil file to check the question word against.
- `mcq-label-mismatch`: the file's answer letter does not point at its correct option.
- `duplicate-item: ID, ...`: another item of the same file has the same question and the same options (in any
  order) under a different id (PACUTE: 39 groups, 91 items in syllabification MCQ); counted once per copy, so a
  cell's score weights that question more than once.
- `known-typo: FIELD 'X' (fixed copy: 'Y')`: a typo in the source that a later copy fixes (LINDSEA
  `argument_structure-21`: the unacceptable sentence also misspells *mengambilkan*, so the pair differs in two
  ways; SEA-HELM's copy of the item has the fix). The item is kept as the source has it.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from evaluator.spec import Item

BOM = "\ufeff"
REPLACEMENT = "\ufffd"


def text_warnings(inputs: Mapping[str, Any], required: Iterable[str]) -> list[str]:
    """Empty required fields, U+FFFD and leading BOMs in any string input."""
    out = [f"empty-input: {name}" for name in required if not str(inputs.get(name) or "").strip()]
    for name, value in inputs.items():
        if isinstance(value, str) and REPLACEMENT in value:
            out.append(f"replacement-char: {name}")
        if isinstance(value, str) and value.startswith(BOM):
            out.append(f"bom-kept: {name}")
    return out


def option_warnings(options: Sequence[str], gold: Any) -> list[str]:
    """Gold missing from the options and duplicated option strings."""
    out = [] if gold in options else ["mcq-gold-missing"]
    out += [f"mcq-duplicate-options: {text!r}" for text, n in Counter(options).items() if n > 1]
    return out


def minimal_pair_warnings(correct: str, wrong: str) -> list[str]:
    """A minimal pair whose two sentences are identical cannot be answered."""
    return ["identical-minimal-pair"] if correct.strip() == wrong.strip() else []


def qa_warnings(context: str, answers: Sequence[str]) -> list[str]:
    """Gold answers that are not substrings of the context."""
    return [f"qa-answer-not-in-context: {a!r}" for a in answers if a not in context]


def ner_warnings(text: str, entities: Sequence[Mapping[str, Any]]) -> list[str]:
    """Entities whose character offsets do not select their text."""
    return [f"ner-span-mismatch: {e['start']}-{e['end']}" for e in entities if text[e["start"]:e["end"]] != e["text"]]


def xcopa_question(raw: str, consensus: str | None, mismatch: bool | None) -> tuple[str, list[str]]:
    """The corrected question word and its warning: the consensus wins when the file's word disagrees."""
    if consensus and (mismatch or consensus != raw):
        return consensus, [f"xcopa-question-corrected: {raw}→{consensus}"]
    return raw, []


KNOWN_TYPOS: dict[tuple[str, str, str], tuple[str, str, str, str]] = {
    ("lindsea-mp", "id", "argument_structure-21"): (
        "wrong", "mengambilan", "mengambilkan",
        "aisingapore/SEA-HELM@360c7cc seahelm_tasks/lindsea/syntax/data/id_syntax_mcq_randomized.jsonl id 21"),
}
"""(task, lang, item id) → (field, typo, fix, where the fixed copy is): source typos another copy corrects."""


def known_typo_warnings(task: str, lang: str, item_id: str, inputs: Mapping[str, Any]) -> list[str]:
    """A `known-typo` warning when this item's field still holds a typo listed in `KNOWN_TYPOS`."""
    typo = KNOWN_TYPOS.get((task, lang, item_id))
    if typo is None or typo[1] not in str(inputs.get(typo[0]) or "").split():
        return []
    field, wrong, fixed, _where = typo
    return [f"known-typo: {field} {wrong!r} (fixed copy: {fixed!r})"]


def _question_key(item: Item) -> tuple:
    text = tuple(sorted((k, str(v)) for k, v in item.inputs.items() if k.startswith("text")))
    return text, tuple(sorted(item.options or ()))


def duplicate_groups(items: Sequence[Item]) -> list[list[str]]:
    """Ids of items sharing their question text and option set, per group of two or more, in file order."""
    groups: dict[tuple, list[str]] = {}
    for it in items:
        groups.setdefault(_question_key(it), []).append(it.item_id)
    return [ids for ids in groups.values() if len(ids) > 1]


def duplicate_item_warnings(items: Sequence[Item]) -> dict[str, str]:
    """Item id → `duplicate-item` warning naming (up to three of) the other ids of its group."""
    out = {}
    for ids in duplicate_groups(items):
        for i in ids:
            others = [x for x in ids if x != i]
            out[i] = "duplicate-item: " + ", ".join(others[:3]) + (f" (+{len(others) - 3})" if len(others) > 3 else "")
    return out


def with_duplicate_flags(items: Sequence[Item]) -> list[Item]:
    """The items with a `duplicate-item` warning added where `duplicate_item_warnings` finds one."""
    import dataclasses

    flags = duplicate_item_warnings(items)
    return [dataclasses.replace(it, warnings=(*it.warnings, flags[it.item_id])) if it.item_id in flags else it
            for it in items]


def warning_code(warning: str) -> str:
    """The code part of a warning (`mcq-duplicate-options: 'x'` → `mcq-duplicate-options`)."""
    return warning.split(":", 1)[0]


@dataclass(frozen=True)
class LoadReport:
    """What loading one (task, lang) found: item count and data-quality warnings."""

    task: str
    """Task id."""
    lang: str
    """Language."""
    n_items: int
    """Items loaded."""
    counts: Mapping[str, int]
    """Number of items flagged per warning code."""
    flagged: Mapping[str, tuple[str, ...]]
    """Warnings per item id, only for items that have any."""



def summarize(task: str, lang: str, items: Sequence[Item]) -> LoadReport:
    """Aggregate the warnings of loaded items into a LoadReport."""
    flagged = {it.item_id: it.warnings for it in items if it.warnings}
    counts: Counter[str] = Counter()
    for ws in flagged.values():
        counts.update({warning_code(w) for w in ws})
    return LoadReport(task, lang, len(items), dict(sorted(counts.items())), flagged)
