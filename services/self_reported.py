"""Re-scored and self-reported values of an upload side by side on one scale (0-100), with the rule that explains
the difference: what the Upload page shows after an import."""
from __future__ import annotations

import pandas as pd

from evaluator.methodology.pacute_compat import RULES as PACUTE_RULES

SHARE_MAX = 1.0
"""A file's per-item scores are 0-1 shares when none exceeds this: shown ×100, on Tanaw's 0-100 scale."""
RULES = {
    "pacute-bench": "; ".join(PACUTE_RULES[k] for k in ("normalisation", "unclosed_answer")),
    "other": "Tanaw extracts each answer from the raw output and scores it against its own gold with its own "
             "metric (Methodology → Differences)",
}
"""Why a harness's own per-item scores can differ from Tanaw's, by harness."""


def side_by_side(rows: pd.DataFrame) -> pd.DataFrame:
    """`rescored_and_reported` rows on one scale: task, lang, prompt, metric, re-scored, self-reported (×100 when
    the file's values are shares), difference (re-scored − self-reported, points), why, items, differing."""
    if rows.empty:
        return pd.DataFrame(columns=["task", "lang", "prompt", "metric", "re-scored", "self-reported", "difference",
                                     "why", "items", "differing"])
    scale = 100.0 if rows["reported"].max() <= SHARE_MAX else 1.0
    reported = rows["reported"] * scale
    why = []
    for harness, items, differing in zip(rows["harness"], rows["items"], rows["differing"]):
        if not differing:
            why.append(f"all {items} items scored alike")
        else:
            why.append(f"{differing} of {items} items scored differently: {RULES.get(harness, RULES['other'])}")
    return pd.DataFrame({"task": rows["task"], "lang": rows["lang"], "prompt": rows["prompt_lang"],
                         "metric": rows["metric"], "re-scored": rows["rescored"], "self-reported": reported,
                         "difference": rows["rescored"] - reported, "why": why, "items": rows["items"],
                         "differing": rows["differing"]})


def summary_on_scale(rows: pd.DataFrame) -> pd.DataFrame:
    """`self_reported_summary` rows with `value` on 0-100 (×100 when the file's values are shares)."""
    if rows.empty:
        return rows
    scale = 100.0 if rows["value"].max() <= SHARE_MAX else 1.0
    return rows.assign(value=rows["value"] * scale)
