"""Answer extraction: untrusted model text → the answer a metric compares with the gold.

Each extractor (answer reader) is `(raw, *, task, lang, item, pred=None) -> Extraction` and registers itself in
`EXTRACTORS` under the name a TaskSpec uses (`@answer_reader("label")`). The words each language answers with
(answer tags, label words, true/false words, negators, "or") come from its entry in `evaluator.languages`; how text
is read is in `evaluator.answer_text`.

The rules for hard cases are `RULES` (shown on the Methodology page, pinned by `tests/app/test_extract_table.py`).
An output nothing can be read from gives `parsed=False`: scored as wrong and counted as an instruction-following
failure.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from evaluator import instructions, languages
from evaluator.answer_readers import (
    CONFLICT,
    label_words,
    lead_letter_re,
    polarity_words,
    read_label,
    read_letter,
    read_polarity,
    read_span,
    single_letters,
    task_letters,
)
from evaluator.answer_text import (
    after_reasoning,
    answer_regions,
    clean,
    first_line,
    nfc,
    output_tag_region,
    split_reasoning_state,
)
from evaluator.metrics.choice import argmax_option, tied
from evaluator.metrics.ner import align, entity_counts
from evaluator.plugins import Registry
from evaluator.spec import Item, Prediction, TaskSpec

__all__ = ["EXTRACTORS", "Extraction", "answer_reader", "clean", "extract", "split_reasoning"]


RULES: tuple[tuple[str, str], ...] = (
    ("Unicode", "Text is NFC-normalised before words and letters are matched, so decomposed (NFD) diacritics read "
                "like composed ones. Free text (translations, summaries) keeps the model's own code points."),
    ("Reasoning blocks", "`<think>` and `<reflection>` blocks are split off and kept as the reasoning trace. A "
                         "block that never closes runs to the end of the output: the model gave no final answer, so "
                         "the output is unparsed, whatever tag appears inside the draft. (SEA-HELM keeps the text "
                         "of an unclosed block and reads the first answer tag in it.)"),
    ("Several answer tags", "Closed answers (labels, letters, true/false, QA spans) are read in every answer region: "
                            "each `<answer>` block, else the text after each answer tag up to the next one. If the "
                            "regions that hold an answer agree, that is the answer; if they disagree, the output is "
                            "unparsed. (SEA-HELM takes the first tag; the first answer can be a draft and the last "
                            "can be a continuation the model invented, so neither is read as final.) Translations, "
                            "summaries and NER take the text after the last tag."),
    ("Negation", "A word preceded by a negator of its language (`bukan`, `tidak`, `không`, `ไม่`, `not`) or followed "
                 "by one (Tamil `அல்ல`, `இல்லை`) is never read as the word it negates: `Jawaban: Bukan Positif`, "
                 "`Câu trả lời: Không tích cực`, `பதில்: நேர்மறை அல்ல` and `Jawaban: Tidak Kasar` are unparsed; "
                 "`bukan positif, melainkan negatif` is negative. English `not toxic` is the label non-toxic."),
    ("Echoed choices", "An answer that repeats the choice list (`Benar atau Salah`, `உண்மை அல்லது பொய்`, "
                       "`Positif, Negatif, atau Netral`) is unparsed, not read as its first choice."),
    ("Lower-case letters", "A letter standing alone may be lower-case (`c`, `jawaban: b`, `(a)`, `b) ...`); "
                           "inside a sentence only capital letters count, so the article `a` is not option A."),
    ("Native tags and letters", "A language's tags may end in its own mark instead of a colon, as SEA-HELM writes "
                                "them (Burmese `အဖြေ-`, Khmer `ការបរប្រែ៖`). Where SEA-HELM asks for the "
                                "language's own option letters (Burmese က/ခ/ဂ/ဃ), an answer that starts with one "
                                "standing alone is read as A/B/C/D (`အဖြေ- ခ` is B); inside a sentence a Burmese "
                                "letter is also a word, so only the first counts."),
)
"""The extraction rules for hard cases, as (name, statement)."""


@dataclass(frozen=True)
class Extraction:
    """What an extractor read from one output."""

    answer: str | None
    """Canonical answer (label name, letter, option string, span, text); None when nothing could be parsed."""
    parsed: bool
    """False = the output did not follow the answer format (an instruction-following failure)."""
    reasoning: str | None = None
    """Text of `<think>`/`<reflection>` blocks split off the output."""
    extras: Mapping[str, Any] = field(default_factory=dict)
    """How the answer was found (`via`), chosen option index, length normalisation, ..."""


def split_reasoning(raw: str | None) -> tuple[str, str | None]:
    """Output text with `<think>`/`<reflection>` blocks removed, and those blocks' text (None if absent)."""
    text, reasoning, _ = split_reasoning_state(raw)
    return text, reasoning


