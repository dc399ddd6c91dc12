"""The Compare page's run cards and the settings that differ between the systems' runs (`evaluator.runcards`).

Its paired tests are not computed here: they are stored when results are (services.pair_tests, schema V13) and the
page reads them with the `compare_pair_tests` query."""
from __future__ import annotations

import pandas as pd

from evaluator.runcards import card_diff, run_card
from store import cached

__all__ = ["run_cards", "run_card_diff"]


def run_cards(task: str, lang: str, systems: tuple[str, ...], runs: pd.DataFrame | None = None
              ) -> dict[str, dict[str, str]]:
    """{system: run card of its first current run} for a cell (systems without a run are left out); `runs`: the
    `compare_runs` frame of the cell and systems when the caller read it."""
    runs = cached.q("compare_runs", task=task, lang=lang, systems=systems) if runs is None else runs
    firsts = runs.drop_duplicates("system").set_index("system")
    return {s: run_card(firsts.loc[s].to_dict()) for s in systems if s in firsts.index}


def run_card_diff(task: str, lang: str, systems: tuple[str, ...], runs: pd.DataFrame | None = None) -> pd.DataFrame:
    """The run-card settings that differ between `systems` on a cell: setting, then one column per system (`runs`
    as for `run_cards`)."""
    return pd.DataFrame(card_diff(run_cards(task, lang, systems, runs)), columns=["setting", *systems])
