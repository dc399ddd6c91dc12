"""How far an LLM judge agrees with people: Kendall's tau between the judge's item scores and a finished human
campaign's ratings of the same answers, computed by the code that gives the metric-human tau
(`evaluator.human.results.metric_agreement`: item and system level, bootstrap 95% intervals over items).

The human side is the protocol's headline criterion; an imported ratings campaign has none, so each of its
criteria is compared. A judge without such a campaign is unvalidated."""
from __future__ import annotations

import pandas as pd

from evaluator.human import protocols, results
from evaluator.judge.judging import JUDGE_LABEL

UNVALIDATED = "unvalidated"
"""What a judge's agreement reads as when no finished human campaign rated the answers it judged."""

COLUMNS = ["criterion", "level", "tau", "low", "high", "n"]


def judge_human_tau(judgements: pd.DataFrame, judge: pd.DataFrame, protocol: str, seed: int = 0,
                    n_boot: int = 1000) -> pd.DataFrame:
    """criterion, level, tau, low, high, n: the judge's agreement with a campaign's `judgements` (its frame as
    `store.campaigns.judgements` gives it); `judge`: item_id, system, value (the judge's item scores, systems
    named as the campaign's candidates are)."""
    head = protocols.headline_of(protocol)
    scored = judgements[~judgements["criterion"].isin(protocols.NOTE_CRITERIA)]
    criteria = [head] if head else sorted(scored["criterion"].dropna().unique())
    frame = judge.assign(metric=JUDGE_LABEL)[["item_id", "system", "metric", "value"]]
    rows = []
    for c in criteria:
        got = results.metric_agreement(judgements, frame, protocol, seed=seed, n_boot=n_boot, criterion=c)
        for r in got.itertuples():
            rows.append({"criterion": c, "level": r.level, "tau": r.tau, "low": r.low, "high": r.high, "n": r.n})
    return pd.DataFrame(rows, columns=COLUMNS)
