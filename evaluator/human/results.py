"""Campaign results from judgement rows, pure: per-system means with 95% intervals, agreement, quality checks,
and the agreement of automatic metrics with the human scores.

Input frames: judgements with the columns of `store.campaigns.JUDGEMENT_COLUMNS` (annotator, seq, item_id,
is_repeat, cand_id, system, criterion, value), and metric scores (item_id, system, metric, value). Quality-check
repeats and the corrupted candidate never count in the results; they feed `quality` only.
"""
from __future__ import annotations

import math

import pandas as pd

from evaluator.human import agreement, protocols
from evaluator.human.campaign import CORRUPTED


def _scored(j: pd.DataFrame) -> pd.DataFrame:
    keep = (~j["is_repeat"].astype(bool)) & (j["system"] != CORRUPTED) & ~j["criterion"].isin(protocols.NOTE_CRITERIA)
    return j[keep]


def _criteria(j: pd.DataFrame, protocol: str) -> tuple[protocols.Criterion, ...]:
    return protocols.criteria_of(protocol, tuple(dict.fromkeys(j["criterion"])))


def system_means(j: pd.DataFrame, protocol: str) -> pd.DataFrame:
    """Per system and criterion: mean, 95% interval, n judgements, n items; for MT's `correct` also the items a
    majority judged correct ("correct out of N")."""
    binary = {c.name for c in _criteria(j, protocol) if c.low == 0 and c.high == 1}
    rows = []
    for (system, crit), g in _scored(j).groupby(["system", "criterion"], sort=True):
        est = agreement.mean_interval(g["value"].tolist(), binary=crit in binary)
        row = {"system": system, "criterion": crit, "mean": est.value, "low": est.low, "high": est.high,
               "n": est.n, "items": g["item_id"].nunique()}
        if crit == "correct":
            votes = g.groupby("item_id")["value"].mean()
            row["correct_of_n"] = f"{int((votes > 0.5).sum())} of {len(votes)}"
        rows.append(row)
    return pd.DataFrame(rows, columns=["system", "criterion", "mean", "low", "high", "n", "items", "correct_of_n"])


def alphas(j: pd.DataFrame, protocol: str) -> pd.DataFrame:
    """Krippendorff's alpha per criterion; a unit is one candidate of one item."""
    rows = []
    by_criterion = dict(tuple(_scored(j).groupby("criterion", sort=False)))
    for crit in _criteria(j, protocol):
        g = by_criterion.get(crit.name)
        if g is None:
            continue
        units: dict[str, dict[str, float]] = {}
        for item, cand, annotator, value in zip(g["item_id"].tolist(), g["cand_id"].tolist(),
                                                g["annotator"].tolist(), g["value"].tolist()):
            units.setdefault(f"{item}/{cand}", {})[annotator] = value
        paired = sum(1 for u in units.values() if len(u) >= 2)
        if not paired:
            continue
        rows.append({"criterion": crit.name, "level": crit.level, "alpha": agreement.alpha(units, crit.level),
                     "units": paired, "annotators": g["annotator"].nunique()})
    return pd.DataFrame(rows, columns=["criterion", "level", "alpha", "units", "annotators"])


def quality(j: pd.DataFrame, protocol: str) -> pd.DataFrame:
    """Per annotator: share of repeated judgements equal to the first one, and whether the corrupted candidate
    was caught (judged incorrect for MT; unfaithful or relevance <= 2 for summaries)."""
    head = protocols.headline_of(protocol)
    rows = []
    for name, g in j[~j["criterion"].isin(protocols.NOTE_CRITERIA)].groupby("annotator", sort=True):
        first = g[~g["is_repeat"].astype(bool)].set_index(["item_id", "cand_id", "criterion"])["value"]
        again = g[g["is_repeat"].astype(bool)].set_index(["item_id", "cand_id", "criterion"])["value"]
        both = again[again.index.isin(first.index)]
        same = float((both == first.loc[both.index]).mean()) if len(both) else math.nan
        bad = g[(g["system"] == CORRUPTED) & ~g["is_repeat"].astype(bool)].set_index("criterion")["value"]
        if bad.empty:
            caught = None
        elif protocol == "mt":
            caught = bool(bad.get("correct", 1) == 0)
        else:
            caught = bool(bad.get("faithfulness", 1) == 0 or bad.get(head, 5) <= 2)
        rows.append({"annotator": name, "repeat_agreement": same, "repeats": len(both), "caught_corrupted": caught})
    return pd.DataFrame(rows, columns=["annotator", "repeat_agreement", "repeats", "caught_corrupted"])


