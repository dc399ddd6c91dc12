"""By language: which model is best in one language, by how much, whether the lead is clear, and where it fails."""
from __future__ import annotations

import streamlit as st

from evaluator.registry import LANG_NAMES, TASKS
from pages._cached import q, q_many
from pages._entry import ensure_app
from pages._ui import VIEW_LANGS, empty_state, md_escape, table
from services.board_view import (
    COMPETENCIES,
    FAMILY_WORDS,
    STUB_MIN_ITEMS,
    language_means,
    language_table,
    lead_sentence,
    ranked_models,
)

ensure_app()
PROMPTS = {"English prompt": "en", "Native prompt": "native"}
LANGS = VIEW_LANGS

st.title("Best model per language")
st.caption("Pick a language: who leads there, by how much, whether the lead is statistically clear, and the "
           "items each task's leader gets wrong. " + "; ".join(FAMILY_WORDS.values()) + ".")

first = next(iter(LANGS))
lang = LANGS[st.segmented_control("Language", list(LANGS), key="lang", bind="query-params", default=first) or first]
both = {p: q("language_cells", lang=lang, prompt_lang=code) for p, code in PROMPTS.items()}
with_results = [p for p, cells in both.items() if not cells.empty]
prompt_default = max(PROMPTS, key=lambda p: (len(ranked_models(both[p])), len(both[p]["model"].unique()),
                                               -list(PROMPTS).index(p)))
prompt = st.segmented_control("Prompt", list(PROMPTS), key="prompt", bind="query-params",
                              default=prompt_default) or prompt_default
prompt_lang, name = PROMPTS[prompt], LANG_NAMES[lang]
cells = both[prompt]
if cells.empty:
    empty_state(f"No scored {name} results with the {prompt.lower()}.",
                f"Also with results: {', '.join(with_results)}." if with_results
                else "Run or upload a model on this language's tasks.")
    st.stop()

standing, tests = q_many(("language_standing", {"lang": lang, "prompt_lang": prompt_lang}),
                         ("language_pair_tests", {"lang": lang, "prompt_lang": prompt_lang}))
ranked = ranked_models(cells)
st.subheader(f"{name}: who leads")
st.markdown(md_escape(lead_sentence(name, prompt, language_means(standing, ranked), tests)))
st.caption("The language score is each model's stored mean of its competency means in this language (normalised: 0 "
           "is chance, 100 perfect), over the tasks it has. A lead is statistically clear on a task when the paired "
           "test of the two models on the same items (stored with the results) gives a 95% interval of the difference "
           f"above 0. Ranked: evaluated and uploaded models with at least {STUB_MIN_ITEMS} scored answers here"
           + ("" if ranked else "; none yet, so every model with results is read") + ".")

st.subheader(f"{name} tasks, the leader's strongest first")
view = language_table(cells, tests, ranked, prompt_lang, {t: TASKS[t].description for t in TASKS})
# a grid cell is one line, so each task's description (up to ~230 characters) is listed under the table instead
table(view.drop(columns="what"), f"language-{lang}-{prompt_lang}", columns={
    "competency": st.column_config.TextColumn("competency", help="codes explained below the table"),
    "normalized": st.column_config.NumberColumn("normalised", format="%.1f", help="0 = chance, 100 = perfect"),
    "score": st.column_config.NumberColumn("score", format="%.1f", help="the task's headline metric, 0-100"),
    "ci": st.column_config.TextColumn("95% CI"),
    "runner_up": "runner-up",
    "gap": st.column_config.NumberColumn("lead (points)", format="%.1f"),
    "clear": st.column_config.TextColumn("lead clear?", help="paired test of leader and runner-up on the same "
                                                             "items: 95% interval of the difference above 0"),
    "fails": st.column_config.LinkColumn("where it fails", display_text="leader's wrong items",
                                         help="the items the leader got wrong, with its outputs, on Compare")})

with st.expander(f"What each {name} task tests"):
    for task, what in zip(view["task"], view["what"]):
        st.markdown(f"- **{md_escape(task)}**: {md_escape(what)}")
with st.expander("What the competency codes mean"):
    for code, words in COMPETENCIES.items():
        st.markdown(f"- **{code}**: {words}")
with st.expander(f"Every model on every {name} task"):
    table(cells[["task", "model", "origin", "metric", "value", "ci_low", "ci_high", "n", "chance", "normalized"]],
          f"language-cells-{lang}-{prompt_lang}", columns={
              "normalized": st.column_config.NumberColumn("normalized", format="%.1f")})
