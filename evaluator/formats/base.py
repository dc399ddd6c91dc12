"""The shape every result-file parser returns."""
from __future__ import annotations

from dataclasses import dataclass, field

from evaluator.spec import Prediction


@dataclass(frozen=True)
class FormatError:
    """A problem in an input file, located precisely enough to fix it."""

    file: str
    line: int | None
    """1-based line number (None for whole-file problems)."""
    field: str | None
    problem: str

    def __str__(self) -> str:
        loc = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{loc}: {self.field}: {self.problem}" if self.field else f"{loc}: {self.problem}"


@dataclass
class ParsedFile:
    """Predictions parsed from one file, with the errors and warnings found on the way."""

    name: str
    format: str
    predictions: list[Prediction] = field(default_factory=list)
    errors: list[FormatError] = field(default_factory=list)
    warnings: list[FormatError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors
