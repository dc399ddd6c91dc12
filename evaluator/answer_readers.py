"""Region readers of the closed-answer extractors: one answer region → (answer, via, "") or (None, kind, why).

`kind` is EMPTY (nothing to read: ignored when another region answers) or CONFLICT (a non-answer: negated,
echoed choices, several answers; the output is unparsed). Words come from the language entries.
"""
from __future__ import annotations

import functools
import re
import unicodedata

from evaluator import languages
from evaluator.answer_text import EDGE_JUNK, Hit, clean, echoes_choices, find_words, first_line, negator_of, nfc
from evaluator.spec import Item, Prediction, TaskSpec

EMPTY = "empty"
"""Failure kind of a region with nothing to read (ignored when another region holds an answer)."""
CONFLICT = "conflict"
"""Failure kind of a region that holds a non-answer (negated, echoed, several): the output is unparsed."""


def label_words(task: TaskSpec, lang: str) -> dict[str, str]:
    """Accepted words → canonical label for this task and language (English + native, restricted to the label set)."""
    return _label_words(lang, tuple(task.labels.get(lang, ())))


@functools.cache
def _label_words(lang: str, allowed: tuple[str, ...]) -> dict[str, str]:
    return {w: lab for entry in languages.with_english(lang) for w, lab in entry.label_words.items()
            if lab in allowed}


def single_letters(task: TaskSpec, lang: str) -> dict[str, str]:
    entry = languages.get(lang)
    allowed = set(task.labels.get(lang, ()))
    return {k: v for k, v in (entry.single_letter_labels if entry else {}).items() if v in allowed}


def read_label(region: str, words: dict[str, str], single: dict[str, str], lang: str):
    line = clean(first_line(region))
    if line in words:
        return words[line], "", ""
    if line in single:
        return single[line], "", ""
    hits = find_words(region, words, lang)  # type: ignore[arg-type]
    said = [h for h in hits if h.negated_by is None]
    negated = [h for h in hits if h.negated_by is not None]
    if echoes_choices(region, hits, lang):
        return None, CONFLICT, "echoed the choices: " + ", ".join(dict.fromkeys(str(h.value) for h in hits))
    labels = list(dict.fromkeys(str(h.value) for h in said))
    if len(labels) == 1:
        return labels[0], "+search", ""
    if labels:
        return None, CONFLICT, "several labels: " + ", ".join(labels)
    if negated:
        return None, CONFLICT, f"negated label: {negated[0].negated_by} {negated[0].word}"
    return None, EMPTY, "no label word"


@functools.cache
def option_words(lang: str) -> tuple[str, ...]:
    return tuple(sorted({w for e in languages.with_english(lang) for w in e.option_words}, key=len, reverse=True))


@functools.cache
def lead_letter_re(lang: str) -> re.Pattern[str]:
    words = "|".join(re.escape(w) for w in option_words(lang))
    prefix = rf"(?:(?:{words})\s*)?" if words else ""
    return re.compile(r"^[\s*_`\"'(\[]*" + prefix + r"\(?([A-Z])\b(?!['’-]\w)")


def task_letters(task: TaskSpec, lang: str, item: Item | None) -> tuple[str, ...]:
    labels = task.labels.get(lang)
    if labels:
        return tuple(labels)
    n = len(item.options) if item is not None and item.options else 4
    return tuple("ABCDEFGH"[:n])


def _lone_letters(text: str, letters: tuple[str, ...], lang: str) -> tuple[set[str], set[str]]:
    """(letters standing alone, those of them negated: "Bukan A"); short texts (they repeat) are cached."""
    said, negated = (_lone_letters_short if len(text) <= 512 else _lone_letters_text)(text, letters, lang)
    return set(said), set(negated)


def _lone_letters_text(text: str, letters: tuple[str, ...], lang: str) -> tuple[frozenset[str], frozenset[str]]:
    said, negated = set(), set()
    folded = text.casefold()
    for m in re.finditer(r"(?<![\w'’])([A-Z])(?![\w'’])", text):
        if m.group(1) in letters:
            (negated if negator_of(folded, m.start(), m.end(), lang) else said).add(m.group(1))
    return frozenset(said), frozenset(negated - said)


_lone_letters_short = functools.lru_cache(maxsize=8192)(_lone_letters_text)


def _lower_letter(line: str, letters: tuple[str, ...], lang: str) -> str | None:
    """A lower-case letter that is the whole answer ("c", "(b)", "**a**", "pilihan c", "b) ...")."""
    body = clean(line)
    for word in option_words(lang):
        if body.startswith(word.casefold()):
            body = body[len(word):].strip(EDGE_JUNK)
    m = re.fullmatch(r"([a-h])", body) or re.match(r"([a-h])[.):]\s", clean(line) + " ")
    letter = m.group(1).upper() if m else None
    return letter if letter in letters else None


