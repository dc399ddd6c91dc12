"""Data-leakage signals per cell (model, task, language, prompt language): evidence that a score may be memorised.

A `LeakSignal` is one signal's verdict on one cell, the shape every source of leakage evidence shares and
`store.leakage` stores one row of (table `leakage_signals`): signals read from the stored outputs alone
(`evaluator.leakage.outputs`), a model card's declared benchmark exposure (`evaluator.leakage.declared`), and the
probes of the `leakage` run mode, which ask the model. A signal lists the items it flags so a reader can judge; a
flag never changes a score or a rank (the board shows the score on the unflagged items beside the full one).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

FIELDS = ("model_id", "task", "lang", "prompt_lang", "signal", "flagged", "item_ids", "statistic", "p_value",
          "ci_low", "ci_high", "n_items", "detail", "computed_at")
"""Column order of a stored signal row (`store.leakage.COLUMNS` is the same tuple)."""
EVERY_PROMPT = "*"
"""The prompt language of a signal about the dataset's items rather than one prompt (the `leakage` run mode's
probes): the board applies it to every prompt language's cell of that (model, task, language)."""


@dataclass(frozen=True)
class LeakSignal:
    """One leakage signal's verdict on one cell."""

    model_id: str
    task: str
    lang: str
    prompt_lang: str
    """The cell: model, task, language, prompt language (en | native, or EVERY_PROMPT for a probe of the items)."""
    signal: str
    """Signal name, e.g. "mt_verbatim", "ngram_overlap", "unexplained_entities", "declared", or a probe's name."""
    flagged: bool
    """Whether this signal flags the cell (some item flagged, or the probe's test significant)."""
    item_ids: tuple[str, ...] = ()
    """Items the signal flags, sorted (the clean-items score leaves them out); empty for a cell-level signal."""
    statistic: float | None = None
    """The signal's statistic (for the output signals: the share of the cell's items flagged, 0-1)."""
    p_value: float | None = None
    """p-value of a probe's test (None when the signal has no test)."""
    ci_low: float | None = None
    ci_high: float | None = None
    """95% interval of the statistic (output signals: Wilson interval of the flagged share)."""
    n_items: int = 0
    """Items the signal looked at."""
    detail: str = ""
    """One plain-text line: the rule and threshold, or the declaration that triggered it (never Markdown)."""
    computed_at: datetime | None = field(default=None, compare=False)
    """When it was computed (set by the store when None)."""

    def as_row(self) -> dict[str, Any]:
        """The stored row (FIELDS), item ids as a list."""
        row = asdict(self)
        row["item_ids"] = list(self.item_ids)
        return row

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "LeakSignal":
        """A signal from a stored row (a mapping with FIELDS keys; missing optional keys take their defaults)."""
        values = {k: row[k] for k in FIELDS if k in row}
        values["item_ids"] = tuple(values.get("item_ids") or ())
        values["flagged"] = bool(values.get("flagged"))
        values["n_items"] = int(values.get("n_items") or 0)
        values["detail"] = values.get("detail") or ""
        return cls(**values)
