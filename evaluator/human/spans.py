"""Error Span Annotation (ESA; Kocmi et al., 2024) spans from the annotation page's word choices, pure.

The page lists a candidate's words (segmented as the language's entry says: PyThaiNLP newmm for Thai, whitespace
otherwise) and the annotator picks the words of minor and of major errors; adjacent picked words of one severity
become one span. Spans are character offsets into the candidate text, checked again by
`protocols.check_spans` before they are written.
"""
from __future__ import annotations

import re

from evaluator import languages


def segments(text: str, lang: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of the words of `text`, in order, whitespace excluded."""
    entry = languages.get(lang)
    if entry is not None and entry.tokenizer == "newmm":
        from pythainlp.tokenize import word_tokenize

        out, at = [], 0
        for token in word_tokenize(text, engine="newmm", keep_whitespace=True):
            if token.strip():
                out.append((at, at + len(token)))
            at += len(token)
        return out
    return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


def spans_from_words(words: list[tuple[int, int]], minor: list[int], major: list[int]) -> list[dict]:
    """Spans [{start, end, severity}] from picked word indices; a word picked as both counts as major; adjacent
    words of one severity merge into one span."""
    severity = {i: "minor" for i in minor if 0 <= i < len(words)}
    severity |= {i: "major" for i in major if 0 <= i < len(words)}
    spans: list[dict] = []
    previous = None
    for i in sorted(severity):
        start, end = words[i]
        if spans and previous == i - 1 and spans[-1]["severity"] == severity[i]:
            spans[-1]["end"] = end
        else:
            spans.append({"start": start, "end": end, "severity": severity[i]})
        previous = i
    return spans
