"""What the board opens on and how it reads out, from the stored frames (`store.queries.board`): the stub rule, the
default benchmark and prompt language, the models each picker preselects, plain words for the competencies, and the
sentence that says who leads a language, by how much and whether the lead is statistically clear.

Rules (stated on the pages that use them):

- A model is a **stub** on a board (benchmark × prompt language) when its scored headline cells there hold fewer than
  `STUB_MIN_ITEMS` answers together. A stub is listed but never ranked, and no page opens on it.
- Only evaluated and uploaded models are ranked (`RANKED_ORIGINS`); demo models and baselines are reference points.
- The board opens on the benchmark and prompt language with the most ranked, non-stub models; ties go to the
  benchmark's and then the prompt's display order. Without such a model, the most models of any origin.
- Pickers preselect the **leaders**: ranked non-stub models by their stored overall (best first), then ranked stubs,
  then demo models, and demo baselines last, so a baseline is never set against itself.
- A difference is **clear** when its 95% interval excludes the reference (`excludes`): 0 for a paired difference,
  chance for "below chance", the field median for a strength or weakness. Inside the interval it is noise.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import pandas as pd

from services.ingest import RANKED_ORIGINS  # the origins ranked (demo runs and baselines are reference points)

STUB_MIN_ITEMS = 30
"""Fewer scored answers than this over a model's headline cells of one board make it a stub there: at 30 items a
95% interval on a 0-100 score is already about ±17 points wide, so a lower count ranks noise."""

COMPETENCIES = {
    "NLU": "understanding (NLU): reading a text and classifying or extracting from it (sentiment, toxicity, "
           "named entities, question answering)",
    "NLG": "generation (NLG): writing text (translation to and from English, summaries)",
    "NLR": "reasoning (NLR): drawing conclusions (entailment, cause and effect)",
    "LD": "linguistic diagnostics (LD): grammar, meaning and pragmatics probed with minimal pairs (LINDSEA)",
    "WS": "word structure (WS): spelling, syllables and affixes of Filipino words (PACUTE)",
    "WS-control": "controls: English character games and arithmetic, the ceiling for word structure",
    "CULT": "culture: open questions on proverbs and customs, rated by people",
    "IF": "instruction following (IF): answers that obey verifiable instructions on length, format, keywords and "
          "language (SEA-IFEval)",
    "KNOW": "knowledge: exam and subject questions with four or five options (Global-MMLU-Lite, ThaiExam)",
}
"""Competency codes (`TaskSpec.grp`) in plain words."""
FAMILY_WORDS = {
    "bhasa": "BHASA = everyday language tasks (understanding, generation, reasoning)",
    "lindsea": "LINDSEA = linguistic diagnostics (grammar, meaning, pragmatics)",
    "pacute": "PACUTE = Filipino word structure (spelling, syllables, affixes)",
    "cultural": "Cultural = open questions on culture, rated by people",
    "instruction": "Instruction following = SEA-IFEval's verifiable instructions, checked one by one",
    "seahelm": "Knowledge & reading = SEA-HELM's multiple-choice tasks (Belebele reading, knowledge questions, "
               "Filipino culture)",
}
"""Benchmark families in plain words."""


def competency_words(code: str | None) -> str:
    """A competency code in plain words (the code itself when unknown)."""
    return COMPETENCIES.get(code or "", code or "—")


def excludes(low: float | None, high: float | None, reference: float | None) -> bool:
    """Whether the 95% interval [low, high] lies wholly on one side of `reference`: the one test of "clear"
    (a paired difference against 0, a score against chance, a cell against the field median). Missing bounds are
    never clear."""
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (low, high, reference)):
        return False
    return bool(low > reference or high < reference)


def with_stubs(models: pd.DataFrame) -> pd.DataFrame:
    """`board_models` rows with `stub` (fewer than STUB_MIN_ITEMS answers on that board) and `ranked` (an
    evaluated or uploaded model that is not a stub)."""
    out = models.copy()
    out["stub"] = out["items"].fillna(0) < STUB_MIN_ITEMS
    out["ranked"] = out["origin"].isin(RANKED_ORIGINS) & ~out["stub"]
    return out


def default_board(models: pd.DataFrame, families: Sequence[str], prompts: Sequence[str]) -> tuple[str, str] | None:
    """(family, prompt_lang) the board opens on: the most ranked non-stub models, ties in display order of
    `families` then `prompts`; without any, the most models of any origin. None when nothing is scored."""
    rows = with_stubs(models)
    rows = rows[rows["family"].isin(families) & rows["prompt_lang"].isin(prompts)]
    if rows.empty:
        return None
    counts = rows.groupby(["family", "prompt_lang"]).agg(ranked=("ranked", "sum"), models=("model", "nunique"))
    order = {(f, p): (list(families).index(f), list(prompts).index(p)) for f, p in counts.index}
    best = sorted(counts.index, key=lambda k: (-counts.loc[k, "ranked"], -counts.loc[k, "models"], order[k]))
    return best[0]


def default_prompt(models: pd.DataFrame, family: str, prompts: Sequence[str]) -> str | None:
    """The prompt language a benchmark opens on (most ranked non-stub models, then most models, then `prompts`
    order); None when the benchmark has no results."""
    pick = default_board(models[models["family"] == family], [family], prompts)
    return pick[1] if pick else None


def leader_order(models: pd.DataFrame) -> list[str]:
    """Model ids of one board's `board_models` rows, leaders first: ranked non-stub models by overall (best
    first, missing last), then ranked stubs, then demo models, then demo baselines; ties by name."""
    rows = with_stubs(models)
    tier = [0 if r else 1 if o in RANKED_ORIGINS else 3 if b else 2
            for r, o, b in zip(rows["ranked"], rows["origin"], rows["baseline"].fillna(False))]
    rows = rows.assign(tier=tier, score=-rows["overall"].fillna(-math.inf))
    return rows.sort_values(["tier", "score", "model"])["model"].drop_duplicates().tolist()


def preselect(models: pd.DataFrame, available: Iterable[str], k: int,
              baselines: Iterable[str] = ()) -> list[str]:
    """Up to `k` of `available` for a picker: leaders of the board `models` first (`leader_order`), then the rest
    of `available` in its own order with demo baselines (those of `models` and `baselines`) last. Never the same
    model twice."""
    available = list(dict.fromkeys(available))
    order = [m for m in leader_order(models) if m in set(available)]
    baselines = set(baselines) | set(models.loc[models["baseline"].fillna(False), "model"])
    rest = [m for m in available if m not in order]
    ordered = [m for m in order + rest if m not in baselines] + [m for m in order + rest if m in baselines]
    return ordered[:k]


def compare_default(systems: pd.DataFrame, leaders: Sequence[str], prompt_lang: str) -> list[str]:
    """Two systems ("model|prompt_lang") Compare opens on for one cell (`compare_systems` rows): the two best
    leaders with `prompt_lang` (else their other prompt), two different models; one system when the cell has one
    model (never a model against itself)."""
    by_model: dict[str, list[str]] = {}
    for system, model, prompt in zip(systems["system"], systems["model_id"], systems["prompt_lang"]):
        by_model.setdefault(model, []).append((prompt != prompt_lang, system))
    order = [m for m in leaders if m in by_model] + sorted(m for m in by_model if m not in set(leaders))
    return [min(by_model[m])[1] for m in order[:2]]


def compare_cell(cells: pd.DataFrame, leaders: Sequence[str]) -> tuple[str, str] | None:
    """The (task, lang) Compare opens on from `compare_cells`-like rows with a `models` column (tuple of model
    ids scored on the cell): the first cell, in task and language order, where the two best leaders both have
    results; else where the best leader has; else the first cell."""
    if cells.empty:
        return None
    rows = list(zip(cells["task"], cells["lang"], cells["models"]))
    for wanted in (list(leaders[:2]), list(leaders[:1])):
        for task, lang, have in rows:
            if wanted and set(wanted) <= set(have):
                return task, lang
    return rows[0][0], rows[0][1]


@dataclass(frozen=True)
class TaskLead:
    """Who leads one task of a language: the leader, the runner-up, the gap and whether the paired test says it
    is clear."""

    task: str
    leader: str
    runner_up: str | None
    gap: float | None
    """Leader minus runner-up, points of the headline metric (0-100)."""
    clear: bool | None
    """The stored paired test's 95% interval excludes 0; None without a stored test."""


