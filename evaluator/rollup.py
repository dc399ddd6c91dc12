"""Roll-ups: competency, language and overall means of a model's headline cells (the one place they are computed).

The rule (documented on the Methodology page): both translation directions are averaged into one translation
sub-task first; sub-tasks into a competency (NLU, NLG, NLR, LD, ...) per language; competencies into a language
score; languages into the overall score. A competency column is the mean of that competency over the languages
that have it. Every mean covers only the cells present, and `coverage` counts them. The wiring stores
`rollup_rows` at ingest; the store and the pages only read them.

The overall is a fixed weighted mean of headline cells, so its standard error follows from the cells' own 95%
intervals, treated as independent normal errors: se = sqrt(sum w_i^2 se_i^2), se_i = (high - low) / (2 * 1.96)
(`overall_interval`; `evaluator.ranking` turns those intervals into rank ranges).
"""
from __future__ import annotations

import functools
import math
from collections import defaultdict
from typing import Any, Iterable, Mapping

import numpy as np

from evaluator.registry import TASKS
from evaluator.stats import Z95

SUBTASKS = {t.name: t.rollup_as for t in TASKS.values() if t.rollup_as}
"""Tasks averaged into one sub-task before competency means (`TaskSpec.rollup_as`: both translation directions)."""

CONTROLS = frozenset(t.name for t in TASKS.values() if t.group.endswith("-control"))
"""Control tasks (PACUTE's LangGame, multi-digit addition, CUTE): a ceiling shown beside the score, never part of
the overall, competency or language means (PACUTE paper Section 5)."""

SCORES = ("value", "normalized")
"""The two scales a roll-up is computed on: raw headline value and chance-normalised (both 0-100)."""


def _mean(values: Iterable[float]) -> float:
    """`np.mean` of the values, bit for bit: below 8 values numpy adds them one by one from 0.0 and divides by
    their count, which a plain loop does in a fraction of the time (a refresh takes ~120 such means)."""
    vals = list(values)
    if not 0 < len(vals) < 8:
        return float(np.mean(vals))
    total = 0.0
    for v in vals:
        total += v
    return float(total / len(vals))


def rollup(scores: dict[tuple[str, str], float], groups: dict[str, str]) -> dict[str, Any]:
    """Competency → language → overall means from per-(task, lang) scores.

    `groups` maps task → competency (TaskSpec.group). Returns `competency` {(lang, group): mean},
    `competency_mean` {group: mean over languages}, `language` {lang: mean}, `overall`, and `coverage`
    {(lang, group): sub-tasks present}.
    """
    sub: dict[tuple[str, str, str], list[float]] = defaultdict(list)  # (lang, group, subtask) -> values
    for (task, lang), v in scores.items():
        if v is not None and not math.isnan(v):
            sub[(lang, groups[task], SUBTASKS.get(task, task))].append(v)
    comp: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (lang, group, _), vals in sub.items():
        comp[(lang, group)].append(_mean(vals))
    competency = {k: _mean(v) for k, v in comp.items()}
    per_lang: dict[str, list[float]] = defaultdict(list)
    per_group: dict[str, list[float]] = defaultdict(list)
    for (lang, group), v in competency.items():
        per_lang[lang].append(v)
        per_group[group].append(v)
    language = {lang: _mean(v) for lang, v in per_lang.items()}
    overall = _mean(language.values()) if language else float("nan")
    coverage = {k: sorted(s for (lg, g, s) in sub if (lg, g) == k) for k in competency}
    return {"competency": competency, "competency_mean": {g: _mean(v) for g, v in per_group.items()},
            "language": language, "overall": overall, "coverage": coverage}


