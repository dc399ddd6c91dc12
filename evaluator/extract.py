"""Answer extraction: untrusted model text → the answer a metric compares with the gold.

Each extractor is `(raw, *, task, lang, item, pred=None) -> Extraction` and is registered in `EXTRACTORS`
under the name a TaskSpec uses. Steps shared by all: split off `<think>`/`<reflection>` blocks (kept as the
reasoning trace), prefer an `<answer>…</answer>` block, then the text after an answer tag (`Answer:`,
`Jawaban:`, `Câu trả lời:`, `คำตอบ:`, `பதில்:`, `Sagot:`). An output nothing can be read from gives
`parsed=False`: scored as wrong and counted as an instruction-following failure.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from evaluator.metrics.choice import argmax_option
from evaluator.spec import Item, Prediction, TaskSpec


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


ANSWER_TAGS: dict[str, str] = {
    "en": "Answer", "id": "Jawaban", "vi": "Câu trả lời", "th": "คำตอบ", "ta": "பதில்", "tl": "Sagot",
}
"""Native answer tags, as in the SEA-HELM configs' `fewshot_label` ("Jawaban: {label}"); a test checks them."""

OUTPUT_TAGS: dict[str, dict[str, str]] = {
    "translation": {"en": "Translation", "id": "Terjemahan", "vi": "Bản dịch", "th": "คำแปล",
                    "ta": "மொழிபெயர்ப்பு", "tl": "Salin"},
    "abssum": {"en": "Summary", "id": "Rangkuman", "vi": "Bản tóm tắt", "th": "บทสรุป", "ta": "சுருக்கம்",
               "tl": "Buod"},
}
"""Output tags of generation tasks (the English prompts' `Translation:`/`Summary:` and the SEA-HELM configs'
`fewshot_label` per language); the text after the last one is the answer. A test checks them against the configs."""

LABEL_WORDS: dict[str, dict[str, str]] = {
    # word (case-folded) → canonical English label; English words are accepted in every language.
    "en": {"positive": "positive", "negative": "negative", "neutral": "neutral", "clean": "clean",
           "abusive": "abusive", "offensive": "offensive", "hate": "hate", "hateful": "hate",
           "non-toxic": "non-toxic", "nontoxic": "non-toxic", "not toxic": "non-toxic", "toxic": "toxic"},
    "id": {"positif": "positive", "negatif": "negative", "netral": "neutral",
           "bersih": "clean", "kasar": "abusive", "benci": "hate"},
    "vi": {"tích cực": "positive", "tiêu cực": "negative", "trung lập": "neutral", "trung tính": "neutral",
           "sạch": "clean", "công kích": "offensive", "thù ghét": "hate"},
    "th": {"แง่บวก": "positive", "แง่ลบ": "negative", "เฉยๆ": "neutral", "เฉย ๆ": "neutral",
           "เชิงบวก": "positive", "เชิงลบ": "negative", "เป็นกลาง": "neutral"},
    "ta": {"நேர்மறை": "positive", "எதிர்மறை": "negative"},
}
"""Label words per language (SEA-HELM prompt packs): sentiment and toxicity answers in each language."""

SINGLE_LETTER_LABELS: dict[str, dict[str, str]] = {"th": {"y": "toxic", "n": "non-toxic"}}
"""Labels written as one letter, accepted only when the whole answer is that letter (Thai toxicity Y/N)."""

POLARITY_WORDS: dict[str, bool] = {
    "true": True, "false": False, "yes": True, "no": False,
    "benar": True, "salah": False, "ya": True, "tidak": False, "betul": True,
    "உண்மை": True, "பொய்": False, "ஆம்": True, "இல்லை": False,
    "đúng": True, "sai": False, "จริง": True, "เท็จ": False, "tama": True, "mali": False, "oo": True, "hindi": False,
}
"""True/False and Yes/No words (LINDSEA prompt packs: Benar/Salah, உண்மை/பொய், ...) → polarity."""

