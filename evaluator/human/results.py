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
    keep = (~j["is_repeat"].astype(bool)) & (j["system"] != CORRUPTED) & (j["criterion"] != "comment")
    return j[keep]


def system_means(j: pd.DataFrame, protocol: str) -> pd.DataFrame:
    """Per system and criterion: mean, 95% interval, n judgements, n items; for MT's `correct` also the items a
    majority judged correct ("correct out of N")."""
    proto = protocols.PROTOCOLS[protocol]
    binary = {c.name for c in proto.criteria if c.low == 0 and c.high == 1}
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
    proto = protocols.PROTOCOLS[protocol]
    rows = []
    scored = _scored(j)
    for crit in proto.criteria:
        g = scored[scored["criterion"] == crit.name]
        units: dict[str, dict[str, float]] = {}
        for r in g.itertuples():
            units.setdefault(f"{r.item_id}/{r.cand_id}", {})[r.annotator] = r.value
        paired = sum(1 for u in units.values() if len(u) >= 2)
        if not paired:
            continue
        rows.append({"criterion": crit.name, "level": crit.level, "alpha": agreement.alpha(units, crit.level),
                     "units": paired, "annotators": g["annotator"].nunique()})
    return pd.DataFrame(rows, columns=["criterion", "level", "alpha", "units", "annotators"])


def quality(j: pd.DataFrame, protocol: str) -> pd.DataFrame:
    """Per annotator: share of repeated judgements equal to the first one, and whether the corrupted candidate
    was caught (judged incorrect for MT; unfaithful or relevance <= 2 for summaries)."""
    head = protocols.PROTOCOLS[protocol].headline
    rows = []
    for name, g in j[j["criterion"] != "comment"].groupby("annotator", sort=True):
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
                     n_boot: int = 1000) -> pd.DataFrame:
    """Kendall's tau of every automatic metric with the human headline criterion (mean over annotators), at item
    level and system level, with bootstrap 95% intervals over items."""
    head = protocols.PROTOCOLS[protocol].headline
    h = _scored(j)
    human = h[h["criterion"] == head].groupby(["item_id", "system"])["value"].mean()
    rows = []
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