def task_leads(cells: pd.DataFrame, tests: pd.DataFrame, ranked: Iterable[str]) -> list[TaskLead]:
    """Per task of `language_cells` rows, the best and second-best model among `ranked` (every model when none is
    ranked on the task), and the stored paired test between them (`language_pair_tests` rows)."""
    ranked = set(ranked)
    out = []
    for task, rows in cells.groupby("task", sort=False):
        pool = rows[rows["model"].isin(ranked)] if rows["model"].isin(ranked).any() else rows
        pool = pool.sort_values(["value", "model"], ascending=[False, True])
        leader = pool.iloc[0]
        second = pool.iloc[1] if len(pool) > 1 else None
        clear = None
        if second is not None:
            test = tests[(tests["task"] == task) & (tests["model_a"] == leader["model"])
                         & (tests["model_b"] == second["model"]) & (tests["n"] > 0)]
            if not test.empty:
                clear = excludes(test.iloc[0]["ci_low"], test.iloc[0]["ci_high"], 0.0)
        out.append(TaskLead(task, leader["model"], None if second is None else second["model"],
                            None if second is None else float(leader["value"] - second["value"]), clear))
    return out


def ranked_models(cells: pd.DataFrame) -> set[str]:
    """Models of `language_cells`-like rows (model, origin, n) that are ranked there: evaluated or uploaded, with
    at least STUB_MIN_ITEMS answers over those cells."""
    items = cells.groupby("model").agg(origin=("origin", "first"), items=("n", "sum")).reset_index()
    rows = with_stubs(items)
    return set(rows.loc[rows["ranked"], "model"])


