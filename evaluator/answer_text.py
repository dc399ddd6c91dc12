"""Reading answer text: reasoning blocks, answer regions, and words found with their negations.

The rules (stated on the Methodology page, tested in tests/app/test_extract_table.py):
- `<think>`/`<reflection>` blocks are split off and kept as the reasoning trace. A block that never closes runs to
  the end of the output: the model never gave a final answer, so nothing in it is read as one (SEA-HELM keeps such
  text and reads the first tag inside the draft).
- An `<answer>…</answer>` block, else every answer tag (`Answer:`, `Jawaban:`, `Câu trả lời:`, `คำตอบ:`, `பதில்:`,
  `Sagot:`, from the language entries) opens a region that runs to the next tag; without either, the whole text.
- A word preceded by a negator of its language (`bukan`, `tidak`, `không`, `ไม่`, `not`) or followed by one (Tamil
  `அல்ல`, `இல்லை`) is *negated*: it is never read as the word it negates.
"""
from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable

from evaluator import languages

_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.S | re.I)
_REFLECTION = re.compile(r"<reflection>(.*?)(?:</reflection>|$)", re.S | re.I)
_ANSWER_BLOCK = re.compile(r"<answer>(.*?)(?:</answer>|$)", re.S | re.I)
EDGE_JUNK = " \t\r\n*_`\"'“”‘’«»()[]{}.,;:!?。、"
_LETTERS = r"\w\u0B80-\u0BFF\u0E00-\u0E7F\u0300-\u036F"
"""Word characters for boundaries: \\w misses Tamil and Thai vowel signs and combining accents."""


def nfc(text: str | None) -> str:
    """Text with composed diacritics (NFD `Câu trả lời` reads as NFC); "" for None."""
    return unicodedata.normalize("NFC", text) if text else ""


def _unclosed(text: str, tag: str) -> bool:
    low = text.lower()
    return low.rfind(f"<{tag}>") > low.rfind(f"</{tag}>")


def split_reasoning_state(raw: str | None) -> tuple[str, str | None, bool]:
    """(text without reasoning blocks, their text or None, whether a block never closed).

    A dangling `</think>` (the opening tag was part of the prompt) makes everything before it reasoning.
    """
    text = raw or ""
    traces: list[str] = []
    if "</think>" in text.lower() and "<think>" not in text.lower():
        cut = text.lower().index("</think>")
        traces.append(text[:cut].strip())
        text = text[cut + len("</think>"):]
    unclosed = _unclosed(text, "think") or _unclosed(text, "reflection")
    for pattern in (_THINK, _REFLECTION):
        traces.extend(m.group(1).strip() for m in pattern.finditer(text))
        text = pattern.sub("", text)
    reasoning = "\n\n".join(t for t in traces if t) or None
    return text.strip(), reasoning, unclosed


_CLOSE = re.compile(r"</(?:think|reflection)>", re.I)


def after_reasoning(raw: str | None) -> str | None:
    """The text after the last closed `<think>`/`<reflection>` block (the whole text when there is none), or None
    when a reasoning block never closes: the model gave no final answer, so nothing is read (PACUTE paper: the
    evaluator "extracts only the answer before scoring")."""
    text = raw or ""
    if _unclosed(text, "think") or _unclosed(text, "reflection"):
        return None
    closes = list(_CLOSE.finditer(text))
    return text[closes[-1].end():] if closes else text


def clean(s: str) -> str:
    """Case-fold and trim markdown, quotes and punctuation from both ends."""
    return s.strip(EDGE_JUNK).strip().casefold()


def first_line(s: str) -> str:
    """The first non-blank line, stripped."""
    for line in s.splitlines():
        if line.strip():
            return line.strip()
    return ""


def tags_pattern(tags: Iterable[str]) -> str:
    """A pattern for any of `tags` followed by its end mark: `:` or `：`, or one of the language's own marks
    (`Language.tag_marks`: Burmese `အဖြေ-`, Khmer `ការបរប្រែ៖`); longest tags first."""
    return _tags_pattern(tuple(sorted(dict.fromkeys(tags), key=len, reverse=True)))


@functools.lru_cache(maxsize=64)
def _tags_pattern(tags: tuple[str, ...]) -> str:
    alternatives = []
    for tag in tags:
        marks = ":：" + languages.tag_marks(tag)
        alternatives.append(re.escape(tag) + r"(?:\*\*)?\s*[" + "".join(re.escape(m) for m in marks) + "]")
    return "(?:" + "|".join(alternatives) + ")"


def _tag_re() -> re.Pattern[str]:
    return re.compile(r"(?:\*\*)?(?:final\s+)?" + tags_pattern(languages.all_answer_tags()), re.I)


TAG_RE = _tag_re()