def _ok(v: Any) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def rollup_rows(cells: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The stored roll-ups of one model from its headline cells.

    `cells`: mappings with task, lang, prompt_lang, value, normalized and status (only "ok" cells of registry
    tasks count). One row per (prompt_lang, family — "" for every family —, score, level, key): level is
    "overall" (key ""), "competency" (key = competency) or "language" (key = language code), over the main
    tasks only, "interval" (key low | high: the overall's 95% interval, `overall_interval`) or "ceiling" (key "":
    the mean of the control tasks, `CONTROLS`); `coverage` is the number of cells behind the mean.
    """
    ok = [c for c in cells if c.get("status") == "ok" and c.get("task") in TASKS]
    out = []
    for prompt_lang in sorted({c["prompt_lang"] for c in ok}):
        mine = [c for c in ok if c["prompt_lang"] == prompt_lang]
        for family in ("", *sorted({TASKS[c["task"]].family for c in mine})):
            sel = [c for c in mine if not family or TASKS[c["task"]].family == family]
            for score in SCORES:
                base = {"prompt_lang": prompt_lang, "family": family, "score": score}
                ceiling = [float(c[score]) for c in sel if c["task"] in CONTROLS and _ok(c[score])]
                if ceiling:
                    out.append({**base, "level": "ceiling", "key": "", "value": _mean(ceiling),
                                "coverage": len(ceiling)})
                vals = {(c["task"], c["lang"]): float(c[score]) for c in sel
                        if c["task"] not in CONTROLS and _ok(c[score])}
                if not vals:
                    continue
                groups = {t: TASKS[t].group for t, _ in vals}
                r = rollup(vals, groups)
                out.append({**base, "level": "overall", "key": "", "value": r["overall"], "coverage": len(vals)})
                out += _interval_rows(base, sel, score, groups, len(vals))
                out += [{**base, "level": "competency", "key": g, "value": v,
                         "coverage": sum(groups[t] == g for t, _ in vals)} for g, v in r["competency_mean"].items()]
                out += [{**base, "level": "language", "key": lang, "value": v,
                         "coverage": sum(lg == lang for _, lg in vals)} for lang, v in r["language"].items()]
    return out




def overall_interval(cells: Mapping[tuple[str, str], tuple[float, float, float]],
                     groups: Mapping[str, str]) -> tuple[float, float, float]:
    """(overall, low, high) of the roll-up of `cells` {(task, lang): (value, ci_low, ci_high)}: the weight of each
    cell in the overall is read off `rollup` itself (the overall is linear in the cells). A cell without an
    interval adds no uncertainty."""
    keys = list(cells)
    overall = rollup({k: cells[k][0] for k in keys}, groups)["overall"]
    weights = _weights(tuple(keys), tuple(groups[t] for t, _ in keys))
    var = 0.0
    for k, weight in zip(keys, weights):
        _, lo, hi = cells[k]
        if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
            continue
        var += (weight * (hi - lo) / (2 * Z95)) ** 2
    half = Z95 * math.sqrt(var)
    return overall, overall - half, overall + half


@functools.lru_cache(maxsize=512)
def _weights(keys: tuple[tuple[str, str], ...], groups: tuple[str, ...]) -> tuple[float, ...]:
    """Each cell's weight in the overall: `rollup` of its indicator over `keys` (in this order, each task in its
    group). A function of the cells present only, so each model's refresh reuses it instead of one roll-up per
    cell per call."""
    by_task = dict(zip((t for t, _ in keys), groups))
    return tuple(rollup({j: float(j == k) for j in keys}, by_task)["overall"] for k in keys)



def _bounds(cell: Mapping[str, Any], score: str) -> tuple[float, float, float]:
    """(score, low, high) of a cell on `score`'s scale (the normalized scale stretches the raw interval)."""
    lo, hi = cell.get("ci_low"), cell.get("ci_high")
    if not (_ok(lo) and _ok(hi)):
        return float(cell[score]), float("nan"), float("nan")
    if score == "normalized":
        chance = float(cell["chance"])
        lo, hi = ((b - chance) / (100 - chance) * 100 for b in (lo, hi))
    return float(cell[score]), float(lo), float(hi)


def _interval_rows(base: dict, sel: list, score: str, groups: dict, coverage: int) -> list[dict[str, Any]]:
    """The overall's 95% interval (`overall_interval`) as rows of level "interval", key low|high."""
    cells = {(c["task"], c["lang"]): _bounds(c, score) for c in sel if c["task"] not in CONTROLS and _ok(c[score])}
    _, lo, hi = overall_interval(cells, groups)
    return [{**base, "level": "interval", "key": k, "value": v, "coverage": coverage}
            for k, v in (("low", lo), ("high", hi))]


EXAMPLE = {("translation-en-xx", "id"): 80.0, ("translation-xx-en", "id"): 60.0, ("abssum", "id"): 10.0}
"""The worked example shown on the Methodology page (and pinned by a test)."""


def worked_example() -> str:
    """The roll-up rule on `EXAMPLE`, with the numbers computed by `rollup` itself."""
    r = rollup(EXAMPLE, {t: TASKS[t].group for t, _ in EXAMPLE})
    mt = (EXAMPLE[("translation-en-xx", "id")] + EXAMPLE[("translation-xx-en", "id")]) / 2
    naive = sum(EXAMPLE.values()) / len(EXAMPLE)
    return (f"Example: machine translation en→xx {EXAMPLE[('translation-en-xx', 'id')]:.0f} and xx→en "
            f"{EXAMPLE[('translation-xx-en', 'id')]:.0f} make one translation score of {mt:.0f}; with summarisation "
            f"{EXAMPLE[('abssum', 'id')]:.0f}, NLG = ({mt:.0f} + {EXAMPLE[('abssum', 'id')]:.0f}) / 2 = "
            f"{r['competency'][('id', 'NLG')]:.0f} (not {naive:.0f}, the mean of the three tasks).")
