"""PACUTE explorer: where Filipino word-structure competence collapses along the L0-L5 hierarchy."""
from __future__ import annotations

import plotly.express as px
import streamlit as st

from pages._cached import q, section
from pages._entry import ensure_app
from pages._filters import also_available, filtered_models, first_available, leaders_first, model_filters
from pages._ui import empty_state, plot_frame, plot_text, table
from services.pacute_readout import pacute_readout

ensure_app()


def preselected(available: list[str]) -> list[str]:
    """The models the page opens on: PACUTE's leaders (never a baseline before a real model)."""
    return leaders_first(available, 4, "pacute")


METRICS = {"MCQ": ("mcq_acc", "mcq_norm_acc"), "GEN": ("exact_match", "contains_match")}
# A mark before each read-out sentence, by evaluator.pacute_readout's verdict.
VERDICT_MARKS = {"holds": "✓", "breaks": "▼", "breaks_to_chance": "✗", "unclear": "?", "no_base": "–"}
HUMAN_MARKER = "human (mean of 3)"
METRIC_NAMES = {"mcq_acc": "accuracy", "mcq_norm_acc": "chance-normalised accuracy", "exact_match": "exact match",
                "contains_match": "contains match"}

st.title("PACUTE: Filipino word structure")
st.caption("The hierarchy separates character skills (L0-L1) from morpheme skills (L2-L5). The paper's reading: "
           "where L2 (morpheme decomposition) is at chance, L3-L5 are expected to collapse whatever L0-L1 show. "
           "Points are means over items with 95% Wilson intervals; the controls (LangGame, multi-digit addition, "
           "CUTE) are English character tasks and act as a ceiling.")

available = filtered_models(model_filters(), "pacute-")
if not available:
    empty_state("No model with PACUTE results passes the filters.",
                "Clear the model filters in the sidebar, or ingest pacute-bench results.")
    st.stop()

models = st.multiselect("Models", available, default=preselected(available), key="models", bind="query-params",
                        max_selections=6)
if not models:
    empty_state("No model selected.", "Choose one or more models above.")
    st.stop()
chosen = tuple(models)
paper_runs = q("pacute_paper_runs", models=chosen)
if not paper_runs.empty:  # a count, not the names: captions are Markdown
    st.caption(f"{len(paper_runs)} of the {len(chosen)} selected models are the PACUTE paper's own runs: the "
               "per-item outputs pacute-bench published (results-202605 at commit dcab16b; MIT, as its "
               "pyproject.toml states), re-scored here by Tanaw. Paper: Montalan et al. (2026), PACUTE, "
               "arXiv:2606.15144.")
avail = q("pacute_availability", models=chosen)
formats_with = [f for f in METRICS if f.lower() in set(avail["fmt"])]
c2, c3, c4 = st.columns(3)
fmt_default = first_available(list(METRICS), formats_with)
fmt_label = c2.radio("Format", tuple(METRICS), key="fmt", bind="query-params", horizontal=True,
                     index=list(METRICS).index(fmt_default))
metric = c3.radio("Scoring", METRICS[fmt_label], key=f"metric_{fmt_label.lower()}", bind="query-params",
                  horizontal=True, help="; ".join(f"{k}: {v}" for k, v in METRIC_NAMES.items()))
prompts_with = avail.loc[avail["fmt"] == fmt_label.lower(), "prompt_lang"].tolist()
prompt_order = ["en", "native"]
prompt_lang = c4.radio("Prompt", prompt_order, key="prompt", bind="query-params", horizontal=True,
                       index=prompt_order.index(first_available(prompt_order, prompts_with)))
fmt = fmt_label.lower()
others = " ".join(filter(None, [also_available("formats", fmt_label, formats_with),
                                also_available("prompts", prompt_lang, prompts_with)]))
if others:
    st.caption(f"Hierarchy results of the selected models. {others}")
chance = 25.0 if fmt == "mcq" else 0.0  # generation: no answer is matched by guessing


