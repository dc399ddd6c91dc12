"""The metric record and its registry: pure per-item functions plus optional corpus aggregators."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from evaluator.plugins import Registry
from evaluator.stats import draw_counts


@dataclass(frozen=True)
class MetricSpec:
    """A metric: how one item is scored and, optionally, how a whole cell is scored at once."""

    name: str
    """Registry key, e.g. "accuracy", "macro_f1", "chrf++"."""
    display: str
    """Human name shown in tables."""
    item: Callable[..., float] | None
    """Per-item score `(answer, gold, *, lang, item) -> float` in [0, 1]; None for corpus-only metrics."""
    corpus: Callable[[Sequence[Any]], float] | None = None
    """Corpus score from the per-item `(answer, gold, extras)` triples of a cell; None = mean of item scores."""
    scale: float = 100.0
    """Multiplier for display (scores are stored on 0-1 and shown on 0-100)."""
    higher_is_better: bool = True
    description: str = ""
    """Shown on the methodology page, generated from the registry."""
    reference: str = ""
    """Which library or paper it reproduces (e.g. "sacrebleu CHRF(word_order=2)")."""
    chance: str = "task"
    """Chance level used to normalise: "task" (`TaskSpec.chance_level`, or mean 1/k over MCQ items), "zero"
    (the metric is already chance-corrected or has no chance floor), or "none" (not meaningful)."""
    binary: bool = False
    """Per-item scores are 0/1, so a Wilson interval is used for the cell (boundary-safe at 0% and 100%)."""
    unavailable: Callable[[], str | None] | None = None
    """Why the metric cannot be computed here (missing package or checkpoint), or None when it can."""
    interval: Callable[[Sequence[Any]], tuple[float, float, float]] | None = None
    """The reference library's own (value, low, high) on 0-1 from one run's corpus rows (ROUGE's seeded
    BootstrapAggregator, sacrebleu's bootstrap); replaces the generic mean/corpus value and interval."""
    langs: tuple[str, ...] = ()
    """Languages the metric applies to; empty = all (e.g. Thai-only newmm variants)."""
    detail: Callable[[Sequence[Any]], str] | None = None
    """A short breakdown from one run's corpus rows, appended to the cell note (e.g. NER F1 per entity type)."""
    resample: Callable[[Sequence[Sequence[Any]], Any], Any] | None = None
    """Vectorised bootstrap of the corpus metric over one run: `(groups, draws) -> stats`, where `groups` holds each
    item's rows, `draws` is an (n_boot, n_items) index array, and stats[b] equals `corpus` on the rows of the items
    drawn in resample b."""
    counted: str = ""
    """How the corpus metric follows from per-item label counts, for `evaluator.cell_counts`: "f1" (macro-F1 over
    labels), "recall" (balanced accuracy), "recall_over_chance" (balanced accuracy normalised by the task's chance,
    clipped at 0; 1/(gold labels) when the task has no chance level), "order" (order consistency); empty: no count
    form (computed row by row)."""
    null_label: bool = False
    """With `counted`: an unparsed answer is a label of its own (SEA-HELM's "null") instead of no prediction."""
    reads_output: bool = False
    """The item function also takes `output=` (the raw model output, untrusted text), e.g. PACUTE contains-match
    searching the text after the last closed reasoning block when no answer block closes."""
    reads_task: bool = False
    """The item function also takes `task=` (the item's `TaskSpec`), reading what the task needs from its fields."""
    reads_extras: bool = False
    """The item function also takes `extras=` (the answer reader's extras), e.g. the options of an exact MCQ tie."""
    empty_reason: str = "not computable from these rows"
    """Why a cell has no value when the metric gives NaN (e.g. "no item asked in both orders")."""


def resample_sums(per_item: Any, draws: Any, chunk: int = 32) -> Any:
    """Column sums of `per_item` (n_items × m) over each resample's drawn items: an (n_boot × m) array.

    Additive per-item statistics (counts of hits, predictions, golds) make any corpus metric built from their sums
    resamplable at once; the multiplicity matrix is built in chunks to bound memory on large cells.
    """
    import numpy as np

    per_item = np.asarray(per_item, dtype=float)
    n_boot = draws.shape[0]
    weights = multiplicity(draws)
    if weights is not None:
        return weights @ per_item
    out = np.empty((n_boot, per_item.shape[1]))
    for start in range(0, n_boot, chunk):
        out[start:start + chunk] = draw_counts(draws[start:start + chunk]) @ per_item
    return out


MAX_WEIGHTS = 4_000_000
"""Largest multiplicity matrix (resamples × items) kept whole (32 MB); larger cells are summed in chunks."""
_weights_cache: tuple = (None, None)


def multiplicity(draws: Any) -> Any:
    """How often each item is drawn in each resample, an (n_boot × n) matrix, or None when too large to keep.

    A cell's draws are shared by all its metrics and runs, so the matrix is built once per draws array (the last
    one is kept); the sums it gives are the chunked sums of `resample_sums` (counts are exact in float)."""

    global _weights_cache
    if draws.size > MAX_WEIGHTS:
        return None
    cached_draws, weights = _weights_cache
    if cached_draws is not draws:
        weights = draw_counts(draws)
        _weights_cache = (draws, weights)
    return weights


def item_score(spec: MetricSpec, answer: str | None, gold: Any, *, task: Any, item: Any,
               output: str | None, extras: dict | None = None) -> float:
    """One item's score under `spec` (its item function must exist), passing `output=`, `task=` and `extras=`
    to the metrics that read them."""
    extra: dict[str, Any] = {}
    if spec.reads_extras:
        extra["extras"] = extras or {}
    if spec.reads_output:
        extra["output"] = output
    if spec.reads_task:
        extra["task"] = task
    return float(spec.item(answer, gold, lang=item.lang, item=item, **extra))


METRICS: Registry[MetricSpec] = Registry("metric")
"""Metric by name; each metric module registers its own (`register(MetricSpec(...))` beside its functions)."""


def register(spec: MetricSpec) -> MetricSpec:
    """Add a metric to the registry (names are unique)."""
    return METRICS.add(spec.name, spec)


def get_metric(name: str) -> MetricSpec:
    """Look a metric up by name, with a close-match hint when it is unknown."""
    return METRICS.lookup(name)