def _fail(reasoning: str | None, why: str, **extras: Any) -> Extraction:
    return Extraction(None, False, reasoning, {"failure": why, **extras})


SHORT_OUTPUT = 512
"""Outputs up to this many characters have their regions remembered (the same short answers repeat across
items and runs); longer ones are read each time."""


def _prepare(raw: str | None, normalise: bool = True) -> tuple[tuple[str, ...], str, str | None, str | None]:
    """(answer regions, how they were found, reasoning, failure) of an output; the failure is set when the
    reasoning never closed and nothing precedes it. A pure function of its arguments: short outputs are cached."""
    if raw is not None and len(raw) <= SHORT_OUTPUT:
        return _prepare_short(raw, normalise)
    return _prepare_text(raw, normalise)


def _prepare_text(raw: str | None, normalise: bool) -> tuple[tuple[str, ...], str, str | None, str | None]:
    text, reasoning, unclosed = split_reasoning_state(nfc(raw) if normalise else raw)
    if unclosed and not text.strip():
        return (), "unclosed_reasoning", reasoning, "reasoning block never closed: no final answer"
    regions, via = answer_regions(text)
    return tuple(regions), via, reasoning, None


_prepare_short = functools.lru_cache(maxsize=8192)(_prepare_text)


Reader = Callable[[str], "tuple[object, str, str]"]
"""Reads one region (`evaluator.answer_readers`): (answer, via suffix, "") or (None, failure kind, why)."""


def _read_regions(raw: str | None, reader: Reader, *, same=lambda a: a) -> Extraction:
    """Apply `reader` to every answer region and combine the answers as `RULES` states ("Several answer tags")."""
    regions, via, reasoning, failure = _prepare(raw)
    if failure:
        return _fail(reasoning, failure)
    answers: list[tuple[str, str]] = []
    conflicts: list[str] = []
    empties: list[str] = []
    for region in regions:
        answer, how, why = reader(region)
        if answer is not None:
            answers.append((answer, how))
        elif how == CONFLICT:
            conflicts.append(why)
        else:
            empties.append(why)
    distinct = list(dict.fromkeys(same(a) for a, _ in answers))
    if len(distinct) > 1:
        return _fail(reasoning, "answer tags disagree: " + ", ".join(str(a) for a in distinct),
                     answers=[a for a, _ in answers])
    if conflicts:
        return _fail(reasoning, conflicts[0])
    if answers:
        extras: dict[str, Any] = {"via": via + answers[0][1]}
        if len(regions) > 1:
            extras["regions"] = len(regions)
        return Extraction(answers[0][0], True, reasoning, extras)
    return _fail(reasoning, empties[0] if empties else "empty output")


# ---------------------------------------------------------------------------------------------- label


Extractor = Callable[..., Extraction]

EXTRACTORS: Registry[Extractor] = Registry("answer reader")
"""Answer reader (extractor) by the name used in `TaskSpec.extractor`; each registers itself below."""
answer_reader = EXTRACTORS.register
"""Decorator: `@answer_reader("label")` registers the function under that name."""


@answer_reader("label")
def extract_label(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                  pred: Prediction | None = None) -> Extraction:
    """A closed-set label (sentiment, toxicity): canonical English name such as "positive" or "non-toxic"."""
    words, single = label_words(task, lang), single_letters(task, lang)
    return _read_regions(raw, lambda region: read_label(region, words, single, lang))


# --------------------------------------------------------------------------------------------- letter