def levels_chart() -> None:
    """The L0-L5 lines with their intervals, the controls' ceiling as stars and the chance line."""
    shown = plot_frame(levels, "model_id", "level_label", "level_name")  # names are text, never Plotly HTML
    fig = px.line(shown, x="level_label", y="value", color="model_id", markers=True,
                  error_y=levels["ci_high"] - levels["value"], error_y_minus=levels["value"] - levels["ci_low"],
                  hover_data={"level_name": True, "n": True, "ci_low": ":.1f", "ci_high": ":.1f"},
                  labels={"value": f"{METRIC_NAMES[metric]} (95% CI)", "level_label": "", "model_id": "model"},
                  range_y=(0, 105), color_discrete_sequence=px.colors.qualitative.D3)
    fig.update_traces(hovertemplate="%{fullData.name}<br>%{x} %{customdata[0]}: %{y:.1f}<br>95% CI "
                                    "%{customdata[2]:.1f}-%{customdata[3]:.1f}, n=%{customdata[1]}<extra></extra>")
    ceilings = dict(zip(ceiling["model_id"].map(plot_text), ceiling["ceiling"]))  # keyed like the traces
    for trace in list(fig.data):
        if trace.name in ceilings:
            fig.add_scatter(x=["controls (ceiling)"], y=[ceilings[trace.name]], mode="markers", showlegend=False,
                            marker=dict(symbol="star", size=13, color=trace.line.color), name=trace.name,
                            hovertemplate="%{fullData.name}: mean of the controls %{y:.1f}<extra></extra>")
    if chance is not None:
        fig.add_hline(y=chance, line_dash="dash", line_color="#555", annotation_text=f"chance {chance:.0f}%",
                      annotation_position="bottom left")
    for trace in fig.data:
        trace.offsetgroup = trace.name
    fig.update_layout(height=440, margin=dict(t=30, l=0, r=10, b=0), scattermode="group", scattergap=0.5,
                      legend=dict(orientation="h", y=1.0, x=0, xanchor="left", yanchor="bottom", title=""))
    st.caption("Stars: each model's mean over the control benchmarks (English prompt), the ceiling it could reach "
               "with characters alone. Level names: L0 character recognition, L1 character manipulation, "
               "L2 morpheme decomposition, L3 morpheme manipulation, L4 morpheme composition, L5 multi-step.")
    st.plotly_chart(fig, key="levels")


# What the sections below depend on besides the store: the key of their shared drawings (`pages._cached.section`).
CHOICES = (chosen, fmt, metric, prompt_lang)
levels = q("pacute_levels", models=chosen, fmt=fmt, metric=metric, prompt_lang=prompt_lang)
ceiling = q("pacute_ceiling", models=chosen, fmt=fmt, metric=metric)
st.subheader(f"Hierarchy L0-L5 ({fmt.upper()}, {METRIC_NAMES[metric]})")
if levels.empty:
    empty_state("No hierarchical results for this format and prompt.", "Switch format or prompt language.")
else:
    section(("pacute", "levels", *CHOICES), levels_chart)
    table(levels, f"pacute_levels_{fmt}_{metric}_{prompt_lang}", shared=("pacute", "levels-grid", *CHOICES))

read_chance = chance
st.subheader(f"Where it breaks ({fmt.upper()}, chance {read_chance:.0f}%)")
st.caption("Per model, L2 (morpheme decomposition) against the same model's L0-L1 (character skills, pooled) and "
           "against chance, with 95% Wilson intervals. MCQ is read on accuracy against 25% chance (four options); "
           f"generation on {METRIC_NAMES[metric if fmt == 'gen' else 'exact_match']} against 0 (a model cannot "
           "match the answer by guessing, so being above chance says nothing). Decomposition counts as present only "
           "when L2's interval reaches the L0-L1 level.")
read_levels = levels if fmt == "gen" or metric == "mcq_acc" else q(
    "pacute_levels", models=chosen, fmt="mcq", metric="mcq_acc", prompt_lang=prompt_lang)
readout = section(("pacute", "readout", *CHOICES), lambda: pacute_readout(read_levels, read_chance))
if readout.empty:
    empty_state(f"No {fmt.upper()} hierarchy results to read.",
                f"The read-out needs L0, L1 and L2 scores of pacute-hierarchical-{fmt} with this prompt.")
else:
    for row in readout.itertuples():
        st.text(f"{VERDICT_MARKS[row.verdict]} {row.sentence}")  # plain text: model names come from uploads
    table(readout.drop(columns=["sentence"]), f"pacute_readout_{fmt}_{prompt_lang}",
          columns={c: st.column_config.NumberColumn(format="%.1f")
                   for c in ("base", "base_low", "base_high", "l2", "l2_low", "l2_high", "upper_max")})
    if (readout["l2_n"] < 30).any():
        st.caption("Few L2 items for some models: wide intervals overlap easily; read those verdicts with care.")

