"""PACUTE benchmark files (`pacute/benchmarks/<data>_<fmt>.jsonl`) as canonical items.

The PACUTE tasks are the paper's suite: pacute-bench `data/benchmarks/` at `dcab16b` (branch results-20260525),
which `data pull` pins with checksums. Each file's version is derived from its content (`data_version`): the
pacute-bench commit whose file has that SHA-256, and the hash itself.

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

import functools
import hashlib
import json
from pathlib import Path
from typing import Any, Iterator

from evaluator.datasets import validate
from evaluator.datasets.base import LOADERS, Loader, Row, item_key, make_item, read_jsonl
from evaluator.spec import Item

PAPER_COMMIT = "dcab16b617019bf63d56950b9e6858b9f1dfd7f2"
"""pacute-bench commit of the paper's suite (branch results-20260525)."""
EARLIER_COMMIT = "89a610faad84f37b540d6b5ae85638882a8f062f"
"""pacute-bench `main`: the earlier suite (composition 900/500, manipulation 800/800 with other items,
syllabification 500/500, no morphological extraction or production). Retired: not scored."""
EARLIER = {
    "composition_gen": ("b4d9eb3e1f026ce9e0e9c22177deb879e1c1057b8b5d57762646d941524fc973", 500),
    "composition_mcq": ("eec79e7d1e4c653b3ce88e518dcf2576dbc7b577dd82865062a28854d4cbd62a", 900),
    "manipulation_gen": ("ec5b855979b7bdb3629e83f50b4aa8df74e9ea165b615c53c6c46207f9c5f62f", 800),
    "manipulation_mcq": ("486c68fcbe762eefed33a918139e78bbfeeb74ecf75332e572e08630967d7516", 800),
    "syllabification_gen": ("26cdf97d502a7d7afb3ea4122db3562a82247c8e576c8cd21d10ce3c1c162262", 500),
    "syllabification_mcq": ("62dd5672fa58d6a4cd6368297b605acbe0d148eeb0c8103a112081a645042d41", 500),
}
"""SHA-256 and item count of the earlier suite's files that differ from the paper's (affixation, hierarchical and
the controls are byte-identical in both)."""
PAPER_COUNTS = {"composition_gen": 550, "composition_mcq": 950, "manipulation_gen": 800, "manipulation_mcq": 800,
                "syllabification_gen": 200, "syllabification_mcq": 200}
"""Item counts of the paper's files that differ from the earlier suite's."""


@functools.lru_cache(maxsize=1)
def _paper_hashes() -> dict[str, str]:
    """SHA-256 of each paper-suite file, from `data pull`'s lock."""
    lock = json.loads((Path(__file__).parent / "pull" / "lock.json").read_text(encoding="utf-8"))
    prefix = f"raileymontalan/pacute-bench@{PAPER_COMMIT}:data/benchmarks/"
    return {k[len(prefix):].removesuffix(".jsonl"): v["sha256"] for k, v in lock["files"].items()
            if k.startswith(prefix)}


def data_version(data_dir: Path | str, stem: str) -> str:
    """The version of one benchmark file, from its content: `pacute-bench@<commit> sha256:<12 hex>` when the hash
    is that version's file, else `local sha256:<12 hex>` (`missing` when the file is absent)."""
    path = _path(Path(data_dir), stem)
    if not path.is_file():
        return "missing"
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    commit = PAPER_COMMIT if _paper_hashes().get(stem) == digest else \
        EARLIER_COMMIT if EARLIER.get(stem, ("",))[0] == digest else None
    return f"pacute-bench@{commit[:7]} sha256:{digest[:12]}" if commit else f"local sha256:{digest[:12]}"


def version_for_count(stem: str, n: int) -> str | None:
    """The pacute-bench version (short commit) whose `stem` file has `n` items, when the two versions differ."""
    if stem not in EARLIER:
        return None
    hits = [c[:7] for c, count in ((PAPER_COMMIT, PAPER_COUNTS[stem]), (EARLIER_COMMIT, EARLIER[stem][1]))
            if count == n]
    return hits[0] if len(hits) == 1 else None


SUITE = ("affixation", "composition", "manipulation", "morphological_extraction", "morphological_production",
         "syllabification")
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