def language_means(standing: pd.DataFrame, ranked: Iterable[str]) -> pd.DataFrame:
    """`language_standing` rows (the stored language roll-ups) kept to `ranked` models when any of them is there,
    best first: model, mean, tasks."""
    ranked = set(ranked)
    pool = standing[standing["model"].isin(ranked)] if standing["model"].isin(ranked).any() else standing
    return pool.sort_values(["mean", "model"], ascending=[False, True]).reset_index(drop=True)


def lead_sentence(language: str, prompt: str, means: pd.DataFrame, tests: pd.DataFrame) -> str:
    """Plain text: who leads `language`, by how much over the runner-up, and on how many tasks the lead is
    statistically clear (the stored paired test of the two, `language_pair_tests` rows: 95% interval of the
    difference excludes 0)."""
    if means.empty:
        return f"No scored {language} results with the {prompt}."
    top = means.iloc[0]
    head = (f"In {language} ({prompt}), {top['model']} leads with a normalised language score of "
            f"{top['mean']:.1f} over {int(top['tasks'])} task{'s' if top['tasks'] != 1 else ''}")
    if len(means) < 2:
        return head + "; no other model has results to compare with."
    second = means.iloc[1]
    head += f", {top['mean'] - second['mean']:.1f} points ahead of {second['model']} ({second['mean']:.1f})."
    pair = tests[(tests["model_a"] == top["model"]) & (tests["model_b"] == second["model"]) & (tests["n"] > 0)]
    if pair.empty:
        return head + " No paired test between the two is stored, so whether the lead is clear is not known."
    clear = [excludes(lo, hi, 0.0) and d > 0 for lo, hi, d in zip(pair["ci_low"], pair["ci_high"], pair["diff"])]
    if len(clear) == 1:
        verdict = ("The lead is statistically clear on the one task where the two were paired" if clear[0] else
                   "The lead is not statistically clear: on the one paired task the 95% interval of the difference "
                   "does not lie above 0")
    elif all(clear):
        verdict = f"The lead is statistically clear on all {len(clear)} tasks where the two were paired"
    elif not any(clear):
        verdict = (f"The lead is not statistically clear: on none of the {len(clear)} paired tasks does the 95% "
                   "interval of the difference lie above 0")
    else:
        verdict = (f"The lead is statistically clear on {sum(clear)} of {len(clear)} paired tasks; on the others "
                   "the difference is within noise or favours the runner-up")
    return f"{head} {verdict} (paired test, 95% interval of the difference)."


