"""Compare's conversation view: one multi-turn conversation, each turn's user message and every chosen system's
answer side by side, all as plain text (`st.code`), then the LLM judge's scores of the cell, labelled as judge
scores, each beside its agreement with people (or "unvalidated")."""
from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from pages._cached import q, q_many, reading, version
from pages._ui import empty_state, md_escape, table
from services.judge import judge_view
from store.queries.compare import LABELS

JUDGE_COLUMNS = {"judge score": st.column_config.NumberColumn(
                     "judge score", format="%.2f",
                     help="The LLM judge's mean over judged turns: 1-10 rating (single) or 1 win, 0.5 tie, 0 loss "
                          "against the reference model (pairwise). A judge score, not a metric score."),
                 "agreement": st.column_config.TextColumn(
                     "judge-human agreement",
                     help="Item-level Kendall's tau with a finished human campaign of this cell, 95% bootstrap "
                          "interval; 'unvalidated' when no campaign rated these answers.")}


@st.cache_data(show_spinner=False, max_entries=64)
def _judges(at_version: tuple, task: str, lang: str) -> pd.DataFrame:
    with reading() as con:
        return judge_view(con, task, lang)


def show(allowed: set[str]) -> None:
    """The conversation view for the models in `allowed`."""
    cells = q("chat_cells")
    if cells.empty:
        empty_state("No conversation results yet.", "Run a chat task (sea-mt-bench) or import SEA-HELM's mt-bench "
                    "inference files.")
        return
    c1, c2 = st.columns([2, 1])
    tasks = sorted(cells["task"].unique())
    task = c1.selectbox("Conversation task", tasks, key="chat_task", bind="query-params")
    lang = c2.selectbox("Language", sorted(cells.loc[cells["task"] == task, "lang"]), key="chat_lang",
                        bind="query-params")
    systems_df, items = q_many(("compare_systems", {"task": task, "lang": lang}),
                               ("chat_items", {"task": task, "lang": lang}))
    options = [s for s, m in zip(systems_df["system"], systems_df["model_id"]) if m in allowed]
    systems = st.multiselect("Systems (model|prompt language), in order A, B, C, D", options,
                             default=options[:2], key="chat_sys", bind="query-params", max_selections=len(LABELS))
    judges = _judges(version(), task, lang)
    st.markdown("**LLM judge scores** (judge scores, kept apart from metric scores)")
    if judges.empty:
        st.caption("No judge has scored this cell yet (python -m evaluator judge).")
    else:
        shown = judges[judges["system"].isin(systems)] if systems else judges
        table(shown[["judge", "kind", "origin", "system", "judge score", "items", "agreement", "template"]],
              f"judge_scores_{task}_{lang}", columns=JUDGE_COLUMNS)
    if not systems or items.empty:
        empty_state("No conversation to show.", "Choose one to four systems above.")
        return
    labels = {row.item_id: f"{row.item_id} · {row.category}" if isinstance(row.category, str) else row.item_id
              for row in items.itertuples()}
    item_id = st.selectbox("Conversation", list(labels), format_func=labels.get, key="chat_item",
                           bind="query-params")
    turns = json.loads(items.loc[items["item_id"] == item_id, "turns"].iloc[0] or "[]")
    answers = q("chat_turns", task=task, lang=lang, item_id=item_id, systems=tuple(systems))
    for n, question in enumerate(turns, start=1):
        with st.container(border=True):
            st.markdown(f"**Turn {n} · user**")
            st.code(str(question), language=None, wrap_lines=True)
            for col, label, system in zip(st.columns(len(systems)), LABELS, systems):
                with col:
                    st.markdown(f"**{label} · {md_escape(system)}**")
                    got = answers[(answers["system"] == system) & (answers["turn"] == n)]
                    if got.empty or not isinstance(got.iloc[0]["output"], str):
                        st.caption("No answer to this turn.")
                    else:
                        st.code(got.iloc[0]["output"], language=None, wrap_lines=True)
