"""When two model names look the same: the key that names are compared by before a new model is accepted.

Two names look alike when they share a key. A name's keys start from its NFKC form with format characters
(Unicode category Cf: zero-width spaces and joiners, direction marks, soft hyphens) removed; each maps it to a
confusables skeleton (Unicode TR39: every character replaced by one member of its class of look-alike characters)
and folds case, in both orders (`name_keys`). `GPT‑5.5` (U+2011), `GPT-5.5` followed by U+200B, `GPТ-5.5`
(Cyrillic Te), `GPT−5.5` (U+2212) and `gpt-5.5` all share a key with `GPT-5.5`. The look-alike
classes are those of the `confusable_homoglyphs` package (Unicode's confusables.txt); only single-character
classes are used, so `rn` against `m` is not caught.
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Iterable


def _visible(text: str) -> str:
    """The text without format characters (Unicode category Cf)."""
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Character -> the representative of its look-alike class (an ASCII member if the class has one, else its
    lowest code point), built once from `confusable_homoglyphs`' data."""
    from confusable_homoglyphs import confusables

    parent: dict[str, str] = {}

    def root(ch: str) -> str:
        while parent.setdefault(ch, ch) != ch:
            parent[ch] = parent[parent[ch]]
            ch = parent[ch]
        return ch

    def rank(ch: str) -> tuple[bool, int]:
        return (not ch.isascii(), ord(ch))

    for ch, glyphs in confusables.confusables_data.items():
        for glyph in glyphs:
            other = _visible(glyph["c"])
            if len(ch) != 1 or len(other) != 1:  # multi-character look-alikes (rn / m) are left out
                continue
            a, b = root(ch), root(other)
            if a != b:
                keep, drop = sorted((a, b), key=rank)
                parent[drop] = keep
    return {ch: root(ch) for ch in parent}


def _skeleton(text: str) -> str:
    table = _prototypes()
    return "".join(table.get(ch, ch) for ch in text)


def name_keys(name: str) -> tuple[str, str]:
    """The keys of a name (see the module docstring): the skeleton of its case-folded skeleton (Cyrillic `Т` is
    `T` before it is folded), and the skeleton of its case-folded form (`O` looks like `0` but `o` does not).
    Surrounding and repeated white space count as one space."""
    text = " ".join(unicodedata.normalize("NFKC", _visible(name)).split())
    return _skeleton(_skeleton(text).casefold()), _skeleton(text.casefold())


def lookalike(name: str, others: Iterable[str]) -> str | None:
    """The first of `others` that is not `name` itself but shares one of its keys (a name it would be mistaken
    for), or None."""
    keys = name_keys(name)
    return next((o for o in others if o != name and any(a == b for a, b in zip(keys, name_keys(o)))), None)
