"""The board's SEA-HELM view: SEA-HELM's roll-up (`evaluator.seahelm_rollup`) of each model from the stored rows,
Tanaw's re-scored cells first and a SEA-HELM file's own scores where Tanaw has none, with the file's own totals
beside (never ranked, never mixed into the roll-up).

Which score feeds a (task group or task, language) of a model: Tanaw's re-scored cells of that unit when it has
any (`seahelm_rescored` rows on SEA-HELM's scale, `task_score`); otherwise the newest visible SEA-HELM file's
value for the unit itself (a group node such as `global_mmlu_lite`, which SEA-HELM may micro-average), else for
its tasks (`seahelm_reported` rows).
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from evaluator import seahelm_rollup as R
from evaluator.formats.seahelm import REPORTED, reported_name

TOTAL = f"{REPORTED}total"


@dataclass(frozen=True)
class SeahelmBoard:
    """The view's tables: `board` (model, SEA average, one column per language, why), `competencies` (model,
    lang, competency, score, tasks, source, why), `languages` and `file_totals` (model, lang, level, value: the file's own)."""

    board: pd.DataFrame
    languages: pd.DataFrame
    """model, lang, score, why (the competencies a missing language lacks)."""
    competencies: pd.DataFrame
    file_totals: pd.DataFrame
    rule: str = R.RULE


def _inputs(rescored: pd.DataFrame, reported: pd.DataFrame) -> dict[str, dict[tuple[str, str], tuple[float, str]]]:
    """model → {(SEA-HELM task or group, lang): (score, "re-scored" | "file")}, re-scored units first."""
    out: dict[str, dict[tuple[str, str], tuple[float, str]]] = {}
    for model, task, lang, value, chance, nba in zip(rescored["model"], rescored["task"], rescored["lang"],
                                                     rescored["value"], rescored["chance"], rescored["seahelm_nba"]):
        name = R.seahelm_name(task)
        if name is not None and value == value:
            out.setdefault(model, {})[(name, lang)] = (R.task_score(value, chance, nba), "re-scored")
    files: dict[tuple[str, str, str], dict[str, float]] = {}
    for model, task, lang, metric, value in zip(reported["model"], reported["task"], reported["lang"],
                                                reported["metric"], reported["value"]):
        name = reported_name(task) or R.seahelm_name(task)
        if name is not None and task != TOTAL:
            files.setdefault((model, name, lang), {})[metric] = float(value)
    rescored_units = {(model, lang, R.unit_of(name)) for model, mine in out.items() for name, lang in mine}
    for (model, name, lang), metrics in files.items():
        unit = R.unit_of(name)
        if unit is None or (model, lang, unit) in rescored_units:
            continue
        v = R.headline(name, metrics)
        if v is not None:
            out.setdefault(model, {})[(name, lang)] = (v, "file")
    return out


def seahelm_board(rescored: pd.DataFrame, reported: pd.DataFrame) -> SeahelmBoard:
    """SEA-HELM's roll-up of every model with a score on its scale, best SEA average first (missing last)."""
    board, langs, comps = [], [], []
    for model, scores in sorted(_inputs(rescored, reported).items()):
        if not scores:
            continue
        r = R.rollup({k: v for k, (v, _) in scores.items()})
        row = {"model": model, "SEA average": r["sea"], **{lang: r["language"][lang] for lang in R.SEA_LANGS}}
        row["why"] = r["why"].get(("sea", ""), "")
        board.append(row)
        for lang in R.SEA_LANGS:
            langs.append({"model": model, "lang": lang, "score": r["language"][lang],
                          "why": r["why"].get(("language", lang), "")})
            for comp, units in R.units(lang).items():
                sources = sorted({src for (n, lg), (_, src) in scores.items()
                                  if lg == lang and R.unit_of(n) in units})
                comps.append({"model": model, "lang": lang, "competency": comp,
                              "score": r["competency"][(lang, comp)], "tasks": ", ".join(units),
                              "source": " + ".join(sources) or "—",
                              "why": r["why"].get(("competency", (lang, comp)), "")})
    board_df = pd.DataFrame(board, columns=["model", "SEA average", *R.SEA_LANGS, "why"])
    if not board_df.empty:
        board_df = board_df.assign(_o=board_df["SEA average"].fillna(float("-inf"))).sort_values(
            ["_o", "model"], ascending=[False, True]).drop(columns="_o").reset_index(drop=True)
    totals = reported[reported["task"] == TOTAL] if not reported.empty else reported
    file_totals = pd.DataFrame({"model": totals.get("model", []), "lang": totals.get("lang", []),
                                "level": totals.get("metric", []), "value": totals.get("value", [])})
    return SeahelmBoard(board_df, pd.DataFrame(langs, columns=["model", "lang", "score", "why"]), pd.DataFrame(comps, columns=["model", "lang", "competency", "score", "tasks",
                                                               "source", "why"]), file_totals)

