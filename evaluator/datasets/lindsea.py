"""LINDSEA diagnostics (`lindsea/<lang>/<section>/<file>.jsonl`, data README section 1) as canonical items.

File ids restart at 0 in every file, so item ids are namespaced with the file stem (`morphology-0`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

from evaluator.datasets import validate
from evaluator.datasets.base import LOADERS, Loader, Row, item_key, make_item, read_jsonl
from evaluator.spec import Item

SYNTAX_FILES = ("morphology", "argument_structure", "filler-gap_dependencies", "NPIs_and_negation")
"""Minimal-pair files, in the order the data README lists them."""
TRUTH_LABELS = ("true", "false", "yes", "no")
"""Pragmatics gold labels (lower-cased)."""
_NOT_INPUTS = {"id", "label", "reference", "linguistic_phenomenon", "category", "subcategory"}


def _none_if_blank(value: Any) -> Any:
    """"" and "none" (any case) mean "no subcategory"."""
    return None if value is None or str(value).strip().lower() in ("", "none") else value


def _metadata(row: Row, section: str, stem: str) -> dict[str, Any]:
    return {
        "phenomenon": row.get("linguistic_phenomenon"),
        "category": row.get("category"),
        "subcategory": _none_if_blank(row.get("subcategory")),
        "section": section,
        "source_file": f"{section}/{stem}.jsonl",
        "source_id": row.get("id"),
    }


def _rows(data_dir: Path, lang: str, section: str, stem: str) -> Iterator[Row]:
    return read_jsonl(data_dir / "lindsea" / lang / section / f"{stem}.jsonl")


def _single(section: str, stem: str, key: str, build: Callable[[Row], tuple[Any, tuple[str, ...] | None, list[str]]],
            required: tuple[str, ...]) -> Loader:
    """A loader for one LINDSEA file: `build(row)` gives (gold, options, extra warnings)."""

    def read(data_dir: Path, lang: str) -> Iterator[Item]:
        for row in _rows(data_dir, lang, section, stem):
            for name in required:
                row.req(name)
            gold, options, warnings = build(row)
            inputs = {k: v for k, v in row.data.items() if k not in _NOT_INPUTS}
            yield make_item(key, lang, f"{stem}-{item_key(row)}", inputs, gold, required=required, options=options,
                            metadata=_metadata(row, section, stem), warnings=warnings)

    return Loader(key, lambda lang: (f"lindsea/{lang}/{section}/{stem}.jsonl",), read)


def read_minimal_pairs(data_dir: Path, lang: str) -> Iterator[Item]:
    """Syntax minimal pairs: `correct`, `wrong`; options (correct, wrong) so gold is "A" as loaded."""
    for stem in SYNTAX_FILES:
        for row in _rows(data_dir, lang, "syntax", stem):
            correct, wrong = row.req("correct"), row.req("wrong")
            yield make_item("lindsea.mp", lang, f"{stem}-{item_key(row)}", {"correct": correct, "wrong": wrong}, "A",
                            required=("correct", "wrong"), options=(correct, wrong),
                            metadata=_metadata(row, "syntax", stem),
                            warnings=[*validate.minimal_pair_warnings(correct, wrong),
                                      *validate.known_typo_warnings("lindsea-mp", lang, f"{stem}-{item_key(row)}",
                                                                    {"correct": correct, "wrong": wrong})])


def _truth(row: Row) -> tuple[str, None, list[str]]:
    label = str(row.req("label", (str, bool))).strip().lower()
    if label not in TRUTH_LABELS:
        raise row.fail("label", f"{row.get('label')!r} is not True, False, Yes or No")
    return label, None, []


def _binary(row: Row) -> tuple[str, tuple[str, str], list[str]]:
    label = row.req("label").strip().upper()
    if label not in ("A", "B"):
        raise row.fail("label", f"{row.get('label')!r} is not A or B")
    return label, (row.req("choice1"), row.req("choice2")), []


def _free(field: str) -> Callable[[Row], tuple[str, None, list[str]]]:
    def build(row: Row) -> tuple[str, None, list[str]]:
        return row.req(field), None, []
    return build


for _loader in (
    Loader("lindsea.mp", lambda lang: tuple(f"lindsea/{lang}/syntax/{s}.jsonl" for s in SYNTAX_FILES),
           read_minimal_pairs),
    _single("pragmatics", "pragmatic_reasoning_single", "lindsea.pragmatic_single", _truth,
            ("text", "question", "question_translated", "choices", "choices_translated")),
    _single("pragmatics", "pragmatic_reasoning_pair", "lindsea.pragmatic_pair", _truth, ("text", "conclusion")),
    _single("semantics", "coref_binary_choice", "lindsea.coref_binary", _binary, ("text", "choice1", "choice2")),
    _single("semantics", "coref_open_ended", "lindsea.coref_open", _free("label"),
            ("text", "question", "question_translated")),
    _single("semantics", "coref_pronoun_resolution", "lindsea.coref_pronoun", _free("label"), ("text",)),
    _single("semantics", "translation", "lindsea.translation", _free("reference"),
            ("text", "target_language", "target_language_translated")),
):
    LOADERS.add(_loader.key, _loader)
