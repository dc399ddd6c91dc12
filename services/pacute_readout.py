"""The PACUTE page's read-out: the stored hierarchy levels of the chosen models put into words by
evaluator.pacute_readout (L2 against L0-L1 and against chance), as a plain frame the page shows as text."""
from __future__ import annotations

from dataclasses import asdict

import pandas as pd

from evaluator.pacute_readout import Readout, readouts

COLUMNS = list(Readout.__dataclass_fields__)


def pacute_readout(levels: pd.DataFrame, chance: float) -> pd.DataFrame:
    """One row per model with L0, L1 and L2 in `levels` (the `pacute_levels` query): verdict, base (L0-L1 pooled)
    and L2 with their 95% intervals, chance, the best of L3-L5 and the sentence."""
    if levels.empty:
        return pd.DataFrame(columns=COLUMNS)
    rows = levels[["model_id", "level", "n", "correct"]].to_dict("records")
    return pd.DataFrame([asdict(r) for r in readouts(rows, chance)], columns=COLUMNS)
