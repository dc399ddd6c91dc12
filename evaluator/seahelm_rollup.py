"""SEA-HELM's roll-up: normalised task scores → competency → language → SEA average (the one place it is computed).

Source: aisingapore/SEA-HELM at 6844e6c, `docs/score_calculations.md` (normalisation and the aggregation levels),
`src/aggregate_metrics.py` (`aggregate_metrics`: tasks of one `aggregation_group` averaged first, then the
competency, the language and the overall means), `seahelm_tasks/task_config.yaml` (the `seahelm` suite: which tasks
run in which language) and each task's `config.yaml` (its competency, group, headline metric and version).

The task table is data (`seahelm_tasks.csv` beside this module): one row per SEA-HELM task name with Tanaw's task
(empty when Tanaw has none: the registry is then asked for the same name, and otherwise the file's own value is
kept), SEA-HELM's competency, aggregation group, version, headline metric and the languages its default suite runs
it in. A row whose name ends in `*` matches the per-part entries some results files carry (`global_mmlu_lite_<subject>`,
`thai_exam_<exam>`), parts of their group. A task with no suite languages is never required (`syntax-criteria`:
`aggregate_metrics` leaves it out of the linguistic-diagnostics total).

The rule (`RULE`, shown beside the view):
- a task's score is normalised as SEA-HELM does: (score − chance) / (max − chance) × 100, clipped at 0;
- a group (translations, pragmatics, Global-MMLU-Lite, ThaiExam, MT-Bench) is the mean of its parts present, or the
  group's own score when given;
- a competency is the mean of its suite units (tasks and groups) in that language, and is missing, with the units
  it lacks, unless every one of them is scored;
- a language is the mean of its competencies, and is missing unless every competency the suite scores in it is;
- the SEA average is the mean of the seven languages of SEA-HELM's set (`SEA_LANGS`) and is missing, with the
  languages that are not complete, unless the model covers every one fully. Never a partial average.

SEA-HELM itself writes a failed task as 0 into its means; here a failed or absent task is missing, so its
competency, language and SEA average are too.
"""
from __future__ import annotations

import csv
import fnmatch
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from evaluator.chance import normalized_score

SEA_LANGS = ("id", "vi", "th", "ta", "tl", "ms", "my")
"""SEA-HELM's SEA average languages (`task_config.yaml` `seahelm` suite at 6844e6c)."""

TABLE = Path(__file__).with_name("seahelm_tasks.csv")

RULE = ("SEA-HELM rule (aisingapore/SEA-HELM 6844e6c): each task normalised as (score − chance) / (max − chance) × "
        "100, clipped at 0; task groups averaged first; competency = mean of its tasks, language = mean of its "
        "competencies, SEA average = mean of id, vi, th, ta, tl, ms, my. A competency, language or SEA average is "
        "shown only when everything SEA-HELM's suite scores below it is present (missing otherwise, with why).")
"""The view's label."""


@dataclass(frozen=True)
class SeahelmTask:
    """One row of the task table."""

    name: str
    tanaw: str
    competency: str
    group: str
    version: str
    metric: str
    langs: tuple[str, ...]

    @property
    def unit(self) -> str:
        """What a competency averages: the task's group, else the task itself."""
        return self.group or self.name


@functools.cache
def table() -> tuple[SeahelmTask, ...]:
    """The task table, in file order."""
    with TABLE.open(encoding="utf-8", newline="") as f:
        return tuple(SeahelmTask(r["seahelm_task"], r["tanaw_task"], r["competency"], r["group"], r["version"],
                                 r["metric"], tuple(r["langs"].split())) for r in csv.DictReader(f))


def lookup(name: str) -> SeahelmTask | None:
    """The table row of a SEA-HELM task name (exact names before `*` patterns), or None."""
    rows = table()
    return next((t for t in rows if t.name == name), None) or next(
        (t for t in rows if t.name.endswith("*") and fnmatch.fnmatchcase(name, t.name)), None)


@functools.cache
def units(lang: str) -> dict[str, list[str]]:
    """competency → the units (task or group names) SEA-HELM's suite scores in `lang`, in table order."""
    out: dict[str, list[str]] = {}
    for t in table():
        if lang in t.langs and t.unit not in out.setdefault(t.competency, []):
            out[t.competency].append(t.unit)
    return out


@functools.cache
def unit_of(name: str) -> str | None:
    """The unit (group or task) a SEA-HELM task name or group name counts towards, or None when unknown."""
    if any(t.group == name for t in table()):
        return name
    row = lookup(name)
    return row.unit if row else None


def normalise(score: float, chance: float) -> float:
    """SEA-HELM's `normalize_score` × 100 on a 0-100 score (`src/metrics/seahelm_metric.py`): Tanaw's normalised
    score (`evaluator.chance.normalized_score`) clipped at 0, and 0 when chance is the maximum."""
    v = normalized_score(score, chance)
    return max(v, 0.0) if v is not None else 0.0


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def rollup(scores: Mapping[tuple[str, str], float]) -> dict:
    """SEA-HELM's roll-up of one model from normalised scores {(SEA-HELM task or group name, lang): 0-100}.

    Returns `unit` {(lang, unit): score}, `competency` {(lang, competency): score or None}, `language`
    {lang: score or None}, `sea` (score or None) and `why` {(level, key): reason} for every missing value (level
    "competency" with key (lang, competency), "language" with key lang, "sea" with key "").
    """
    parts: dict[tuple[str, str], list[float]] = {}
    own: dict[tuple[str, str], float] = {}
    for (name, lang), v in scores.items():
        unit = unit_of(name)
        if unit is None or v is None or v != v:
            continue
        if name == unit:
            own[(lang, unit)] = float(v)
        else:
            parts.setdefault((lang, unit), []).append(float(v))
    unit_scores = {k: own[k] if k in own else _mean(v) for k, v in parts.items()} | own
    competency: dict[tuple[str, str], float | None] = {}
    language: dict[str, float | None] = {}
    why: dict[tuple[str, object], str] = {}
    for lang in SEA_LANGS:
        missing_comps = []
        for comp, needed in units(lang).items():
            lacking = [u for u in needed if (lang, u) not in unit_scores]
            if lacking:
                competency[(lang, comp)] = None
                why[("competency", (lang, comp))] = f"not scored: {', '.join(lacking)}"
                missing_comps.append(comp)
            else:
                competency[(lang, comp)] = _mean([unit_scores[(lang, u)] for u in needed])
        if missing_comps:
            language[lang] = None
            why[("language", lang)] = f"incomplete: {', '.join(missing_comps)}"
        else:
            language[lang] = _mean([v for (lg, _), v in competency.items() if lg == lang])
    incomplete = [lang for lang in SEA_LANGS if language[lang] is None]
    sea = None if incomplete else _mean([language[lang] for lang in SEA_LANGS])
    if incomplete:
        why[("sea", "")] = f"languages not complete: {', '.join(incomplete)}"
    return {"unit": unit_scores, "competency": competency, "language": language, "sea": sea, "why": why}


def seahelm_name(tanaw_task: str) -> str | None:
    """The SEA-HELM task name of a Tanaw task (the table's `tanaw_task`, or the same name when that is empty)."""
    return next((t.name for t in table() if t.tanaw == tanaw_task), None) or next(
        (t.name for t in table() if not t.tanaw and t.name == tanaw_task), None)


def task_score(value: float, chance: float | None, seahelm_nba: float | None = None) -> float:
    """One re-scored cell on SEA-HELM's scale: its stored SEA-HELM classification score (normalised balanced
    accuracy, `evaluator.metrics.classification.seahelm_nba`) where there is one, else the headline normalised by
    `normalise` (chance 0 for generative tasks)."""
    if seahelm_nba is not None and seahelm_nba == seahelm_nba:
        return float(seahelm_nba)
    return normalise(float(value), float(chance) if chance is not None and chance == chance else 0.0)


def headline(name: str, metrics: Mapping[str, float]) -> float | None:
    """A SEA-HELM file's score for a task or group from its metrics: the task's headline metric (the table's
    `metric`), for a group its normalised score; None without one."""
    row = lookup(name)
    if row is not None and row.metric in metrics:
        return metrics[row.metric]
    return next((v for k, v in sorted(metrics.items()) if k.startswith("normalized")), None)
