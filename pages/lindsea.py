"""LINDSEA explorer: syntax / semantics / pragmatics (the paper's Figure 4) drilled down to subcategories."""
from __future__ import annotations

import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from evaluator.registry import family_langs
from pages._cached import q, q_many
from pages._entry import ensure_app
from pages._filters import filtered_models, leaders_first, model_filters
from pages._ui import (
    LANG_NAMES,
    PROMPT_NAMES,
    answer_text,
    dashed,
    empty_state,
    lang_label,
    mark,
    md_code,
    md_escape,
    plot_frame,
    plot_text,
    score_text,
    table,
    word_diff,
)

ensure_app()

st.title("LINDSEA linguistic diagnostics")
st.caption("Which linguistic phenomena break, per model and language. Scores are accuracy (0-100) with 95% Wilson "
           "intervals over items; an item asked in both option orders scores the mean of the two. Chance is 50% "
           "for the binary tasks.")

models = filtered_models(model_filters(), "lindsea-")
if not models:
    empty_state("No model with LINDSEA results passes the filters.",
                "Clear the model filters in the sidebar, or ingest LINDSEA results with `python -m evaluator ingest`.")
    st.stop()

c1, c2, c3 = st.columns([2, 1, 1])
model = c1.selectbox("Model", models, key="model", bind="query-params",  # opens on LINDSEA's leader
                     index=models.index(leaders_first(models, 1, "lindsea")[0]))
langs = family_langs("lindsea")
lang = c2.selectbox("Language", langs, key="lang", bind="query-params", help=", ".join(map(lang_label, langs)))
prompt_lang = c3.radio("Prompt", ("en", "native"), key="prompt", bind="query-params", horizontal=True,
                       help="en: the English prompt; native: the prompt in the item's language")

st.subheader("Task scores, English vs native prompt")
# the task scores, the treemap and the branches need only the model and languages: read at the same time
cells, nodes, tree = q_many(("lindsea_cells", {"model": model, "lang": lang}),
                            ("lindsea_tree", {"model": model, "lang": lang, "prompt_lang": prompt_lang}),
                            ("lindsea_drill", {"model": model, "lang": lang, "depth": 1}))
if cells.empty:
    empty_state(f"{md_escape(model)} has no LINDSEA scores in {LANG_NAMES[lang]}.", "Pick another language or model.")
    st.stop()
table(cells[["branch", "task", "prompt_lang", "metric", "value", "ci_low", "ci_high", "n", "chance",
             "below_chance", "parse_fail_pct"]], f"lindsea_{model}_{lang}_tasks")

st.subheader("Where it breaks")
fig = go.Figure(go.Treemap(
    ids=nodes["id"], parents=nodes["parent"], labels=nodes["label"].map(plot_text), values=nodes["n"],
    branchvalues="total",
    customdata=nodes["value"], maxdepth=4, texttemplate="%{label}<br>%{customdata:.0f}% · n=%{value}",
    hovertemplate="%{label}<br>accuracy %{customdata:.1f}%<br>n=%{value} items<extra></extra>",
    marker=dict(colors=nodes["value"], colorscale="RdYlGn", cmin=0, cmax=100, showscale=True,
                colorbar=dict(title="acc.", len=0.8))))
fig.update_layout(height=380, margin=dict(t=10, l=0, r=0, b=0))
st.plotly_chart(fig, key="treemap")
st.caption(f"Area = items, colour = accuracy with the {PROMPT_NAMES[prompt_lang].lower()} (red below 50%). "
           "Click a box to zoom in; pick a branch and phenomenon below for the numbers and the items.")

c4, c5 = st.columns(2)
branches = sorted(tree["branch"].unique())
branch = c4.selectbox("Branch", ("all", *branches), key="branch", bind="query-params")
level = {"branch": None, "phenomenon": None, "category": None}
depth = 0
if branch != "all":
    level["branch"], depth = branch, 1
    phenomena = sorted(tree.loc[tree["branch"] == branch, "phenomenon"].unique())
    phen = c5.selectbox("Phenomenon", ("all", *phenomena), key="phenomenon", bind="query-params")
    if phen != "all":
        level["phenomenon"], depth = phen, 2