def answer_regions(text: str) -> tuple[list[str], str]:
    """The parts of a (reasoning-free) output that may hold the answer, and how they were found.

    Each `<answer>` block; else the text after each answer tag up to the next one; else the whole text.
    """
    blocks = [m.group(1).strip() for m in _ANSWER_BLOCK.finditer(text)]
    if blocks:
        return blocks, "answer_block"
    tags = list(TAG_RE.finditer(text))
    if tags:
        ends = [m.start() for m in tags[1:]] + [len(text)]
        return [text[m.end():end].strip() for m, end in zip(tags, ends)], "answer_tag"
    return [text.strip()], "whole"


def output_tag_region(text: str, tags: list[str]) -> str | None:
    """Text after the last of the given output tags (`Translation:`, `Terjemahan:`), or None when there is none."""
    if not tags:
        return None
    found = list(re.finditer(r"(?:\*\*)?" + tags_pattern(tags), text, re.I))
    return text[found[-1].end():] if found else None


# ------------------------------------------------------------------------------------------ words


@dataclass(frozen=True)
class Hit:
    """One answer word found in a region."""

    word: str
    value: object
    """What the word means (a label, a polarity, a letter)."""
    start: int
    end: int
    negated_by: str | None = None
    """The negator that negates this word, if any."""
    negator_span: tuple[int, int] | None = None
    """Where that negator sits in the text."""


def is_latin(word: str) -> bool:
    """Whether every letter of `word` is Latin (Vietnamese included): such words need word boundaries."""
    return all(not ch.isalpha() or ord(ch) < 0x250 or 0x1E00 <= ord(ch) <= 0x1EFF for ch in word)


@functools.cache
def word_re(word: str) -> re.Pattern[str]:
    """A pattern for `word`: Latin words not glued to other letters; Thai and Tamil words anywhere (no spaces
    between words, and vowel signs defeat \\b)."""
    if is_latin(word):
        return re.compile(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", re.I)
    return re.compile(re.escape(word))


@functools.cache
def negators(lang: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(before, after) negators of the language and of English, longest first."""
    entries = languages.with_english(lang)
    before = {n.casefold() for e in entries for n in e.negation_before}
    after = {n.casefold() for e in entries for n in e.negation_after}
    return tuple(sorted(before, key=len, reverse=True)), tuple(sorted(after, key=len, reverse=True))


_GAP = r"[\s*_`\"'“”‘’]*"


_Patterns = tuple[tuple[str, re.Pattern[str]], ...]


@functools.cache
def _negator_patterns(lang: str) -> tuple[_Patterns, _Patterns]:
    before, after = negators(lang)
    return (tuple((neg, re.compile((r"(?<![" + _LETTERS + r"])" if is_latin(neg) else "")  # Thai negators glue on
                                   + re.escape(neg) + _GAP + r"$", re.I)) for neg in before),
            tuple((neg, re.compile(_GAP + re.escape(neg) + r"(?![" + _LETTERS + r"])", re.I)) for neg in after))


def negator_of(text: str, start: int, end: int, lang: str) -> tuple[str, int, int] | None:
    """The negator right before `text[start:end]` (or, for languages that negate after, right after it), with
    its span in `text`; None when the word is not negated."""
    before, after = _negator_patterns(lang)
    head = text[max(0, start - 40):start]  # negators are short: look at the words just before
    offset = start - len(head)
    for neg, pattern in before:
        m = pattern.search(head)
        if m:
            return neg, offset + m.start(), offset + m.start() + len(neg)
    for neg, pattern in after:
        m = pattern.match(text, end)
        if m:
            return neg, m.end() - len(neg), m.end()
    return None


def find_words(text: str, words: dict[str, object], lang: str) -> list[Hit]:
    """Every occurrence of `words` in `text` (longest first, so "non-toxic" is not also read as "toxic"), in text
    order, with the negator that negates each. A negator that is itself an answer word ("tidak" = no, "இல்லை" =
    no) and negates its neighbour is dropped: "tidak benar" is one negated "benar", not "no" and "true"."""
    folded = text.casefold()
    masked = folded
    hits: list[Hit] = []
    for word in sorted(words, key=len, reverse=True):
        pattern = word_re(word)
        for m in pattern.finditer(masked):
            neg = negator_of(folded, m.start(), m.end(), lang)
            hits.append(Hit(word, words[word], m.start(), m.end(), neg[0] if neg else None,
                            neg[1:] if neg else None))
        masked = pattern.sub(lambda m: " " * len(m.group(0)), masked)
    spans = [h.negator_span for h in hits if h.negator_span]
    return sorted((h for h in hits if not any(s <= h.start and h.end <= e for s, e in spans)),
                  key=lambda h: h.start)


def echoes_choices(text: str, hits: list[Hit], lang: str) -> bool:
    """Whether two different answers are joined by "or" (`Benar atau Salah`, `உண்மை அல்லது பொய்`): the model
    repeated the choice list instead of choosing."""
    ors = {w.casefold() for e in languages.with_english(lang) for w in e.or_words}
    for a, b in zip(hits, hits[1:]):
        if a.value != b.value:
            gap = clean(text[a.end:b.start].casefold())
            if gap in ors or gap.strip(" ,/") in ors or text[a.end:b.start].strip() == "/":
                return True
    return False
