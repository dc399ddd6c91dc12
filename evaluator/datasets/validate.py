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

    def items_with(self, code: str) -> list[str]:
        """Ids of the items carrying a warning with this code."""
        return [i for i, ws in self.flagged.items() if any(warning_code(w) == code for w in ws)]


def summarize(task: str, lang: str, items: Sequence[Item]) -> LoadReport:
    """Aggregate the warnings of loaded items into a LoadReport."""
    flagged = {it.item_id: it.warnings for it in items if it.warnings}
    counts: Counter[str] = Counter()
    for ws in flagged.values():
        counts.update({warning_code(w) for w in ws})
    return LoadReport(task, lang, len(items), dict(sorted(counts.items())), flagged)
