"""Model page: every cell with its interval and rank range, strengths and weaknesses, failures, provenance."""
from __future__ import annotations

import plotly.express as px
import streamlit as st

from pages._cached import q
from pages._entry import ensure_app
from pages._filters import filtered_models, leaders_first, model_filters
from pages._ui import dashed, empty_state, md_escape, plot_frame, table

ensure_app()

st.title("Model")
models = filtered_models(model_filters())
if not models:
    empty_state("No model passes the filters.", "Clear the model filters in the sidebar.")
    st.stop()
model = st.selectbox("Model", models, key="model", bind="query-params",  # opens on the board's leader
                     index=models.index(leaders_first(models, 1)[0]))

info = q("model_info", model=model).iloc[0]
size = "size unknown" if info["params_b"] != info["params_b"] else f"{info['params_b']:g}B parameters"
st.markdown(" · ".join(md_escape(x) for x in (
    info["organisation"] or "organisation unknown", info["family"] or "family unknown", size,
    info["model_type"] or "type unknown", f"{info['weights'] or 'unknown'} weights",
    "SEA-tuned" if info["sea_tuned"] else "not SEA-tuned", f"origin: {info['origin']}")))

declared = [str(x) for x in info.get("declared_data")] if hasattr(info.get("declared_data"), "__len__") else []
training = info.get("training_data") if isinstance(info.get("training_data"), str) else ""
if declared or training:  # the card's own words, shown as plain text
    st.caption("Declared training data (from the model card; the leaderboard flags these benchmarks' cells):")
    st.text(" · ".join(filter(None, [", ".join(declared), training])))

cells = q("model_cells", model=model)
st.subheader("Every cell")
if cells.empty:
    empty_state(f"{md_escape(model)} has no scored cells yet.", "Ingest or run an evaluation for it.")
else:
    st.caption("Headline metric per task and language. Rank range: best and worst rank this model can take given "
               "the 95% intervals of every model in the same cell (1 = top). Delta: score minus the field median.")
    numbers = {"value": 1, "ci_low": 1, "ci_high": 1, "n": 0, "n_runs": 0, "rank_best": 0, "rank_worst": 0,
               "n_models": 0, "field_median": 1, "delta": 1, "chance": 1,
               "parse_fail_pct": 1}  # missing values as "—", not None
    table(cells, f"model_{model}_cells", display=dashed(cells, numbers), columns={
        **{c: st.column_config.NumberColumn(c) for c in numbers},
        "value": st.column_config.NumberColumn("score", help="0-100"),
        "rank_best": st.column_config.NumberColumn("best rank"),
        "rank_worst": st.column_config.NumberColumn("worst rank"),
        "n_models": st.column_config.NumberColumn("models"),
        "field_median": st.column_config.NumberColumn("field median"),
        "parse_fail_pct": st.column_config.NumberColumn("unparsed %"),
        "n_runs": st.column_config.NumberColumn("runs"),
        "note": st.column_config.TextColumn("note", help="How the 95% interval was made; for several runs their "
                                                        "run-to-run spread (SD of the per-run scores); a low "
                                                        "class support flag (rarest gold class under 10 items)")},
          height=320)

    EXTREMES = {"strength": ("Strengths", "above", "strengths"), "weakness": ("Weaknesses", "below", "weaknesses")}
    for column, (side, (title, where, name)) in zip(st.columns(2), EXTREMES.items()):
        with column:
            st.markdown(f"**{title}** (furthest {where} the field median; a cell whose 95% interval contains the "
                        "median is noise and not listed)")
            extremes = q("model_extremes", model=model, side=side)
            if extremes.empty:
                st.caption(f"No cell {where} the field median.")
            else:
                table(extremes, f"model_{model}_{name}", columns={
                    "delta": st.column_config.NumberColumn("delta", format="%+.1f"),
                    "field_median": st.column_config.NumberColumn("median", format="%.1f")})

st.subheader("Instruction-following failures")
runs = q("model_runs", model=model)
fails = q("model_parse_failures", model=model)
if fails.empty:
    empty_state("No answers stored.", "")
else:
    st.caption("Share of answers whose output could not be parsed into an answer (a format failure), per "
               "language and prompt language. Log-probability tasks never fail to parse.")
    fig = px.bar(plot_frame(fails, "lang", "prompt_lang", "share"), x="lang", y="fail_pct", color="prompt_lang",
                 barmode="group",
                 text="share",
                 labels={"fail_pct": "unparsed %", "lang": "language", "prompt_lang": "prompt"},
                 color_discrete_map={"en": "#3b6fb6", "native": "#e08a2c"})
    fig.update_layout(height=300, margin=dict(t=10, l=0, r=10, b=0))
    st.plotly_chart(fig, key="fails")
    table(fails, f"model_{model}_parse_failures",
          columns={"fail_pct": st.column_config.NumberColumn("unparsed %", format="%.1f")})

st.subheader("Data-quality flags on failed items")
flags = q("model_failed_flags", model=model)
if flags.empty:
    st.caption("None of the items this model failed carries a data-quality flag.")
else:
    st.caption("Flags found while loading the data, on items this model got wrong: some failures may be the data's.")
    table(flags, f"model_{model}_flags")

st.subheader("Provenance")
table(runs, f"model_{model}_runs", height=280, display=dashed(runs, {}))