def metric_agreement(j: pd.DataFrame, metrics: pd.DataFrame, protocol: str, seed: int = 0,
                     n_boot: int = 1000, criterion: str | None = None) -> pd.DataFrame:
    """Kendall's tau of every automatic metric with the human headline criterion (or `criterion`; mean over
    annotators), at item level and system level, with bootstrap 95% intervals over items (NaN intervals for
    n_boot = 0). An LLM judge's scores are compared the same way (`evaluator.judge.agreement`)."""
    head = criterion or protocols.headline_of(protocol)
    rows = []
    if head is None or metrics.empty:
        return pd.DataFrame(rows, columns=["metric", "level", "tau", "low", "high", "n"])
    h = _scored(j)
    human = h[h["criterion"] == head].groupby(["item_id", "system"])["value"].mean()
    for metric, g in metrics.groupby("metric", sort=True):
        m = g.groupby(["item_id", "system"])["value"].mean()
        pairs = {k: (float(human[k]), float(m[k])) for k in human.index if k in m.index}
        if len(pairs) < 2:
            continue
        for level, fn in (("item", agreement.item_tau), ("system", agreement.system_tau)):
            est = fn(pairs, seed=seed, n_boot=n_boot)
            rows.append({"metric": metric, "level": level, "tau": est.value, "low": est.low, "high": est.high,
                         "n": est.n})
    return pd.DataFrame(rows, columns=["metric", "level", "tau", "low", "high", "n"])


def alphas_by_language(j: pd.DataFrame) -> pd.DataFrame:
    """Krippendorff's alpha per protocol, language and criterion across campaigns (`j` has the campaign_id, lang
    and protocol columns); a unit is one candidate of one item of one campaign."""
    rows = []
    for (protocol, lang), g in j.groupby(["protocol", "lang"], sort=True):
        units_of = g.assign(item_id=g["campaign_id"] + "/" + g["item_id"])
        got = alphas(units_of, protocol)
        got.insert(0, "campaigns", g["campaign_id"].nunique())
        got.insert(0, "lang", lang)
        got.insert(0, "protocol", protocol)
        rows.append(got)
    cols = ["protocol", "lang", "campaigns", "criterion", "level", "alpha", "units", "annotators"]
    return pd.concat(rows, ignore_index=True)[cols] if rows else pd.DataFrame(columns=cols)


RESULT_COLUMNS = ("kind", "system", "criterion", "level", "value", "low", "high", "n", "items", "correct")
"""The rows `stored_results` gives, as the store's campaign_results table holds them (without campaign_id)."""


def stored_results(j: pd.DataFrame, metrics: pd.DataFrame, protocol: str, seed: int = 0,
                   n_boot: int = 1000) -> pd.DataFrame:
    """A campaign's results in one long frame: per-system means (kind mean), alpha per criterion (kind alpha) and
    Kendall's tau of every automatic metric (kind tau), each with its 95% interval and n. An open campaign's
    provisional results use n_boot = 0: tau without its bootstrap interval, which is computed when it finishes."""
    rows = []
    for r in system_means(j, protocol).itertuples():
        correct = int(str(r.correct_of_n).split(" of ")[0]) if isinstance(r.correct_of_n, str) else None
        rows.append(("mean", r.system, r.criterion, "", r.mean, r.low, r.high, r.n, r.items, correct))
    for r in alphas(j, protocol).itertuples():
        rows.append(("alpha", "", r.criterion, r.level, r.alpha, math.nan, math.nan, r.units, None, None))
    for r in metric_agreement(j, metrics, protocol, seed=seed, n_boot=n_boot).itertuples():
        rows.append(("tau", "", r.metric, r.level, r.tau, r.low, r.high, r.n, None, None))
    return pd.DataFrame(rows, columns=list(RESULT_COLUMNS))
