"""What every foreign-format parser returns: rows as found in the file, before they are mapped onto our items."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from evaluator.formats.limits import FormatError
from evaluator.spec import Prediction


@dataclass(frozen=True)
class Row:
    """One per-item output read from a file, with what is needed to find our item for it."""

    prediction: Prediction
    """The output; `task`/`item_id` are the file's own (task already resolved to our id when known)."""
    line: int
    """1-based line in `file` (for unmatched-row reports)."""
    texts: tuple[str, ...] = ()
    """Input texts found in the row (question, prompt, doc fields), hashed to match items whose ids differ."""
    fields: Mapping[str, str] = field(default_factory=dict)
    """The same inputs by the file's field name (`premise`, `sentence2`, `context`...): a content match is refused
    when a field our item also has says something else (e.g. the same premise with another hypothesis)."""
    own_id: bool = True
    """False when the row's id is the tool's own numbering (SEA-HELM integers, lm-eval `doc_id`), never ours."""
    file_task: str = ""
    """Task name exactly as the file gives it (shown when it is unknown)."""
    choices: tuple[str, ...] | None = None
    """Option texts in the file's order for log-probability rows, to align them with our options by text."""
    choice_labels: tuple[str, ...] | None = None
    """For rows whose choices stand for labels rather than our option texts (lm-eval XNLI: "premise, right? Yes,
    hypothesis"), the label of each choice in the file's order (entailment / neutral / contradiction)."""
    label: str | None = None
    """The file's gold letter for binary-choice rows ("A"/"B"): when it differs from ours, the options were
    presented swapped, so the row is filed under order "ba"."""


@dataclass(frozen=True)
class SummaryScore:
    """A score from a summary file (SEA-HELM / lm-eval results JSON, pacute-bench evaluation_results): self-reported."""

    task: str
    lang: str
    metric: str
    value: float
    """As the file gives it (its own scale)."""
    prompt_lang: str = "native"
    n_items: int | None = None
    """The number of items the file says the score is over, when it says (checked against our items)."""


@dataclass
class ParsedRows:
    """The outcome of parsing one file of a foreign format."""

    file: str
    """File name (archive members as `archive.zip!member`)."""
    format: str
    """Format key: pacute-bench, pacute-bench-summary, seahelm, seahelm-summary, lm-eval, lm-eval-summary."""
    rows: list[Row] = field(default_factory=list)
    errors: list[FormatError] = field(default_factory=list)
    """Problems that reject the file."""
    warnings: list[FormatError] = field(default_factory=list)
    """Problems that do not (unknown tasks, duplicates, missing items, incomplete runs)."""
    summary: list[SummaryScore] = field(default_factory=list)
    model_hint: str | None = None
    """Model name found in the file or its path, if any."""
    other_version: str | None = None
    """The task whose rows are of another suite version than our items (not imported; a folder's summary scores of
    that task are dropped too), if any."""
    model_meta: dict[str, str] = field(default_factory=dict)
    """Model metadata the file states (evaluator.formats.model_meta), e.g. {"model_type": "instruct"}."""

    def error(self, line: int | None, fld: str | None, problem: str) -> None:
        self.errors.append(FormatError(self.file, line, fld, problem))

    def warn(self, line: int | None, fld: str | None, problem: str) -> None:
        self.warnings.append(FormatError(self.file, line, fld, problem))


def each_row(out: ParsedRows, data, limits, fn) -> None:
    """Run `fn(line_no, obj) -> Row | None` over every JSONL line of `data` (bytes or a `Source`), collecting
    errors instead of raising; stops after `limits.max_errors` errors (saying how many lines were not checked)
    or `limits.max_rows` rows."""
    from evaluator.formats.limits import RowError, json_lines
    from evaluator.formats.source import Source

    for line_no, obj, err in json_lines(data, out.file, limits):
        if len(out.errors) >= limits.max_errors:
            rest = max(Source.of(data).count_lines() - line_no + 1, 1)
            out.error(line_no, None, f"stopped after {len(out.errors)} errors; {rest:,} more line(s) from here "
                                     "on not checked")
            return
        if err is not None:
            out.errors.append(err)
            continue
        try:
            row = fn(line_no, obj)
        except RowError as e:
            out.error(line_no, e.field, e.problem)
            continue
        if row is not None:
            if len(out.rows) >= limits.max_rows:
                out.error(line_no, None, f"more than {limits.max_rows:,} rows in this upload; split it")
                return
            out.rows.append(row)
    if not out.rows and not out.errors:
        out.error(None, None, "no result rows in file")