bars = plot_frame(q("lindsea_drill", model=model, lang=lang, depth=depth, **level), "label",
                  "prompt_lang")  # as Plotly shows them
key = ("branch", "phenomenon", "category")[depth]
fig = px.bar(bars, y="label", x="value", color="prompt_lang", barmode="group", orientation="h",
             error_x=bars["ci_high"] - bars["value"], error_x_minus=bars["value"] - bars["ci_low"], range_x=(0, 100),
             hover_data={"n": True, "ci_low": ":.1f", "ci_high": ":.1f"},
             labels={"value": "accuracy, 95% CI", "label": "", "prompt_lang": "prompt"},
             color_discrete_map={"en": "#3b6fb6", "native": "#e08a2c"})
fig.update_traces(hovertemplate="%{y}<br>prompt %{fullData.name}: accuracy %{x:.1f}<br>95% CI %{customdata[1]:.1f}-"
                                "%{customdata[2]:.1f}, n=%{customdata[0]}<extra></extra>")  # the interval, not its arms
fig.add_vline(x=50, line_dash="dash", line_color="#555", annotation_text="chance 50%", annotation_position="top")
fig.update_layout(height=max(240, 44 * len(bars) + 90), margin=dict(t=30, l=0, r=10, b=0),
                  yaxis=dict(automargin=True, autorange="reversed"),
                  legend=dict(orientation="h", y=1.0, x=0, xanchor="left", yanchor="bottom", title=""))
st.caption("Click a bar to list its items below.")
clicked = st.plotly_chart(fig, key="bars", on_select="rerun", selection_mode="points")
points = clicked.selection.points if clicked and clicked.selection else []
picked = bars.loc[bars["label"] == points[0].get("y"), key] if points else bars.iloc[0:0][key]
if not picked.empty:
    level[key] = picked.iloc[0]
table(bars.drop(columns=["label"]), f"lindsea_{model}_{lang}_{key}")

st.subheader("Items")
node = level["category"] or level["phenomenon"] or level["branch"] or "all items"
items = q("lindsea_items", model=model, lang=lang, prompt_lang=prompt_lang, **level)
wrong = items[~items["right_all"].fillna(False)]
st.write(f"{len(items)} items under **{md_escape(node)}** with the {PROMPT_NAMES[prompt_lang].lower()}: "
         f"{len(wrong)} answered wrongly in at least one option order (listed first).")
table(items, f"lindsea_{model}_{lang}_items", display=dashed(items, {}),  # empty text cells as "—", not None
      columns={"right_ab": st.column_config.CheckboxColumn("right (A=correct)"),
               "right_ba": st.column_config.CheckboxColumn("right (swapped)"),
               "right_all": st.column_config.CheckboxColumn("right in all orders")}, height=300)

pairs = wrong[wrong["correct_sentence"].notna()].head(10)
if not pairs.empty:
    st.markdown("**Minimal pairs answered wrongly**: the words that differ are highlighted "
                "(green: in the acceptable sentence, red: in the unacceptable one). As asked, the acceptable sentence is A; "
                "swapped, it is B.")
    answers = q("lindsea_answers", model=model, lang=lang, prompt_lang=prompt_lang,
                items=tuple(zip(pairs["task"], pairs["item_id"])))
    for row in pairs.itertuples():
        bad, good = word_diff(row.wrong_sentence, row.correct_sentence, lang)  # red only in the unacceptable one
        said = {o: answers.loc[(answers["item_id"] == row.item_id) & (answers["ord"] == o), "answer"]
                for o in ("ab", "ba")}
        with st.container(border=True):
            st.markdown(f"{md_code(row.item_id)} · as asked: {mark(row.right_ab)} "
                        f"(answer: {answer_text(next(iter(said['ab']), None))}) · swapped: {mark(row.right_ba)} "
                        f"(answer: {answer_text(next(iter(said['ba']), None))})")
            st.markdown(f"✓ {good}")
            st.markdown(f"✗ {bad}")
overall = [f"{md_escape(r.task)} ({md_escape(r.prompt_lang)}) {score_text(r.value, r.ci_low, r.ci_high, r.n, r.chance)}"
           for r in cells.itertuples()]
st.caption("Overall: " + "; ".join(overall))