_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.S | re.I)
_REFLECTION = re.compile(r"<reflection>(.*?)(?:</reflection>|$)", re.S | re.I)
_ANSWER_BLOCK = re.compile(r"<answer>(.*?)(?:</answer>|$)", re.S | re.I)
_TAG_RE = re.compile(
    r"(?:\*\*)?(?:final\s+)?(?:" + "|".join(re.escape(t) for t in ANSWER_TAGS.values()) + r")(?:\*\*)?\s*[:：]",
    re.I)
_EDGE_JUNK = " \t\r\n*_`\"'“”‘’«»()[]{}.,;:!?。、"


def split_reasoning(raw: str | None) -> tuple[str, str | None]:
    """Output text with `<think>`/`<reflection>` blocks removed, and those blocks' text (None if absent).

    A dangling `</think>` (the opening tag was part of the prompt) makes everything before it reasoning.
    """
    text = raw or ""
    traces: list[str] = []
    if "</think>" in text.lower() and "<think>" not in text.lower():
        cut = text.lower().index("</think>")
        traces.append(text[:cut].strip())
        text = text[cut + len("</think>"):]
    for pattern in (_THINK, _REFLECTION):
        traces.extend(m.group(1).strip() for m in pattern.finditer(text))
        text = pattern.sub("", text)
    reasoning = "\n\n".join(t for t in traces if t) or None
    return text.strip(), reasoning


def answer_region(text: str) -> tuple[str, str]:
    """The part of a (reasoning-free) output that holds the answer, and how it was found.

    `<answer>` block first; then the text after the last answer tag; else the whole text.
    """
    block = _ANSWER_BLOCK.search(text)
    if block:
        return block.group(1).strip(), "answer_block"
    tags = list(_TAG_RE.finditer(text))
    if tags:
        return text[tags[-1].end():].strip(), "answer_tag"
    return text.strip(), "whole"


def clean(s: str) -> str:
    """Case-fold and trim markdown, quotes and punctuation from both ends."""
    return s.strip(_EDGE_JUNK).strip().casefold()


def _first_line(s: str) -> str:
    for line in s.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _prepare(raw: str | None, nfc: bool = False) -> tuple[str, str, str | None]:
    """(answer region, how it was found, reasoning); `nfc` composes diacritics for word matching only, so free
    text reaches chrF/ROUGE exactly as the model wrote it."""
    text, reasoning = split_reasoning(unicodedata.normalize("NFC", raw) if nfc and raw else raw)
    region, via = answer_region(text)
    return region, via, reasoning


def _fail(reasoning: str | None, why: str, **extras: Any) -> Extraction:
    return Extraction(None, False, reasoning, {"failure": why, **extras})


# ---------------------------------------------------------------------------------------------- label


