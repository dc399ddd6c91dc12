"""The rating protocols a campaign can use, declared once as data (BHASA §3.5.2 and Appendix D; ESA).

A criterion has a name, the range of its values and the Krippendorff level of measurement used for agreement.
"""
from __future__ import annotations

from dataclasses import dataclass


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
"""Protocols by name; `ratings` campaigns (imported CSVs) take their criteria from the file."""

TASK_PROTOCOLS = {"translation": "mt", "abssum": "summarisation", "summar": "summarisation"}
"""Task-id substrings that pick a protocol when none is given."""


def protocol_for(task: str, name: str | None = None) -> Protocol:
    """The protocol named, else the one a task id implies; ValueError when neither fits."""
    if name:
        if name not in PROTOCOLS:
            raise ValueError(f"protocol: unknown {name!r} (known: {', '.join(PROTOCOLS)})")
        return PROTOCOLS[name]
    for key, proto in TASK_PROTOCOLS.items():
        if key in task:
            return PROTOCOLS[proto]
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
