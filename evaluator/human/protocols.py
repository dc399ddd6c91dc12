"""The rating protocols a campaign can use, declared once as data (BHASA §3.5.2 and Appendix D; ESA).

A criterion has a name, the range of its values and the Krippendorff level of measurement used for agreement.
"""
from __future__ import annotations

from dataclasses import dataclass

from evaluator.registry import TASKS


@dataclass(frozen=True)
class Criterion:
    """One thing an annotator judges about a candidate."""

    name: str
    label: str
    low: float
    high: float
    level: str                      # nominal | ordinal | interval (krippendorff's level_of_measurement)
    required: bool = True


@dataclass(frozen=True)
class Protocol:
    """What the annotation page asks for each candidate, and whether the reference is shown."""

    name: str
    criteria: tuple[Criterion, ...]
    show_reference: bool
    headline: str                   # the criterion reported as the campaign's result


MQM_CATEGORIES = ("accuracy", "terminology", "linguistic_conventions", "style", "locale_conventions")
"""The MQM-style error categories BHASA's translation annotators mark (§3.5.2)."""

MT = Protocol(
    name="mt",
    criteria=(Criterion("correct", "Correct translation", 0, 1, "nominal"),
              *(Criterion(f"err_{c}", f"Error: {c.replace('_', ' ')}", 0, 1, "nominal", required=False)
                for c in MQM_CATEGORIES),
              Criterion("esa", "Overall quality (ESA, 0-100)", 0, 100, "interval", required=False)),
    show_reference=False, headline="correct")

SUMMARISATION = Protocol(
    name="summarisation",
    criteria=(Criterion("relevance", "Relevance (1-5)", 1, 5, "ordinal"),
              Criterion("fluency", "Fluency (1-5)", 1, 5, "ordinal"),
              Criterion("coherence", "Coherence (1-5)", 1, 5, "ordinal"),
              Criterion("faithfulness", "Faithful (0/1)", 0, 1, "nominal")),
    show_reference=False, headline="relevance")

PROTOCOLS = {p.name: p for p in (MT, SUMMARISATION)}
"""Protocols the annotation page runs; `ratings` campaigns (imported CSVs) take their criteria from the file."""

RATINGS = "ratings"
"""The protocol name of a campaign imported from a ratings CSV (Cultural page): one criterion per score column."""

RATINGS_SCALE = (1.0, 5.0)
"""The scale of every imported rating: the five-point scale of BHASA's human judgements (as SUMMARISATION's 1-5
criteria); a rating outside it is refused (store.ratings.parse_ratings, given it by services.campaigns)."""

NOTE_CRITERIA = ("comment", "spans")
"""Judgement rows that carry text in `note` (a comment; ESA error spans as JSON), never a score."""

SEVERITIES = ("minor", "major")
"""Error Span Annotation severities (Kocmi et al., 2024: ESA needs no MQM expert, only minor/major spans)."""


def criteria_of(protocol: str, seen: tuple[str, ...] = ()) -> tuple[Criterion, ...]:
    """The criteria of a protocol; for imported ratings, one interval criterion per score column seen."""
    if protocol in PROTOCOLS:
        return PROTOCOLS[protocol].criteria
    return tuple(Criterion(c, c, *RATINGS_SCALE, "interval") for c in seen if c not in NOTE_CRITERIA)


def headline_of(protocol: str) -> str | None:
    """The criterion automatic metrics are compared with (None for imported ratings)."""
    return PROTOCOLS[protocol].headline if protocol in PROTOCOLS else None


def check_spans(spans: object, text: str) -> tuple[list[dict], str | None]:
    """ESA error spans [{start, end, severity}] checked against the candidate text: (clean spans, why refused)."""
    if not isinstance(spans, (list, tuple)) or len(spans) > 50:
        return [], "spans: a list of at most 50 spans"
    clean = []
    for n, span in enumerate(spans, start=1):
        if not isinstance(span, dict):
            return [], f"span {n}: not a span"
        start, end, severity = span.get("start"), span.get("end"), span.get("severity")
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (start, end)):
            return [], f"span {n}: start and end must be whole numbers"
        if not 0 <= start < end <= len(text):
            return [], f"span {n}: {start}-{end} outside the candidate (0-{len(text)})"
        if severity not in SEVERITIES:
            return [], f"span {n}: severity must be minor or major, not {str(severity)[:20]!r}"
        clean.append({"start": start, "end": end, "severity": severity})
    return clean, None


def protocol_for(task: str, name: str | None = None) -> Protocol:
    """The protocol named, else the task's own (`TaskSpec.human_protocol`); ValueError when neither fits."""
    if name:
        if name not in PROTOCOLS:
            raise ValueError(f"protocol: unknown {name!r} (known: {', '.join(PROTOCOLS)})")
        return PROTOCOLS[name]
    spec = TASKS.get(task)
    if spec is not None and spec.human_protocol in PROTOCOLS:
        return PROTOCOLS[spec.human_protocol]
    raise ValueError(f"protocol: task {task!r} has no default protocol; pass one of {', '.join(PROTOCOLS)}")


def check_value(protocol: Protocol, criterion: str, value: float) -> str | None:
    """Why a judgement value is not acceptable for the protocol, or None when it is."""
    crit = next((c for c in protocol.criteria if c.name == criterion), None)
    if crit is None:
        return f"unknown criterion {criterion!r} for protocol {protocol.name}"
    if not (crit.low <= value <= crit.high):
        return f"{criterion}: {value} outside {crit.low:g}-{crit.high:g}"
    if crit.level != "interval" and value != int(value):
        return f"{criterion}: {value} is not a whole number"
    return None
