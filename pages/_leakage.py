"""The leaderboard's leakage section: a badge per flagged cell with its evidence, and the clean-items view that
shows a flagged cell's score on the items no signal flagged beside its full score (ranks never change).

Widgets only: the signals, their evidence and the clean score come from `services.leakage` (stored rows, the model
cards' declarations, the evaluator's one aggregate). Every text is data: shown in grids and plain text, never as
Markdown."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages._cached import reading, version
from pages._ui import dashed, frame, md_escape, table
from services.leakage import clean_table, flagged_table

BADGE = "⚠ leakage"
NUMBERS = {"items flagged": 0, "n items": 0, "share %": 1, "ci low %": 1, "ci high %": 1, "p-value": 4}
HELP = ("Signals that a score may be memorised (Methodology → Data leakage): mt_verbatim, an answer that reproduces "
        "the reference (exact after normalisation, or chrF++ ≥ 95; copies of the source excluded); ngram_overlap, "
        "50+ characters shared with the reference that the inputs do not contain; unexplained_entities, a name in "
        "the reference and the answer but not in the article; declared, the model card names this benchmark's data; "
        "probes of the leakage run mode. Flags never change ranks.")


@st.cache_data(show_spinner=False, max_entries=64)
def _flagged(at_version: tuple, family: str, prompt_lang: str, models: tuple | None) -> pd.DataFrame:
    with reading() as con:
        return flagged_table(con, family, prompt_lang, list(models) if models is not None else None)


@st.cache_data(show_spinner=False, max_entries=64)
def _clean(at_version: tuple, model: str, task: str, lang: str, prompt_lang: str) -> pd.DataFrame:
    with reading() as con:
        return clean_table(con, model, task, lang, prompt_lang)


def cell_badges(family: str, prompt_lang: str, models: tuple | None) -> pd.DataFrame:
    """(model, task, lang, leakage) per flagged cell: the badge and every signal's evidence in one text cell."""
    flagged = _flagged(version(), family, prompt_lang, models)
    if flagged.empty:
        return pd.DataFrame(columns=["model", "task", "lang", "leakage"])
    return (flagged.groupby(["model", "task", "lang"], as_index=False)["evidence"]
            .agg(lambda ev: f"{BADGE}: " + "; ".join(ev)).rename(columns={"evidence": "leakage"}))


def leakage_section(bench: str, family: str, prompt_lang: str, models: tuple | None) -> None:
    """The section: flagged cells with their evidence, then the clean-items view of one of them."""
    st.subheader("Leakage signals")
    flagged = _flagged(version(), family, prompt_lang, models)
    if flagged.empty:
        st.caption(f"No leakage signal flags a {md_escape(bench)} cell with this prompt. {md_escape(HELP)}")
        return
    st.caption(md_escape(HELP))
    shown = flagged[["badge", "model", "task", "lang", "evidence", "items flagged", "n items", "share %", "ci low %",
                     "ci high %", "p-value", "flagged item ids", "signal", "rule"]]
    table(shown, f"leakage-{family}-{prompt_lang}", display=lambda: dashed(shown, NUMBERS),
          columns={c: st.column_config.NumberColumn(c) for c in NUMBERS} | {
              "badge": st.column_config.TextColumn("badge", width="small"),
              "evidence": st.column_config.TextColumn("evidence", width="large"),
              "rule": st.column_config.TextColumn("rule", width="large"),
              "flagged item ids": st.column_config.TextColumn("flagged items", width="medium")})
    cells = list(dict.fromkeys(zip(flagged["model"], flagged["task"], flagged["lang"])))
    pick = st.selectbox("Clean items of a flagged cell", range(len(cells)), key="leak_cell",
                        format_func=lambda i: " · ".join(cells[i]),
                        help="The cell recomputed on the items no signal flagged, by the same aggregate as the "
                             "board, beside its score on every item. The board's rank uses the full score.")
    model, task, lang = cells[pick]
    clean = _clean(version(), model, task, lang, prompt_lang)
    frame(dashed(clean, {"score": 1, "ci low": 1, "ci high": 1, "n items": 0}), hide_index=True,
          key=f"leak_clean_{pick}")
    whole = flagged[(flagged["model"] == model) & (flagged["task"] == task) & (flagged["lang"] == lang)
                    & (flagged["items flagged"] == 0)]
    for evidence in whole["evidence"]:
        st.caption("Flags the whole cell (no item list, so no clean items to keep): " + md_escape(evidence))