@functools.cache
def native_letters(lang: str) -> dict[str, str]:
    """The language's own option letters → A, B, C, ... (`Language.option_letters`: Burmese က → A, ခ → B)."""
    entry = languages.get(lang)
    return {letter: "ABCDEFGH"[i] for i, letter in enumerate(entry.option_letters[:8])} if entry else {}


def _joined(ch: str) -> bool:
    """Whether `ch` continues a word (a letter or a combining sign): a letter followed by one is a syllable."""
    return unicodedata.category(ch)[0] in "LM"


def read_native_letter(line: str, lang: str) -> tuple[str | None, str]:
    """(Latin letter, "") for an answer line that starts with one of the language's own option letters standing
    alone ("ခ", "**ခ**", "(က)", "ဂ- ..."), as SEA-HELM reads the letter right after its answer tag; (None, why)
    when the line lists two letters with "or" (an echoed choice list), (None, "") when it starts with no such
    letter. Inside a sentence a Burmese letter is also a word (the particle က), so only the first counts."""
    letters = native_letters(lang)
    body = line.lstrip(EDGE_JUNK)
    for letter in sorted(letters, key=len, reverse=True):
        rest = body[len(letter):]
        if body.startswith(letter) and not (rest and _joined(rest[0])):
            after = clean(rest).split()
            ors = {w.casefold() for e in languages.with_english(lang) for w in e.or_words}
            if len(after) >= 2 and after[0] in ors and after[1].strip(EDGE_JUNK) in letters:
                return None, "echoed the choices: " + letter + " / " + after[1]
            return letters[letter], ""
    return None, ""


def read_letter(region: str, letters: tuple[str, ...], lang: str, item: Item | None, pred: Prediction | None):
    line = first_line(region)
    native, echoed = read_native_letter(line, lang) if native_letters(lang) else (None, "")
    if echoed:
        return None, CONFLICT, echoed
    if native in letters:
        return native, "+native_letter", ""
    m = lead_letter_re(lang).match(line)
    lone, negated = _lone_letters(line, letters, lang)
    if m and m.group(1) in letters and lone <= {m.group(1)} and m.group(1) not in negated:
        return m.group(1), "", ""
    lower = _lower_letter(line, letters, lang)
    if lower:
        return lower, "+lower_case", ""
    lone, negated = _lone_letters(region, letters, lang)
    if len(lone) == 1:
        return lone.pop(), "+search", ""
    if lone:
        return None, CONFLICT, "several letters: " + ", ".join(sorted(lone))
    if negated:
        return None, CONFLICT, "negated letter: " + ", ".join(sorted(negated))
    if item is not None and item.options:
        shown = list(item.options)[::-1] if pred is not None and pred.order == "ba" else list(item.options)
        folded = [clean(nfc(str(o))) for o in shown]
        if clean(line) in folded and folded.count(clean(line)) == 1:
            return letters[folded.index(clean(line))], "+option_text", ""
    return None, EMPTY, "no letter"


@functools.cache
def polarity_words(lang: str) -> dict[str, bool]:
    """True/False and Yes/No words accepted for `lang`: English and the language's own."""
    return {w: v for e in languages.with_english(lang) for w, v in e.polarity_words.items()}


def read_polarity(region: str, words: dict[str, bool], lang: str):
    line = clean(first_line(region))
    if line in words:
        return words[line], "", ""
    hits = find_words(region, words, lang)  # type: ignore[arg-type]
    if echoes_choices(region, hits, lang):
        return None, CONFLICT, "echoed the choices: " + " / ".join(dict.fromkeys(h.word for h in hits))
    said = {h.value for h in hits if h.negated_by is None}
    lead: Hit | None = hits[0] if hits and hits[0].start == len(region) - len(region.lstrip(EDGE_JUNK)) else None
    if lead is not None and lead.negated_by is None:
        return lead.value, "", ""  # "Salah. ... benar ..." answers first, explains after
    if len(said) == 1:
        return said.pop(), "+search", ""
    if said:
        return None, CONFLICT, "both polarities"
    negated = [h for h in hits if h.negated_by]
    if negated:
        return None, CONFLICT, f"negated answer: {negated[0].word} {negated[0].negated_by}"
    return None, EMPTY, "no true/false word"


def read_span(region: str):
    line = first_line(region).strip(" \t\"'“”‘’*`")
    return (line, "", "") if line else (None, EMPTY, "empty output")
