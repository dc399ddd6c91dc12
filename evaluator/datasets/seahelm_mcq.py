"""SEA-HELM's multiple-choice tasks, read from SEA-HELM's own JSON Lines files as `data pull` copies them.

Every file is SEA-HELM's layout unchanged (aisingapore/SEA-HELM; commits in evaluator/datasets/pull/sources.toml):
one record per question with `id`, `label` and `prompts[0]` holding the fields its prompt templates fill, so the
native templates of its task configs apply as they are. The gold is the option letter A, B, C, ...; Burmese files
write it with the Burmese letters SEA-HELM's Burmese prompts ask for (က ခ ဂ ဃ), read here as A B C D.

- Belebele (`seahelm/belebele/<lang>.jsonl`): `text`, `question`, `choice1`..`choice4`; `label` the option index.
- Global-MMLU-Lite (`seahelm/global-mmlu-lite/<lang>.jsonl`): `question`, `option_a`..`option_d`; its
  `cultural_sensitivity_label` (CS/CA) is the item's `phenomenon`, the subject area its `category` and the subject
  its `subcategory`, so the drill-down can filter culturally sensitive from culturally agnostic questions.
- Kalahi (`seahelm/kalahi/<lang>.jsonl`): `question` and `mcq` (the options as "A: ..." lines); its category and
  topic are the item's `category` and `subcategory`.
- ThaiExam (`seahelm/thai-exam/<exam>.jsonl`): one task per exam, as SEA-HELM scores them; `question`, `a`..`e`
  (IC has four options, no `e`).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from evaluator.answer_readers import native_letters
from evaluator.datasets.base import Row, item_key, make_item, read_jsonl, register_loader
from evaluator.spec import Item

LETTERS = "ABCDE"
CULTURAL_LABELS = {"CS": "culturally sensitive", "CA": "culturally agnostic"}
"""Global-MMLU-Lite's `cultural_sensitivity_label` values, in words (its dataset card)."""
THAI_EXAMS = ("a_level", "ic", "onet", "tgat", "tpat1")
"""ThaiExam's exams, each a SEA-HELM task `thai_exam_<exam>` (seahelm_tasks/knowledge/thai_exam/config.yaml)."""
_MCQ_LINE = re.compile(r"^([A-E]): ?(.*)$")


def _fields(row: Row, names: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, str]:
    """`prompts[0]`'s fields `names` and those of `optional` it has (absent or null: skipped). A required field that
    is null is kept empty, so the item stays in the cell (as in SEA-HELM's) flagged `empty-input: <field>` (one
    Burmese Global-MMLU-Lite question is null); one that is absent or not a string is an error."""
    prompts = row.req("prompts", list)
    if not prompts or not isinstance(prompts[0], dict):
        raise row.fail("prompts", "expected a list holding one object of prompt fields")
    first = prompts[0]
    out = {}
    for name in names + optional:
        value = first.get(name)
        if value is None and (name in optional or name in first):
            if name in optional:
                continue
            value = ""
        if not isinstance(value, str):
            raise row.fail(f"prompts[0].{name}", "missing" if value is None else
                           f"expected str, got {type(value).__name__}")
        out[name] = value
    return out


def _letter(row: Row, lang: str, n_options: int) -> str:
    """The gold letter: an option index (0..n-1), a letter A.. or the language's own option letter (Burmese က → A,
    `Language.option_letters`); DatasetError otherwise."""
    label = row.req("label", (str, int))
    if isinstance(label, int):
        letter = LETTERS[label] if 0 <= label < n_options else None
    else:
        text = label.strip()
        letter = native_letters(lang).get(text, text.upper())
    if letter not in LETTERS[:n_options]:
        raise row.fail("label", f"{label!r} is not one of the {n_options} options")
    return letter


def _meta(row: Row) -> dict:
    meta = row.get("metadata")
    return meta if isinstance(meta, dict) else {}


