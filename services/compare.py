"""The Compare page's run cards and the settings that differ between the systems' runs (`evaluator.runcards`).

Its paired tests are not computed here: they are stored when results are (services.pair_tests, schema V13) and the
page reads them with the `compare_pair_tests` query."""
from __future__ import annotations

import pandas as pd

from evaluator.runcards import card_diff, run_card

__all__ = ["run_cards", "run_card_diff"]


def run_cards(task: str, lang: str, systems: tuple[str, ...], runs: pd.DataFrame) -> dict[str, dict[str, str]]:
    """{system: run card of its first current run} for a cell (systems without a run are left out); `runs`: the
    `compare_runs` frame of the cell and systems, as the page read it."""
    firsts = runs.drop_duplicates("system").set_index("system")
    return {s: run_card(firsts.loc[s].to_dict()) for s in systems if s in firsts.index}


def run_card_diff(task: str, lang: str, systems: tuple[str, ...], runs: pd.DataFrame) -> pd.DataFrame:
    """The run-card settings that differ between `systems` on a cell: setting, then one column per system (`runs`
    as for `run_cards`)."""
    return pd.DataFrame(card_diff(run_cards(task, lang, systems, runs)), columns=["setting", *systems])
