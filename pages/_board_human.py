"""The leaderboard's "human" column: one text cell per model from the stored results of FINISHED campaigns.

Self-contained (its own query, `human_board_cells`, and this helper) so the leaderboard's own queries stay as they are.
The numbers were computed once by evaluator.human.results when the campaign finished; this only formats them.
"""
from __future__ import annotations

import math

import pandas as pd

from pages._cached import q

COLUMN = "human"
HELP = ("Native-speaker judgements from finished human evaluation campaigns (Human evaluation page): MT as items a "
        "majority judged correct out of N, the share of correct judgements with its Wilson 95% interval and the mean "
        "ESA score; summaries as criterion means with 95% intervals; n = judgements. Not part of the rank.")
SHORT = {"relevance": "relevance", "fluency": "fluency", "coherence": "coherence", "faithfulness": "faithful",
         "esa": "ESA"}


def _interval(low: float, high: float, scale: float = 1.0, decimals: int = 1) -> str:
    if any(isinstance(x, float) and math.isnan(x) for x in (low, high)) or low is None or high is None:
        return ""
    return f" [{low * scale:.{decimals}f}–{high * scale:.{decimals}f}]"


def _cell(rows: pd.DataFrame) -> str:
    """One campaign's result for one model as text."""
    first = rows.iloc[0]
    by = rows.set_index("criterion")
    parts = []
    if first["protocol"] == "mt" and "correct" in by.index:
        r = by.loc["correct"]
        parts.append(f"{int(r['correct'])} of {int(r['items'])} correct, {r['value'] * 100:.0f}%"
                     f"{_interval(r['low'], r['high'], 100, 0)} of n={int(r['n'])}")
        if "esa" in by.index:
            e = by.loc["esa"]
            parts.append(f"ESA {e['value']:.1f}{_interval(e['low'], e['high'])} n={int(e['n'])}")
    else:
        for crit, r in by.iterrows():
            if crit.startswith("err_"):
                continue
            scale = 100 if crit == "faithfulness" else 1
            unit = "%" if scale == 100 else ""
            parts.append(f"{SHORT.get(crit, crit)} {r['value'] * scale:.1f}{unit}"
                         f"{_interval(r['low'], r['high'], scale)}")
        parts.append(f"n={int(by['n'].max())}")
    return f"{first['lang']} {first['task']}: " + ", ".join(parts)


def human_column(prompt_lang: str, family: str) -> pd.DataFrame:
    """model -> the `human` text (campaigns joined by "; "); empty when no finished campaign covers the board."""
    cells = q("human_board_cells", prompt_lang=prompt_lang, family=family)
    if cells.empty:
        return pd.DataFrame(columns=["model", COLUMN])
    texts = [(model, _cell(g)) for (model, _cid), g in cells.groupby(["model", "campaign_id"], sort=True)]
    out = pd.DataFrame(texts, columns=["model", COLUMN])
    return out.groupby("model", as_index=False)[COLUMN].agg("; ".join)


def with_human(board: pd.DataFrame, prompt_lang: str, family: str) -> pd.DataFrame:
    """The board with a `human` column after `model` when a finished campaign covers any of its models."""
    col = human_column(prompt_lang, family)
    if col.empty or board.empty or not set(col["model"]) & set(board["model"]):
        return board
    merged = board.merge(col, on="model", how="left")
    order = list(board.columns)
    order.insert(order.index("model") + 1, COLUMN)
    return merged[order]