@register_loader("seahelm.belebele", lambda lang: (f"seahelm/belebele/{lang}.jsonl",))
def read_belebele(data_dir: Path, lang: str) -> Iterator[Item]:
    """Belebele: a passage, a question and four options; gold = A-D from the option index `label`."""
    names = ("text", "question", "choice1", "choice2", "choice3", "choice4")
    for row in read_jsonl(data_dir / "seahelm" / "belebele" / f"{lang}.jsonl"):
        inputs = _fields(row, names)
        yield make_item("seahelm.belebele", lang, item_key(row), inputs, _letter(row, lang, 4), required=names,
                        options=tuple(inputs[f"choice{i}"] for i in range(1, 5)))


@register_loader("seahelm.global_mmlu_lite", lambda lang: (f"seahelm/global-mmlu-lite/{lang}.jsonl",))
def read_global_mmlu_lite(data_dir: Path, lang: str) -> Iterator[Item]:
    """Global-MMLU-Lite: a question and four options; the cultural label, subject area and subject as its node."""
    names = ("question", "option_a", "option_b", "option_c", "option_d")
    for row in read_jsonl(data_dir / "seahelm" / "global-mmlu-lite" / f"{lang}.jsonl"):
        inputs = _fields(row, names)
        meta = _meta(row)
        cultural = meta.get("cultural_sensitivity_label")
        if cultural not in CULTURAL_LABELS:
            raise row.fail("metadata.cultural_sensitivity_label", f"{cultural!r} is not CS or CA")
        metadata = {"phenomenon": CULTURAL_LABELS[cultural], "category": meta.get("subject_category"),
                    "subcategory": meta.get("subject"), "sample_id": meta.get("sample_id"),
                    "required_knowledge": meta.get("required_knowledge"), "region": meta.get("region")}
        yield make_item("seahelm.global_mmlu_lite", lang, item_key(row), inputs, _letter(row, lang, 4),
                        required=names,
                        options=tuple(inputs[n] for n in names[1:]), metadata=metadata)


def _kalahi_options(row: Row, mcq: str) -> tuple[str, ...]:
    """The option texts of Kalahi's `mcq` block ("A: ...\\nB: ..."), in letter order."""
    options = []
    for line in mcq.splitlines():
        m = _MCQ_LINE.match(line.strip())
        if m is None or m.group(1) != LETTERS[len(options)]:
            raise row.fail("prompts[0].mcq", f"line {line[:40]!r} is not option {LETTERS[len(options)]}")
        options.append(m.group(2))
    if len(options) < 2:
        raise row.fail("prompts[0].mcq", "fewer than two options")
    return tuple(options)


@register_loader("seahelm.kalahi", lambda lang: (f"seahelm/kalahi/{lang}.jsonl",))
def read_kalahi(data_dir: Path, lang: str) -> Iterator[Item]:
    """Kalahi: a situation and its options as one `mcq` block; gold = the letter `label`."""
    for row in read_jsonl(data_dir / "seahelm" / "kalahi" / f"{lang}.jsonl"):
        inputs = _fields(row, ("question", "mcq"))
        options = _kalahi_options(row, inputs["mcq"])
        meta = _meta(row)
        yield make_item("seahelm.kalahi", lang, item_key(row), inputs, _letter(row, lang, len(options)),
                        required=("question", "mcq"), options=options,
                        metadata={"category": meta.get("category"), "subcategory": meta.get("topic")})


def _thai_exam_loader(exam: str) -> None:
    key = f"seahelm.thai_exam_{exam}"

    @register_loader(key, lambda lang: (f"seahelm/thai-exam/{exam}.jsonl",))
    def read(data_dir: Path, lang: str) -> Iterator[Item]:
        """One ThaiExam exam: a question and five options (four for IC); the exam and its subject are the item's
        category and subcategory."""
        for row in read_jsonl(data_dir / "seahelm" / "thai-exam" / f"{exam}.jsonl"):
            inputs = _fields(row, ("question", "a", "b", "c", "d"), optional=("e",))
            options = tuple(inputs[k] for k in "abcde" if k in inputs)
            yield make_item(key, lang, item_key(row), inputs, _letter(row, lang, len(options)),
                            required=tuple(inputs), options=options,
                            metadata={"category": exam, "subcategory": _meta(row).get("subject")})


for _exam in THAI_EXAMS:
    _thai_exam_loader(_exam)
