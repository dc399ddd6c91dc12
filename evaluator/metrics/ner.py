"""NER from inline-tagged output: parse `@@TYPE@@span##` (BHASA Table 3) and `@@span##`, align to the gold text
tolerating lost or merged whitespace, then strict entity-level micro F1 (seqeval-style: type and exact
boundaries must both match) with a per-label breakdown.

Alignment works on the text with all whitespace removed: when the model reproduces the sentence, entity
boundaries map one-to-one; when it changed characters, difflib's longest matching blocks map what survived, and
an entity whose first or last character cannot be mapped counts as a false positive.
"""
from __future__ import annotations

import difflib
import re
from collections import defaultdict
from typing import Any, Iterable, Mapping, Sequence

from evaluator.metrics.base import MetricSpec, register

_TAG = re.compile(r"@@\s*([A-Za-z][A-Za-z_\- ]{0,30}?)\s*@@(.+?)##|@@(.+?)##", re.S)
TYPE_ALIASES = {"ORGANIZATION": "ORGANISATION", "ORG": "ORGANISATION", "PER": "PERSON", "LOC": "LOCATION"}
"""Spelling variants read as the same entity type (both sides are canonicalised)."""


def canon_type(t: str | None) -> str | None:
    """Upper-case entity type with spaces/hyphens as underscores and known aliases merged."""
    if t is None:
        return None
    t = re.sub(r"[\s\-]+", "_", t.strip()).upper()
    return TYPE_ALIASES.get(t, t)


def parse_tagged(output: str) -> tuple[str, list[tuple[str | None, int, int]], int]:
    """(plain text, [(type or None, start, end)] in plain-text offsets, count of stray @@/## markers)."""
    plain: list[str] = []
    spans = []
    pos = length = 0
    for m in _TAG.finditer(output):
        before = output[pos:m.start()]
        plain.append(before)
        length += len(before)
        etype, span = (m.group(1), m.group(2)) if m.group(2) is not None else (None, m.group(3))
        spans.append((canon_type(etype), length, length + len(span)))
        plain.append(span)
        length += len(span)
        pos = m.end()
    plain.append(output[pos:])
    text = "".join(plain)
    stray = text.count("@@") + text.count("##")
    if stray:  # drop leftover markers without moving entity offsets: replace by spaces (whitespace is ignored)
        text = text.replace("@@", "  ").replace("##", "  ")
    return text, spans, stray


def _nows_index(text: str) -> tuple[str, list[int]]:
    """Text without whitespace, and for each original char the index of the next non-ws char."""
    chars, nxt = [], []
    for ch in text:
        nxt.append(len(chars))
        if not ch.isspace():
            chars.append(ch)
    nxt.append(len(chars))
    return "".join(chars), nxt


def _nows_span(nxt: list[int], start: int, end: int) -> tuple[int, int] | None:
    s, e = nxt[start], nxt[end]  # half-open in no-whitespace coordinates
    return (s, e) if e > s else None


def align(output: str, text: str) -> tuple[list[tuple[str | None, int, int]], int, int]:
    """Predicted entities as (type, start, end) in no-whitespace offsets of the gold text, unaligned count, stray."""
    plain, spans, stray = parse_tagged(output)
    p_str, p_nxt = _nows_index(plain)
    t_str, _ = _nows_index(text)
    if p_str == t_str:
        mapping = None
    else:
        mapping = {}
        for a, b, size in difflib.SequenceMatcher(None, p_str, t_str, autojunk=False).get_matching_blocks():
            for k in range(size):
                mapping[a + k] = b + k
    out, unaligned = [], 0
    for etype, start, end in spans:
        span = _nows_span(p_nxt, start, end)
        if span is None:
            continue
        s, e = span
        if mapping is not None:
            if s not in mapping or (e - 1) not in mapping:
                unaligned += 1
                continue
            s, e = mapping[s], mapping[e - 1] + 1
        out.append((etype, s, e))
    return out, unaligned, stray