st.subheader("Level means")
st.caption("Micro: all hierarchy items pooled. Macro: the mean of the six level means (each level weighs the same).")
table(q("pacute_level_means", models=chosen, fmt=fmt, metric=metric, prompt_lang=prompt_lang),
      f"pacute_level_means_{fmt}_{metric}", columns={"micro": st.column_config.NumberColumn(format="%.1f"),
                                                      "macro": st.column_config.NumberColumn(format="%.1f")},
      shared=("pacute", "means-grid", *CHOICES))


def suite_chart() -> bool:
    """Main-suite and control scores as grouped bars with their intervals (controls hatched) and the human
    baseline as diamonds; whether any diamond is drawn."""
    fig = px.bar(plot_frame(suite, "model_id", "stem", "kind"), x="stem", y="value", color="model_id", barmode="group",
                 pattern_shape="kind",
                 color_discrete_sequence=px.colors.qualitative.D3,
                 pattern_shape_map={"suite": "", "control": "/"},
                 error_y=suite["ci_high"] - suite["value"], error_y_minus=suite["value"] - suite["ci_low"],
                 labels={"value": f"{METRIC_NAMES[metric]} (95% CI)", "stem": "", "model_id": "model",
                         "kind": ""}, range_y=(0, 105), hover_data={"n": True})
    if chance is not None:
        fig.add_hline(y=chance, line_dash="dash", line_color="#555")
    # beside the bars, never among the ranked models; on the chart's own scale only (accuracy, not normalised)
    shown_human = human[human["stem"].isin(set(suite["stem"]))] if metric != "mcq_norm_acc" else human.iloc[:0]
    if not shown_human.empty:
        fig.add_scatter(x=shown_human["stem"], y=shown_human["mean"], mode="markers", name=HUMAN_MARKER,
                        marker=dict(symbol="diamond", size=12, color="#111"),
                        hovertemplate="%{x}: human mean %{y:.1f}<extra></extra>")
    fig.update_layout(height=380, margin=dict(t=30, l=0, r=10, b=0),
                      legend=dict(orientation="h", y=1.0, x=0, xanchor="left", yanchor="bottom", title=""))
    st.plotly_chart(fig, key="suite")
    return not shown_human.empty


st.subheader("Main suite and controls")
suite = q("pacute_suite", models=chosen, fmt=fmt, metric=metric, prompt_lang=prompt_lang)
human = q("pacute_human_baseline", fmt=fmt, metric=metric)
if suite.empty:
    empty_state("No main-suite or control scores for this format.", "Switch format or metric.")
else:
    with_human = section(("pacute", "suite", *CHOICES), suite_chart)
    st.caption("Hatched bars are controls (English prompt); they show what the model can do with characters at all."
               + f" Dashed line: chance ({chance:.0f}%)."
               + (" Black diamonds: the paper's human baseline (mean of three native speakers)."
                  if with_human else ""))
    table(suite, f"pacute_suite_{fmt}_{metric}_{prompt_lang}", shared=("pacute", "suite-grid", *CHOICES))

st.subheader(f"Human baseline ({fmt.upper()}, not ranked)")
if human.empty:
    empty_state("No human baseline stored.",
                "`python -m evaluator results pull pacute-paper` loads the paper's (three native speakers).")
else:
    st.caption("Three native speakers answered the same stratified 10% sample of each main-suite benchmark "
               f"(n items per row), scored by pacute-bench: {'accuracy' if fmt == 'mcq' else METRIC_NAMES[metric]}"
               " per annotator and their mean, %. Fleiss' kappa (statsmodels) on the "
               + ("option letters" if fmt == "mcq" else "right/wrong of each answer")
               + "; raw agreement: items on which all three gave the identical answer, %. Shown beside the models, "
               "never ranked. Source: pacute-bench results-202605/human_baseline (commit dcab16b, MIT); "
               "Montalan et al. (2026), PACUTE, arXiv:2606.15144.")
    table(human.drop(columns=["stem"]), f"pacute_human_{fmt}_{metric}",
          columns={c: st.column_config.NumberColumn(format="%.1f")
                   for c in ("annotator 1", "annotator 2", "annotator 3", "mean", "raw agreement")}
          | {"Fleiss' kappa": st.column_config.NumberColumn(format="%.3f")})
