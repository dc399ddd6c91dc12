"""PACUTE benchmark files (`pacute/benchmarks/<data>_<fmt>.jsonl`, data README section 3) as canonical items.

- Suite GEN/MCQ files (affixation, composition, manipulation, syllabification): `text_en`/`text_tl` from
  `prompts[0]`; GEN gold = `label`; MCQ gold = `mcq_options.correct`, options in the file's order (`choice1..n`
  when present, else `correct, incorrect1..n`).
- Hierarchical: `prompt_en`/`prompt_tl`; gold = `answer`; MCQ options = `options`.
- Controls (langgame, multi_digit_addition, cute): `text_en` = `question`, no Filipino text; gold = `answer`.
  LangGame's raw gold keeps its leading space (" method"); scoring normalises whitespace.
- composition/manipulation have no ids: items get pacute-bench's own scheme, `pacute_<fmt>_<5-digit 0-based
  record number>` (its result files use `pacute_gen_00012` for both), so uploaded results join by id.
MCQ items note `k` (the number of options) in metadata. Items of one file that repeat another's question and
options under a different id are flagged `duplicate-item` (`validate.with_duplicate_flags`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from evaluator.datasets import validate
from evaluator.datasets.base import LOADERS, Loader, Row, item_key, make_item, read_jsonl
from evaluator.spec import Item

SUITE = ("affixation", "composition", "manipulation", "syllabification")
"""Files whose items hold `prompts[0]` with English and Filipino text."""
CONTROLS = ("langgame", "multi_digit_addition")
"""English-only controls with `question`/`answer` (and `options` for MCQ)."""
LETTERS = "ABCDEFGH"


def _path(data_dir: Path, stem: str) -> Path:
    return data_dir / "pacute" / "benchmarks" / f"{stem}.jsonl"


def _rows(data_dir: Path, stem: str) -> Iterator[tuple[str, Row]]:
    """(item id, row): the file's `id`, else pacute-bench's `pacute_<fmt>_<n:05d>`."""
    fmt = stem.rsplit("_", 1)[1]
    for n, row in enumerate(read_jsonl(_path(data_dir, stem))):
        yield (item_key(row) if "id" in row.data else f"pacute_{fmt}_{n:05d}"), row


def _meta(row: Row, stem: str, **extra: Any) -> dict[str, Any]:
    meta = {"category": row.get("category"), "subcategory": row.get("subcategory"),
            "source_file": f"benchmarks/{stem}.jsonl", "line": row.line}
    return {**meta, **extra}


def _prompt(row: Row) -> dict[str, Any]:
    prompts = row.req("prompts", list)
    if not prompts or not isinstance(prompts[0], dict):
        raise row.fail("prompts", "expected a non-empty list of objects")
    for name in ("text_en", "text_tl"):
        if not isinstance(prompts[0].get(name), str):
            raise row.fail(f"prompts[0].{name}", "missing")
    return prompts[0]


def _mcq(row: Row, options: tuple[str, ...], gold: str, warnings: list[str]) -> list[str]:
    if len(options) < 2:
        raise row.fail("options", f"expected at least 2 options, got {len(options)}")
    return [*warnings, *validate.option_warnings(options, gold)]


def _suite_reader(data: str, fmt: str):
    stem, key = f"{data}_{fmt}", f"pacute.{data}_{fmt}"

    def read(data_dir: Path, lang: str) -> Iterator[Item]:
        yield from validate.with_duplicate_flags(list(_read(data_dir, lang)))

    def _read(data_dir: Path, lang: str) -> Iterator[Item]:
        for item_id, row in _rows(data_dir, stem):
            prompt = _prompt(row)
            inputs = {"text_en": prompt["text_en"], "text_tl": prompt["text_tl"]}
            if fmt == "gen":
                yield make_item(key, lang, item_id, inputs, str(row.req("label", (str, int))),
                                required=("text_en", "text_tl"), metadata=_meta(row, stem))
                continue
            mcq = prompt.get("mcq_options")
            if not isinstance(mcq, dict) or not isinstance(mcq.get("correct"), (str, int)):
                raise row.fail("prompts[0].mcq_options.correct", "missing")
            gold = str(mcq["correct"])
            choices = [str(prompt[f"choice{i}"]) for i in range(1, 9) if f"choice{i}" in prompt]
            ordered = choices or [mcq["correct"], *(mcq[k] for k in sorted(mcq) if k.startswith("incorrect"))]
            options = tuple(str(o) for o in ordered)
            warnings: list[str] = []
            label = row.get("label")
            letters = tuple(LETTERS[:len(choices)])
            if choices and (label not in letters or choices[letters.index(label)] != gold):
                warnings.append("mcq-label-mismatch")
            yield make_item(key, lang, item_id, inputs, gold, required=("text_en", "text_tl"), options=options,
                            metadata=_meta(row, stem, k=len(options)), warnings=_mcq(row, options, gold, warnings))

    return Loader(key, lambda lang: (f"pacute/benchmarks/{stem}.jsonl",), read)


def _hierarchical_reader(fmt: str):
    stem, key = f"hierarchical_{fmt}", f"pacute.hierarchical_{fmt}"

    def read(data_dir: Path, lang: str) -> Iterator[Item]:
        for item_id, row in _rows(data_dir, stem):
            inputs = {"text_en": row.req("prompt_en"), "text_tl": row.req("prompt_tl"), "word": row.get("word")}
            gold = str(row.req("answer", (str, int)))
            meta = _meta(row, stem, level=row.req("level", int), details=row.get("metadata") or {})
            if fmt == "gen":
                yield make_item(key, lang, item_id, inputs, gold, required=("text_en", "text_tl"), metadata=meta)
                continue
            options = tuple(str(o) for o in row.req("options", list))
            yield make_item(key, lang, item_id, inputs, gold, required=("text_en", "text_tl"), options=options,
                            metadata={**meta, "k": len(options)}, warnings=_mcq(row, options, gold, []))

    return Loader(key, lambda lang: (f"pacute/benchmarks/{stem}.jsonl",), read)


def _control_reader(data: str, fmt: str):
    stem, key = f"{data}_{fmt}", f"pacute.{data}_{fmt}"

    def read(data_dir: Path, lang: str) -> Iterator[Item]:
        for item_id, row in _rows(data_dir, stem):
            inputs = {"text_en": row.req("question")}
            gold = str(row.req("answer", (str, int)))
            task_type = row.get("task_type")
            meta = _meta(row, stem, category=task_type, task_type=task_type) if task_type else _meta(row, stem)
            if fmt == "gen":
                yield make_item(key, lang, item_id, inputs, gold, required=("text_en",), metadata=meta)
                continue
            options = tuple(str(o) for o in row.req("options", list))
            yield make_item(key, lang, item_id, inputs, gold, required=("text_en",), options=options,
                            metadata={**meta, "k": len(options)}, warnings=_mcq(row, options, gold, []))

    return Loader(key, lambda lang: (f"pacute/benchmarks/{stem}.jsonl",), read)


for _loader in (
    *(_suite_reader(data, fmt) for data in SUITE for fmt in ("mcq", "gen")),
    *(_hierarchical_reader(fmt) for fmt in ("mcq", "gen")),
    *(_control_reader(data, fmt) for data in CONTROLS for fmt in ("mcq", "gen")),
    _control_reader("cute", "gen"),
):
    LOADERS.add(_loader.key, _loader)
