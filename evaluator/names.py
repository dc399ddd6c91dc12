"""When two model names look the same: the key that names are compared by before a new model is accepted.

A name's key is its NFKC form with format characters (Unicode category Cf: zero-width spaces and joiners,
direction marks, soft hyphens) removed, mapped to a confusables skeleton (Unicode TR39: every character replaced by
one member of its class of look-alike characters), case-folded and mapped again. `GPT‑5.5` (U+2011), `GPT-5.5`
followed by U+200B, `GPТ-5.5` (Cyrillic Te) and `GPT−5.5` (U+2212) all have the key of `GPT-5.5`. The look-alike
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


def name_key(name: str) -> str:
    """The key two names that look alike share (see the module docstring); surrounding and repeated white space
    count as one space."""
    text = " ".join(unicodedata.normalize("NFKC", _visible(name)).split())
    return _skeleton(_skeleton(text).casefold())


def lookalike(name: str, others: Iterable[str]) -> str | None:
    """The first of `others` that is not `name` itself but has its key (a name it would be mistaken for), or None."""
    key = name_key(name)
    return next((o for o in others if o != name and name_key(o) == key), None)
