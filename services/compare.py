"""The Compare page's run cards and the settings that differ between the systems' runs (`evaluator.runcards`).

Its paired tests are not computed here: they are stored when results are (services.pair_tests, schema V13) and the
page reads them with the `compare_pair_tests` query."""
from __future__ import annotations

import json

import pandas as pd

from evaluator.runcards import card_diff, run_card

__all__ = ["instruction_outcomes", "run_cards", "run_card_diff"]


def run_cards(task: str, lang: str, systems: tuple[str, ...], runs: pd.DataFrame) -> dict[str, dict[str, str]]:
    """{system: run card of its first current run} for a cell (systems without a run are left out); `runs`: the
    `compare_runs` frame of the cell and systems, as the page read it."""
    firsts = runs.drop_duplicates("system").set_index("system")
    return {s: run_card(firsts.loc[s].to_dict()) for s in systems if s in firsts.index}


def run_card_diff(task: str, lang: str, systems: tuple[str, ...], runs: pd.DataFrame) -> pd.DataFrame:
    """The run-card settings that differ between `systems` on a cell: setting, then one column per system (`runs`
    as for `run_cards`)."""
    return pd.DataFrame(card_diff(run_cards(task, lang, systems, runs)), columns=["setting", *systems])


INSTRUCTION_COLUMNS = ("instruction", "strict", "loose")


def instruction_outcomes(extras: object) -> pd.DataFrame | None:
    """An instruction-following answer's outcome as the `instructions` answer reader stored it
    (`evaluator.instructions`): one row per instruction (its id, followed or FAILED strictly and loosely), failed
    ones first, then the response-language check; None for an answer without one (other tasks)."""
    try:
        data = json.loads(extras) if isinstance(extras, str) else extras
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("instructions"), list):
        return None

    def word(ok: object) -> str:
        return "followed" if ok is True else "FAILED"

    strict, loose = list(data.get("strict") or []), list(data.get("loose") or [])
    rows = [(str(inst), word(strict[i] if i < len(strict) else None), word(loose[i] if i < len(loose) else None))
            for i, inst in enumerate(data["instructions"])]
    rows.sort(key=lambda r: r[1] != "FAILED")
    language = (f"response language {data.get('language')} (detected {data.get('detected_language')})",
                *(("followed" if data.get("language_ok") else "FAILED",) * 2))
    return pd.DataFrame([*rows, language], columns=list(INSTRUCTION_COLUMNS))