def _word_re(word: str) -> re.Pattern[str]:
    # \b is unreliable for Thai/Tamil (no spaces, combining marks): require non-letters only around Latin words.
    if all(not ch.isalpha() or ord(ch) < 0x250 or 0x1E00 <= ord(ch) <= 0x1EFF for ch in word):  # Latin script
        return re.compile(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", re.I)
    return re.compile(re.escape(word))


def label_words(task: TaskSpec, lang: str) -> dict[str, str]:
    """Accepted words → canonical label for this task and language (English + native, restricted to the label set)."""
    allowed = set(task.labels.get(lang, ()))
    words = {**LABEL_WORDS["en"], **LABEL_WORDS.get(lang, {})}
    return {w: lab for w, lab in words.items() if lab in allowed}


def extract_label(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                  pred: Prediction | None = None) -> Extraction:
    """A closed-set label (sentiment, toxicity): canonical English name such as "positive" or "non-toxic"."""
    region, via, reasoning = _prepare(raw, nfc=True)
    words = label_words(task, lang)
    single = {k: v for k, v in SINGLE_LETTER_LABELS.get(lang, {}).items() if v in words.values()}
    line = clean(_first_line(region))
    if line in words:
        return Extraction(words[line], True, reasoning, {"via": via})
    if line in single:
        return Extraction(single[line], True, reasoning, {"via": via})
    # Otherwise find label words in the answer region, longest first so "non-toxic" is not read as "toxic".
    found: dict[str, int] = {}
    masked = region.casefold()
    for word in sorted(words, key=len, reverse=True):
        pattern = _word_re(word)
        for m in pattern.finditer(masked):
            found.setdefault(words[word], m.start())
        masked = pattern.sub(lambda m: " " * len(m.group(0)), masked)
    if len(found) == 1:
        return Extraction(next(iter(found)), True, reasoning, {"via": via + "+search"})
    if found:
        return _fail(reasoning, "several labels: " + ", ".join(sorted(found, key=found.get)))
    return _fail(reasoning, "no label word")


# --------------------------------------------------------------------------------------------- letter

_LEAD_LETTER = re.compile(r"^[\s*_`\"'(\[]*(?:option|pilihan|lựa chọn|ตัวเลือก|தேர்வு)?\s*\(?([A-Z])\b(?!['’-]\w)")


def _letters(task: TaskSpec, lang: str, item: Item | None) -> tuple[str, ...]:
    labels = task.labels.get(lang)
    if labels:
        return tuple(labels)
    n = len(item.options) if item is not None and item.options else 4
    return tuple("ABCDEFGH"[:n])


def _lone_letters(text: str, letters: tuple[str, ...]) -> set[str]:
    return {x for x in re.findall(r"(?<![\w'’])([A-Z])(?![\w'’])", text) if x in letters}


def extract_letter(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                   pred: Prediction | None = None) -> Extraction:
    """A choice letter ("A", "B", "C"): leading letter, `(B)`, `**C**`, `Option A`, or one lone capital letter;
    failing those, an answer that repeats one option's text verbatim (in the order the options were shown)."""
    region, via, reasoning = _prepare(raw)
    letters = _letters(task, lang, item)
    line = _first_line(region)
    m = _LEAD_LETTER.match(line)
    if m and m.group(1) in letters and _lone_letters(line, letters) <= {m.group(1)}:
        return Extraction(m.group(1), True, reasoning, {"via": via})
    lone = _lone_letters(region, letters)
    if len(lone) == 1:
        return Extraction(lone.pop(), True, reasoning, {"via": via + "+search"})
    if not lone and item is not None and item.options:
        shown = list(item.options)[::-1] if pred is not None and pred.order == "ba" else list(item.options)
        folded = [clean(str(o)) for o in shown]
        if clean(line) in folded and folded.count(clean(line)) == 1:
            return Extraction(letters[folded.index(clean(line))], True, reasoning, {"via": via + "+option_text"})
    return _fail(reasoning, "several letters" if lone else "no letter")


# ----------------------------------------------------------------------------------------- true/false


def extract_true_false(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                       pred: Prediction | None = None) -> Extraction:
    """True/False or Yes/No in English or the native language, returned in the gold's vocabulary.

    A "True" answer to a yes/no item is read as "yes" (and vice versa): the polarity is what is asked.
    """
    region, via, reasoning = _prepare(raw, nfc=True)
    gold = str(item.gold).casefold() if item is not None else "true"
    vocab = ("yes", "no") if gold in ("yes", "no") else ("true", "false")
    line = clean(_first_line(region))
    first = re.split(r"[\s,.;:!]+", line, maxsplit=1)[0] if line else ""
    for candidate in (line, first):
        if candidate in POLARITY_WORDS:
            return Extraction(vocab[0] if POLARITY_WORDS[candidate] else vocab[1], True, reasoning, {"via": via})
    seen = {POLARITY_WORDS[w] for w in POLARITY_WORDS if _word_re(w).search(region.casefold())}
    if len(seen) == 1:
        return Extraction(vocab[0] if seen.pop() else vocab[1], True, reasoning, {"via": via + "+search"})
    return _fail(reasoning, "both polarities" if seen else "no true/false word")


# ------------------------------------------------------------------------------------------ free text


def extract_free_text(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                      pred: Prediction | None = None) -> Extraction:
    """The whole answer region (translation, summary, open answers) after any `Translation:`/`Terjemahan:`-style
    output tag; empty output = not parsed."""
    region, via, reasoning = _prepare(raw)
    family = "translation" if task.name.startswith(("translation", "lindsea-translation")) else task.name
    tags = OUTPUT_TAGS.get(family)
    if tags:
        found = list(re.finditer(r"(?:\*\*)?(?:" + "|".join(re.escape(t) for t in tags.values())
                                 + r")(?:\*\*)?\s*[:：]", region, re.I))
        if found:
            region, via = region[found[-1].end():], "output_tag"
    if not region.strip():
        return _fail(reasoning, "empty output")
    return Extraction(region.strip(), True, reasoning, {"via": via})


def extract_qa_span(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                    pred: Prediction | None = None) -> Extraction:
    """An extractive-QA answer: first non-empty line of the answer region, trimmed of quotes."""
    region, via, reasoning = _prepare(raw)
    line = _first_line(region).strip(" \t\"'“”‘’*`")
    if not line:
        return _fail(reasoning, "empty output")
    return Extraction(line, True, reasoning, {"via": via})


def extract_ner_tags(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                     pred: Prediction | None = None) -> Extraction:
    """The tagged sentence (`@@TYPE@@span##`), with entities aligned to the gold text and per-type counts.

    extras: `entities` [(type, start, end)] in no-whitespace offsets of the item text, `ner_counts`
    {type: [tp, fp, fn]}, `unaligned` and `stray_markers`.
    """
    from evaluator.metrics.ner import align, entity_counts

    region, via, reasoning = _prepare(raw)
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


def extract_pacute_answer(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                          pred: Prediction | None = None) -> Extraction:
    """PACUTE generation, read as pacute-bench reads it: `<answer>` tag → first line after it; else first line.

    Reasoning (`<think>`, `<reflection>`) is split off first. The answer keeps its case; metrics normalise.
    """
    text, reasoning = split_reasoning(raw)
    lower = text.lower()
    if "<answer>" in lower:
        after = text[lower.index("<answer>") + len("<answer>"):]
        close = after.lower().find("</answer>")
        region, via = (after[:close] if close >= 0 else after), "answer_block"
    else:
        region, via = text, "first_line"
    answer = _first_line(region)
    if not answer:
        return _fail(reasoning, "empty answer")
    return Extraction(answer, True, reasoning, {"via": via})


def extract_option_logprob(raw: str | None, *, task: TaskSpec, lang: str, item: Item | None = None,
                           pred: Prediction | None = None) -> Extraction:
    """MCQ by log-likelihood: argmax of summed option log-probabilities (ties by option text, `argmax_option`).

    Without log-probabilities, falls back to a letter or an option string in the output (flagged in extras).
    """
    options = tuple(item.options or ()) if item is not None else ()
    logprobs = pred.option_logprobs if pred is not None else None
    if logprobs:
        if len(logprobs) != len(options):
            return _fail(None, f"{len(logprobs)} log-probabilities for {len(options)} options")
        best = argmax_option(logprobs, options)
        return Extraction(options[best], True, None,
                          {"via": "logprob", "choice": best, "k": len(options), "length_norm": "none (sum)"})
    region, via, reasoning = _prepare(raw)
    line = _first_line(region)
    m = _LEAD_LETTER.match(line)
    letters = "ABCDEFGH"[: len(options)]
    if m and m.group(1) in letters:
        i = letters.index(m.group(1))
        return Extraction(options[i], True, reasoning, {"via": "text_letter", "choice": i, "k": len(options)})
    folded = [clean(o) for o in options]
    if clean(line) in folded:
        i = folded.index(clean(line))
        return Extraction(options[i], True, reasoning, {"via": "text_option", "choice": i, "k": len(options)})
    return _fail(reasoning, "no log-probabilities and no option in the output", k=len(options))


Extractor = Callable[..., Extraction]

EXTRACTORS: dict[str, Extractor] = {
    "label": extract_label,
    "letter": extract_letter,
    "true_false": extract_true_false,
    "ner_tags": extract_ner_tags,
    "qa_span": extract_qa_span,
    "free_text": extract_free_text,
    "pacute_answer": extract_pacute_answer,
    "option_logprob": extract_option_logprob,
}
"""Extractor by the name used in `TaskSpec.extractor`."""


def extract(task: TaskSpec, item: Item, pred: Prediction) -> Extraction:
    """Run the task's extractor on one prediction."""
    return EXTRACTORS[task.extractor](pred.output, task=task, lang=item.lang, item=item, pred=pred)
