"""The papers' reported rows on Tanaw's scales: a reported value normalised with the chance level and the
rescaling a cell's own aggregates use (`evaluator.chance`), computed once when the rows load (services.page_figures)
and stored (V12), so the leaderboard's "Reported in the papers" table only reads it."""
from __future__ import annotations

from evaluator.chance import metric_chance, normalized_score
from evaluator.metrics import METRICS
from evaluator.registry import TASKS


def reported_normalized(task: str, lang: str, metric: str, value: float | None) -> tuple[float | None, float | None]:
    """(chance, normalized) of a reported value (0-100) on a task, language and metric; (None, None) for a task or
    metric outside the registry, a chance level that depends on items, or no value."""
    spec, task_spec = METRICS.get(metric), TASKS.get(task)
    if spec is None or task_spec is None or value is None or value != value:
        return None, None
    chance = metric_chance(spec, task_spec, lang)
    return chance, normalized_score(value, chance)
