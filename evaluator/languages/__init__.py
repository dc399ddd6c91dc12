"""Languages as data: one YAML entry per language, read by extraction, prompts, metrics and pages.

The built-in entries sit next to this file (`id.yaml`, `vi.yaml`, ...). More are read, in this order, from every
folder in `$TANAW_LANGUAGES_DIR` (os.pathsep-separated) and from `languages/` inside a local `$TANAW_DATA_DIR`, so
adding a language (Malay, Burmese...) is a data change: its entry, a prompt pack and its items. An added entry may
declare `tasks:`, the task cells it brings (`{task: {dataset, labels, chance, headline, trim_tokens}}`); the task
registry adds the language to those tasks. A code may be declared once; a bad entry raises `LanguageError` naming
the file and the field.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from evaluator.plugins import declared_dirs

BUILTIN_DIR = Path(__file__).resolve().parent
ENV_DIRS = "TANAW_LANGUAGES_DIR"
"""Environment variable: extra folders of language entries (`*.yaml`)."""


class LanguageError(ValueError):
    """A language entry is malformed or declared twice; the message names the file and the field."""


@dataclass(frozen=True)
class Language:
    """Everything Tanaw knows about one language, declared once."""

    code: str
    """ISO 639-1 code used everywhere (store, URLs, CLI)."""
    name: str
    """English display name."""
    native_name: str = ""
    script: str = "Latin"
    tokenizer: str = "whitespace"
    """Word segmentation for word-level views and metrics: "whitespace", "newmm" (PyThaiNLP) or "syllables"
    (Burmese syllables, as SEA-HELM's ROUGE-L segments Burmese)."""
    answer_tag: str = ""
    """The native `Answer:` tag of the SEA-HELM prompts (`Jawaban`, `Câu trả lời`, ...)."""
    tag_marks: str = ""
    """Characters besides `:` and `：` that may end this language's answer and output tags (Burmese `အဖြေ-`
    ends in a hyphen, Khmer `ការបរប្រែ៖` in the Khmer colon)."""
    option_letters: tuple[str, ...] = ()
    """The language's own option letters for A, B, C, ... (Burmese က, ခ, ဂ), read as those letters when an answer
    starts with one."""
    output_tags: Mapping[str, str] = field(default_factory=dict)
    """Output tags of generation tasks by kind (`translation`, `summary`), as in `Terjemahan:`."""
    option_words: tuple[str, ...] = ()
    """Words that may precede a choice letter ("Pilihan A")."""
    or_words: tuple[str, ...] = ()
    """The word "or", to recognise an echoed choice list ("Benar atau Salah")."""
    label_words: Mapping[str, str] = field(default_factory=dict)
    """Label word (case-folded) → canonical English label (sentiment, toxicity)."""
    single_letter_labels: Mapping[str, str] = field(default_factory=dict)
    """Labels written as one letter, accepted only when that letter is the whole answer (Thai toxicity Y/N)."""
    polarity_words: Mapping[str, bool] = field(default_factory=dict)
    """True/False and Yes/No words → polarity (LINDSEA: Benar/Salah, உண்மை/பொய்)."""
    negation_before: tuple[str, ...] = ()
    """Words that negate the word after them ("bukan positif", "không tích cực", "ไม่ใช่...")."""
    negation_after: tuple[str, ...] = ()
    """Words that negate the word before them (Tamil "நேர்மறை அல்ல")."""
    no_answer: tuple[str, ...] = ()
    """Phrases meaning "there is no answer" (unanswerable QA)."""
    literals: Mapping[str, str] = field(default_factory=dict)
    """Short words the native templates need (XCOPA `cause`/`effect`)."""
    ner_labels: tuple[str, ...] = ()
    """Entity types of this language's NER dataset, as named in the prompt and the gold."""
    toxicity_labels: Mapping[str, str] = field(default_factory=dict)
    """`definitions` and `choices` of this language's toxicity dataset, for the English prompt."""
    prompt_pack: str | None = None
    """YAML of native prompts by task (`{task: {template, system}}`), relative to the entry's folder."""
    tasks: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Task cells this entry adds to the registry: task id → {dataset, labels, chance, headline, trim_tokens}."""
    order: int = 100
    """Display order (built-ins: the BHASA paper's id, vi, th, ta, then tl, en)."""
    source: str = ""
    """File the entry was read from."""

    def prompt_pack_path(self) -> Path | None:
        """Absolute path of the language's own prompt pack, if it declares one."""
        if not self.prompt_pack:
            return None
        return (Path(self.source).parent / self.prompt_pack).resolve()


_LISTS = ("option_words", "or_words", "no_answer", "ner_labels", "option_letters")
_MAPS = ("output_tags", "label_words", "single_letter_labels", "polarity_words", "literals", "toxicity_labels",
         "tasks")
_STRINGS = ("code", "name", "native_name", "script", "tokenizer", "answer_tag", "tag_marks", "prompt_pack")


def _check(path: Path, doc: Any) -> dict[str, Any]:
    """The entry's fields in Language's shape; LanguageError naming the file and field otherwise."""
    if not isinstance(doc, dict):
        raise LanguageError(f"{path}: expected a mapping of fields, got {type(doc).__name__}")
    known = {*_LISTS, *_MAPS, *_STRINGS, "negation", "order"}
    for key in doc:
        if key not in known:
            raise LanguageError(f"{path}: {key}: unknown field (known: {', '.join(sorted(known))})")
    for key in ("code", "name"):
        if not isinstance(doc.get(key), str) or not doc[key].strip():
            raise LanguageError(f"{path}: {key}: missing")
    out: dict[str, Any] = {"source": str(path)}
    for key in _STRINGS:
        if key in doc and doc[key] is not None:
            if not isinstance(doc[key], str):
                raise LanguageError(f"{path}: {key}: expected a string")
            out[key] = doc[key]
    for key in _LISTS:
        value = doc.get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise LanguageError(f"{path}: {key}: expected a list of strings")
        out[key] = tuple(value)
    for key in _MAPS:
        value = doc.get(key) or {}
        if not isinstance(value, dict):
            raise LanguageError(f"{path}: {key}: expected a mapping")
        out[key] = {str(k).casefold() if key in ("label_words", "single_letter_labels", "polarity_words") else k: v
                    for k, v in value.items()}
    if not all(isinstance(v, bool) for v in out["polarity_words"].values()):
        raise LanguageError(f"{path}: polarity_words: values must be true or false")
    negation = doc.get("negation") or {}
    if not isinstance(negation, dict) or set(negation) - {"before", "after"}:
        raise LanguageError(f"{path}: negation: expected {{before: [...], after: [...]}}")
    out["negation_before"] = tuple(negation.get("before") or ())
    out["negation_after"] = tuple(negation.get("after") or ())
    if "order" in doc:
        if not isinstance(doc["order"], int):
            raise LanguageError(f"{path}: order: expected an integer")
        out["order"] = doc["order"]
    return out


def read_entry(path: Path) -> Language:
    """One language entry from a YAML file."""
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise LanguageError(f"{path}: cannot read: {exc}") from None
    return Language(**_check(path, doc))


def entry_dirs() -> list[Path]:
    """Folders read for language entries: built-ins, then `$TANAW_LANGUAGES_DIR`, then `$TANAW_DATA_DIR/languages`."""
    return declared_dirs(BUILTIN_DIR, ENV_DIRS, "languages")


def load_languages(dirs: list[Path] | None = None) -> dict[str, Language]:
    """Every language entry in `dirs` (default `entry_dirs()`), by code, in display order."""
    found: dict[str, Language] = {}
    for folder in dirs if dirs is not None else entry_dirs():
        for path in sorted(Path(folder).glob("*.yaml")):
            lang = read_entry(path)
            if lang.code in found:
                raise LanguageError(f"{path}: code: language {lang.code!r} is already declared in "
                                    f"{found[lang.code].source}")
            found[lang.code] = lang
    return dict(sorted(found.items(), key=lambda kv: (kv[1].order, kv[0])))


LANGUAGES: dict[str, Language] = load_languages()
"""Every known language by code, in display order."""

LANG_NAMES: dict[str, str] = {code: lang.name for code, lang in LANGUAGES.items()}
"""Display name of each language code."""

ENGLISH = "en"


def get(code: str) -> Language | None:
    """The entry of a language code, or None when Tanaw does not know it."""
    return LANGUAGES.get(code)


def name_of(code: str) -> str:
    """Display name of a code ("Indonesian"), the code itself when unknown."""
    return LANG_NAMES.get(code, code)


@functools.cache
def with_english(code: str) -> tuple[Language, ...]:
    """The entries whose words extraction accepts for `code`: English first, then the language itself."""
    return tuple(LANGUAGES[c] for c in dict.fromkeys((ENGLISH, code)) if c in LANGUAGES)


def all_answer_tags() -> tuple[str, ...]:
    """Every language's answer tag (a model may answer a native prompt with an English tag, or vice versa)."""
    return tuple(dict.fromkeys(lang.answer_tag for lang in LANGUAGES.values() if lang.answer_tag))


def tag_marks(tag: str) -> str:
    """The extra end marks (`Language.tag_marks`) of every language that declares `tag` as its answer or output
    tag, compared case-folded ("" when none does)."""
    folded = tag.casefold()
    return "".join(dict.fromkeys(
        mark for lang in LANGUAGES.values()
        if folded in {t.casefold() for t in (lang.answer_tag, *lang.output_tags.values())}
        for mark in lang.tag_marks))
