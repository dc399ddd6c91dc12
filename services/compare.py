"""The Compare page's significance test, computed by the evaluator (`evaluator.aggregate.paired_test`) on the
per-item scores the store returned: exact McNemar for 0/1 scores, a seeded paired bootstrap otherwise; and the
differences between the systems' run cards (`evaluator.runcards`)."""
from __future__ import annotations

import pandas as pd

from evaluator.aggregate import PairedTest, paired_test
from evaluator.runcards import card_diff, run_card
from store import cached

__all__ = ["PairedTest", "paired_test", "run_cards", "run_card_diff"]


def run_cards(task: str, lang: str, systems: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """{system: run card of its first current run} for a cell (systems without a run are left out)."""
    runs = cached.q("compare_runs", task=task, lang=lang, systems=systems)
    firsts = runs.drop_duplicates("system").set_index("system")
    return {s: run_card(firsts.loc[s].to_dict()) for s in systems if s in firsts.index}


def run_card_diff(task: str, lang: str, systems: tuple[str, ...]) -> pd.DataFrame:
    """The run-card settings that differ between `systems` on a cell: setting, then one column per system."""
    return pd.DataFrame(card_diff(run_cards(task, lang, systems)), columns=["setting", *systems])
