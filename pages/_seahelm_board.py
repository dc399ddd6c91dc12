"""The leaderboard's SEA-HELM view: SEA-HELM's roll-up per model (services.seahelm_view states the rule), the
competencies behind each language, and the SEA-HELM files' own totals beside (widgets only)."""
from __future__ import annotations

import streamlit as st

from evaluator.registry import LANG_NAMES
from pages._cached import q, section
from pages._ui import dashed, empty_state, table
from services.seahelm_view import seahelm_board

VIEWS = ("Tanaw (BHASA rule)", "SEA-HELM rule")
"""The leaderboard's views: Tanaw's own roll-up, or SEA-HELM's."""


def show(prompt_lang: str, prompt: str, models: tuple[str, ...] | None) -> None:
    """The SEA-HELM view of the models passing the filters, scored with `prompt_lang`."""
    view = section(("leaderboard", "seahelm", prompt_lang, models), lambda: seahelm_board(
        q("seahelm_rescored", prompt_lang=prompt_lang, models=models), q("seahelm_reported", models=models)))
    st.subheader(f"SEA-HELM view · normalised scores · {prompt} prompt")
    st.caption(view.rule)
    st.caption("Scores come from Tanaw's re-scoring of each cell where it has the task (classification tasks: "
               "SEA-HELM's normalised balanced accuracy; translation: Tanaw's chrF++ where SEA-HELM uses MetricX-24), "
               "else from an uploaded SEA-HELM file's own score for the task. Not ranked; SEA-HELM's prompts are "
               "native, so the native prompt is its like-for-like view.")
    if view.board.empty:
        empty_state(f"No scores on SEA-HELM's tasks with the {prompt} prompt pass the filters.",
                    "Switch the prompt language, clear the model filters, or upload a SEA-HELM results file or "
                    "inference folder on the Upload page.")
        return
    numbers = {c: 1 for c in ("SEA average", *LANG_NAMES) if c in view.board.columns}
    cols = {c: st.column_config.NumberColumn(c) for c in numbers}
    cols["why"] = st.column_config.TextColumn("why no SEA average", width="large")
    table(view.board, f"seahelm-view-{prompt_lang}", columns=cols, display=lambda: dashed(view.board, numbers),
          shared=("leaderboard", "seahelm-board", prompt_lang, models))
    with st.expander("Each language: its competencies, where each score comes from, and what is missing"):
        comps = view.competencies
        table(comps, f"seahelm-competencies-{prompt_lang}", display=lambda: dashed(comps, {"score": 1}),
              columns={"score": st.column_config.NumberColumn("score"),
                       "why": st.column_config.TextColumn("why missing", width="large")},
              shared=("leaderboard", "seahelm-competencies", prompt_lang, models))
    if not view.file_totals.empty:
        st.markdown("**The SEA-HELM files' own totals** (as each file gives them; SEA-HELM counts a failed task as 0, "
                    "so they can differ from the view above)")
        totals = view.file_totals
        table(totals, f"seahelm-file-totals-{prompt_lang}", display=lambda: dashed(totals, {"value": 1}),
              columns={"value": st.column_config.NumberColumn("file's value")},
              shared=("leaderboard", "seahelm-file-totals", prompt_lang, models))