@answer_reader("letter")
def extract_letter(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                   pred: Prediction | None = None) -> Extraction:
    """A choice letter ("A", "B", "C"): leading letter, `(B)`, `**C**`, `Option A`, a lower-case letter standing
    alone, or one lone capital letter; failing those, an answer that repeats one option's text verbatim (in the
    order the options were shown)."""
    letters = task_letters(task, lang, item)
    return _read_regions(raw, lambda region: read_letter(region, letters, lang, item, pred))


# ----------------------------------------------------------------------------------------- true/false


@answer_reader("true_false")
def extract_true_false(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                       pred: Prediction | None = None) -> Extraction:
    """True/False or Yes/No in English or the native language, returned in the gold's vocabulary.

    A "True" answer to a yes/no item is read as "yes" (and vice versa): the polarity is what is asked.
    """
    gold = str(item.gold).casefold() if item is not None else "true"
    vocab = ("yes", "no") if gold in ("yes", "no") else ("true", "false")
    words = polarity_words(lang)
    ex = _read_regions(raw, lambda region: read_polarity(region, words, lang))
    if not ex.parsed:
        return ex
    return Extraction(vocab[0] if ex.answer else vocab[1], True, ex.reasoning, ex.extras)


# ------------------------------------------------------------------------------------------ free text


def _last_region(raw: str | None, normalise: bool) -> tuple[str, str, str | None, str | None]:
    """(last answer region, via, reasoning, failure): generation answers read the text after the last tag."""
    regions, via, reasoning, failure = _prepare(raw, normalise)
    return (regions[-1] if regions else ""), via, reasoning, failure


@answer_reader("free_text")
def extract_free_text(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                      pred: Prediction | None = None) -> Extraction:
    """The whole answer region (translation, summary, open answers) after the last output tag of the task's kind
    (`TaskSpec.output_tag`: `Translation:`, `Terjemahan:`, ... in any language); empty output = not parsed.
    The text keeps the model's own code points (tags are also looked for in its NFC form)."""
    region, via, reasoning, failure = _last_region(raw, normalise=False)
    if failure:
        return _fail(reasoning, failure)
    if task.output_tag:
        tags = [e.output_tags[task.output_tag] for e in languages.LANGUAGES.values()
                if task.output_tag in e.output_tags]
        after = output_tag_region(region, tags)
        if after is None and nfc(region) != region:
            after = output_tag_region(nfc(region), tags)
        if after is not None:
            region, via = after, "output_tag"
    if not region.strip():
        return _fail(reasoning, "empty output")
    return Extraction(region.strip(), True, reasoning, {"via": via})


@answer_reader("qa_span")
def extract_qa_span(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                    pred: Prediction | None = None) -> Extraction:
    """An extractive-QA answer: first non-empty line of the answer region, trimmed of quotes (several answer tags
    must agree, compared case-folded)."""
    return _read_regions(raw, read_span, same=clean)


@answer_reader("ner_tags")
def extract_ner_tags(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                     pred: Prediction | None = None) -> Extraction:
    """The tagged sentence (`@@TYPE@@span##`), with entities aligned to the gold text and per-type counts.

    extras: `entities` [(type, start, end)] in no-whitespace offsets of the item text, `ner_counts`
    {type: [tp, fp, fn]}, `unaligned` and `stray_markers`.
    """
    region, via, reasoning, failure = _last_region(raw, normalise=False)
    if failure:
        return _fail(reasoning, failure)
    if not region.strip():
        return _fail(reasoning, "empty output")
    extras: dict[str, Any] = {"via": via}
    if item is not None:
        text = str(item.inputs.get("text", ""))
        entities, unaligned, stray = align(region, text)
        extras.update(entities=[list(e) for e in entities], unaligned=unaligned, stray_markers=stray,
                      ner_counts=entity_counts(region, text, item.gold or []))
        if "@@" not in region and item.gold:
            extras["note"] = "no entity tags in the output"
    return Extraction(region.strip(), True, reasoning, extras)


# ------------------------------------------------------------------------------------------- PACUTE