def board_rows(models: pd.DataFrame, families: Sequence[str], prompts: Sequence[str],
               family: str | None = None) -> pd.DataFrame:
    """The `board_models` rows of one board: `family` on the prompt it opens on, or the board the leaderboard opens
    on when `family` is None (empty when nothing is scored there)."""
    if family is None:
        pick = default_board(models, families, prompts)
    else:
        prompt = default_prompt(models, family, prompts)
        pick = (family, prompt) if prompt else None
    if pick is None:
        return models.iloc[0:0]
    return models[(models["family"] == pick[0]) & (models["prompt_lang"] == pick[1])]


def ranks_without_stubs(intervals: pd.DataFrame) -> tuple[tuple[str, int, int], ...]:
    """(model, best rank, worst rank) by the interval-overlap rule (`evaluator.ranking.rank_ranges`) over the
    `board_intervals` rows that are not stubs (a missing bound counts as the point, as the stored ranks do)."""
    from evaluator.ranking import rank_ranges

    rows = intervals[(intervals["items"] >= STUB_MIN_ITEMS) & intervals["overall"].notna()]
    known = {m: (lo if lo == lo and lo is not None else v, hi if hi == hi and hi is not None else v)
             for m, v, lo, hi in zip(rows["model"], rows["overall"], rows["low"], rows["high"])}
    return tuple(sorted((m, b, w) for m, (b, w) in rank_ranges(known).items())) if known else ()


def language_table(cells: pd.DataFrame, tests: pd.DataFrame, ranked: Iterable[str], prompt_lang: str,
                   describe: dict[str, str]) -> pd.DataFrame:
    """One row per task of a language (`language_cells` rows), ranked by the leader's normalised score (its
    strongest task first): task, leader, normalized (the leader's, 0 = chance), score (its headline value, 0-100),
    ci (its 95% interval as text), gap (points ahead of the runner-up), clear ("yes" / "no: within noise" / "—"
    without a stored paired test), runner_up, fails (a Compare link to the items the leader got wrong),
    competency (short plain words), what (the task in plain words from `describe`), n, models (scored on it)."""
    from urllib.parse import urlencode

    rows = []
    for lead in task_leads(cells, tests, ranked):
        cell = cells[(cells["task"] == lead.task) & (cells["model"] == lead.leader)].iloc[0]
        rows.append({
            "task": lead.task, "leader": lead.leader, "normalized": cell["normalized"], "score": float(cell["value"]),
            "ci": f"{cell['ci_low']:.1f}–{cell['ci_high']:.1f}" if cell["ci_low"] == cell["ci_low"] else "—",
            "gap": lead.gap, "clear": "—" if lead.clear is None else "yes" if lead.clear else "no: within noise",
            "runner_up": lead.runner_up or "—",
            "fails": "/compare?" + urlencode({"task": lead.task, "lang": cell["lang"],
                                              "sys": f"{lead.leader}|{prompt_lang}", "slice": "any_wrong"}),
            "competency": competency_words(cell["grp"]).split(":")[0], "what": describe.get(lead.task, ""),
            "n": int(cell["n"]), "models": int((cells["task"] == lead.task).sum())})
    out = pd.DataFrame(rows, columns=["task", "leader", "normalized", "score", "ci", "gap", "clear", "runner_up",
                                      "fails", "competency", "what", "n", "models"])
    order = out["normalized"].where(out["normalized"].notna(), out["score"])
    return out.assign(_order=order).sort_values(["_order", "task"], ascending=[False, True]).drop(
        columns="_order").reset_index(drop=True)