def gold_entities(text: str, gold: Iterable[Mapping[str, Any]]) -> list[tuple[str | None, int, int]]:
    """Gold spans ({type, start, end} char offsets into `text`) in no-whitespace offsets."""
    _, nxt = _nows_index(text)
    out = []
    for g in gold:
        span = _nows_span(nxt, int(g["start"]), int(g["end"]))
        if span:
            out.append((canon_type(g["type"]), *span))
    return out


def entity_counts(output: str | None, text: str, gold: Iterable[Mapping[str, Any]]) -> dict[str, list[int]]:
    """Per entity type [tp, fp, fn] for one item (strict match on type and boundaries)."""
    gold_set = set(gold_entities(text, gold))
    pred: set = set()
    unaligned = 0
    if output:
        aligned, unaligned, _ = align(output, text)
        pred = set(aligned)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for e in pred:
        counts[e[0] or "?"][0 if e in gold_set else 1] += 1
    for e in gold_set - pred:
        counts[e[0] or "?"][2] += 1
    if unaligned:
        counts["?"][1] += unaligned
    return dict(counts)


def _f1(tp: int, fp: int, fn: int) -> float:
    return 2 * tp / (2 * tp + fp + fn) if (tp + fp + fn) else 1.0


def _item_counts(answer: str | None, gold: Any, extras: Mapping[str, Any]) -> dict[str, list[int]]:
    if "ner_counts" in extras:
        return extras["ner_counts"]
    return entity_counts(answer, str((extras.get("inputs") or {}).get("text", "")), gold or [])


def per_label(rows: Sequence[tuple]) -> dict[str, dict[str, float]]:
    """Per entity type: precision, recall, F1 and support over a cell's rows."""
    total: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for answer, gold, extras in rows:
        for label, (tp, fp, fn) in _item_counts(answer, gold, extras).items():
            t = total[label]
            t[0] += tp
            t[1] += fp
            t[2] += fn
    out = {}
    for label, (tp, fp, fn) in sorted(total.items()):
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        out[label] = {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0,
                      "support": tp + fn}
    return out


def ner_micro_f1(rows: Sequence[tuple]) -> float:
    """Strict entity-level micro F1 over all items of a cell."""
    tp = fp = fn = 0
    for answer, gold, extras in rows:
        for a, b, c in _item_counts(answer, gold, extras).values():
            tp, fp, fn = tp + a, fp + b, fn + c
    return _f1(tp, fp, fn)


def ner_item_f1(answer: str | None, gold: Any, *, lang: str = "", item: Any = None) -> float:
    """Strict entity F1 of one sentence (1.0 when neither gold nor prediction has entities)."""
    text = str((item.inputs or {}).get("text", "")) if item is not None else ""
    tp = fp = fn = 0
    for a, b, c in entity_counts(answer, text, gold or []).values():
        tp, fp, fn = tp + a, fp + b, fn + c
    return _f1(tp, fp, fn)


def per_label_text(rows: Sequence[tuple]) -> str:
    """"F1 by type: PERSON 80.0 (n=10), PLACE 50.0 (n=4)" for a cell note ("?" = untyped or unaligned)."""
    parts = [f"{label} {100 * v['f1']:.1f} (n={v['support']})" for label, v in per_label(rows).items()]
    return "F1 by type: " + ", ".join(parts) if parts else ""


NER_F1 = register(MetricSpec(
    name="ner_f1", display="Strict NER F1", item=ner_item_f1, corpus=ner_micro_f1, chance="zero",
    detail=per_label_text,
    description="Entities read from `@@TYPE@@span##` (or `@@span##`, untyped: never a match) and aligned to the "
                "gold sentence ignoring whitespace; an entity counts only with the exact type and boundaries. "
                "Micro F1 over all entities of the cell; per-label P/R/F1 are kept per item.",
    reference="BHASA paper Table 3/§3.6.1; seqeval strict mode (entity-level micro F1)"))