@answer_reader("pacute_answer")
def extract_pacute_answer(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                          pred: Prediction | None = None) -> Extraction:
    """PACUTE generation: only the answer is read (PACUTE paper: the evaluator "extracts only the answer").

    The text after the last closed `<think>`/`<reflection>` block (`after_reasoning`); a block that never closes
    gives no answer (unparsed: a format failure). In that text, the first line of the `<answer>` block (an
    unclosed one runs to the end), else its first line, as pacute-bench reads it. The answer keeps its case;
    metrics normalise.
    """
    _, reasoning = split_reasoning(raw)
    text = after_reasoning(raw)
    if text is None:
        return _fail(reasoning, "reasoning block never closed: no final answer")
    lower = text.lower()
    if "<answer>" in lower:
        after = text[lower.index("<answer>") + len("<answer>"):]
        close = after.lower().find("</answer>")
        region, via = (after[:close] if close >= 0 else after), "answer_block"
    else:
        region, via = text, "first_line"
    answer = first_line(region)
    if not answer:
        return _fail(reasoning, "empty answer")
    return Extraction(answer, True, reasoning, {"via": via})


@answer_reader("option_logprob")
def extract_option_logprob(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                           pred: Prediction | None = None) -> Extraction:
    """MCQ by log-likelihood: argmax of summed option log-probabilities (`argmax_option`); an exact tie lists the
    tied option texts in extras `tied` (scored 1/k by `evaluator.metrics.choice.tied_credit`).

    Without log-probabilities, falls back to a letter or an option string in the output (flagged in extras).
    """
    options = tuple(item.options or ()) if item is not None else ()
    logprobs = pred.option_logprobs if pred is not None else None
    if logprobs:
        if len(logprobs) != len(options):
            return _fail(None, f"{len(logprobs)} log-probabilities for {len(options)} options")
        best = argmax_option(logprobs, options)
        extras: dict[str, Any] = {"via": "logprob", "choice": best, "k": len(options), "length_norm": "none (sum)"}
        top = tied(logprobs)
        if len(top) > 1:
            extras["tied"] = [options[i] for i in top]
        return Extraction(options[best], True, None, extras)
    region, via, reasoning, _ = _last_region(raw, normalise=True)
    line = first_line(region)
    m = lead_letter_re(lang).match(line)
    letters = "ABCDEFGH"[: len(options)]
    if m and m.group(1) in letters:
        i = letters.index(m.group(1))
        return Extraction(options[i], True, reasoning, {"via": "text_letter", "choice": i, "k": len(options)})
    folded = [clean(o) for o in options]
    if clean(line) in folded:
        i = folded.index(clean(line))
        return Extraction(options[i], True, reasoning, {"via": "text_option", "choice": i, "k": len(options)})
    return _fail(reasoning, "no log-probabilities and no option in the output", k=len(options))


# ------------------------------------------------------------------------------------------ instructions

_REASONING_TAG = re.compile(r"</?(?:think|reflection)>", re.IGNORECASE)


@answer_reader("instructions")
def extract_instructions(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                         pred: Prediction | None = None) -> Extraction:
    """SEA-IFEval: the whole response checked against the item's instructions (`evaluator.instructions.follow`);
    the outcome goes into the extras and the answer is its one-line summary. `<think>`/`<reflection>` blocks are
    split off first (a response without them is checked exactly as given); an empty response or a reasoning block
    that never closes is unparsed."""
    if item is None:
        raise ValueError(f"{task.name}: the instructions reader needs the item")
    text, reasoning = raw or "", None
    if _REASONING_TAG.search(text):
        text, reasoning, unclosed = split_reasoning_state(text)
        if unclosed and not text.strip():
            return _fail(reasoning, "reasoning block never closed: no final answer")
    outcome = instructions.follow(text, lang, instructions.item_instructions(item.gold))
    if not text.strip():
        return _fail(reasoning, "empty output", **outcome.as_extras())
    return Extraction(instructions.summary(outcome), True, reasoning, outcome.as_extras())


def extract(task: TaskSpec, item: Item, pred: Prediction) -> Extraction:
    """Run the task's extractor on one prediction."""
    return EXTRACTORS[task.extractor](pred.output, task=task, lang=item.lang, item=item, pred=pred)
