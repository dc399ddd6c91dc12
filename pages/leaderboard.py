"""Leaderboard: models × (language × task) headline scores, averages, EN-vs-native prompts, reported rows."""
from __future__ import annotations

from urllib.parse import urlencode

import plotly.graph_objects as go
import streamlit as st

from services.board_view import STUB_MIN_ITEMS, default_board, default_prompt, ranks_without_stubs
from evaluator.registry import BOARDS
from pages._board_human import COLUMN as HUMAN
from pages._board_human import HELP as HUMAN_HELP
from pages._board_human import with_human
from pages._cached import q, section
from pages._entry import embedded, ensure_app
from pages._seahelm_board import VIEWS
from pages._seahelm_board import show as seahelm_view
from pages._filters import also_available, filtered_models, model_filters
from pages._leakage import cell_badges, leakage_section
from pages._ui import dashed, download, empty_state, language_links, md_escape, plot_text, table

ensure_app()
FAMILIES = BOARDS  # tabs: family title -> family, from each family's declaration (evaluator/tasks/*/family.yaml)
PROMPTS = {"English": "en", "Native": "native"}
SCORES = {"Normalized": "normalized", "Raw": "value"}
MISSING_GREY = "#9e9e9e"  # a heatmap cell without a score: darker than the scale's pale middle, never a score
TEXT_COLUMNS = ("rank range", "tied with #1", "model", HUMAN, "origin", "model_type", "weights")
EMBED = embedded()

avail = q("board_models")
families_with = [b for b, f in FAMILIES.items() if f in set(avail["family"])]
# open on the benchmark and prompt with the most ranked, non-stub models (services.board_view states the rule)
opening = default_board(avail, list(FAMILIES.values()), list(PROMPTS.values()))
bench_default = next((b for b, f in FAMILIES.items() if opening and f == opening[0]), list(FAMILIES)[0])


def prompts_with(bench: str) -> list[str]:
    """Prompt languages with results in `bench`."""
    return [p for p, code in PROMPTS.items() if code in set(avail.loc[avail["family"] == FAMILIES[bench],
                                                                            "prompt_lang"])]


def prompt_for(bench: str) -> str:
    """The prompt language `bench` opens on: the one with the most ranked, non-stub models."""
    code = default_prompt(avail, FAMILIES[bench], list(PROMPTS.values()))
    return next((p for p, c in PROMPTS.items() if c == code), list(PROMPTS)[0])


def url_choice(key: str, options, default: str) -> str:
    """The embed view has no widgets: a valid query parameter, else the default."""
    value = st.query_params.get(key)
    return value if value in options else default


if EMBED:  # ?embed=1: only the table, for an iframe; choices from the URL or the data
    bench = url_choice("bench", FAMILIES, bench_default)
    prompt = url_choice("prompt", PROMPTS, prompt_for(bench))
    score_name = url_choice("score", SCORES, "Normalized")
    models = None
else:
    st.title("Tanaw leaderboard")
    st.caption("Large language models in Southeast Asian languages: BHASA (NLU, NLG, NLR in Indonesian, "
               "Vietnamese, Thai, Tamil), LINDSEA linguistic diagnostics and PACUTE Filipino word structure. Every "
               "number is recomputed from per-item outputs by Tanaw's own metrics; the papers' reported results are "
               "shown apart and never ranked.")
    view_name = st.segmented_control(
        "View", VIEWS, default=VIEWS[0], key="view", bind="query-params",
        help="Tanaw's roll-up of the chosen benchmark, or SEA-HELM's: normalised task scores → competency → language "
             "→ SEA average over id, vi, th, ta, tl, ms, my, shown only for what a model covers fully.") or VIEWS[0]
    c1, c2, c3 = st.columns([2, 2, 2])
    seahelm_rule = view_name == VIEWS[1]  # SEA-HELM's view spans its own tasks, on its normalised scale
    bench = c1.segmented_control("Benchmark", list(FAMILIES), key="bench", bind="query-params",
                                 default=bench_default, disabled=seahelm_rule) or bench_default
    prompt_default = "Native" if seahelm_rule else prompt_for(bench)  # SEA-HELM's prompts are native
    prompt = c2.segmented_control("Prompt", list(PROMPTS), default=prompt_default, key="prompt",
                                  bind="query-params",
                                  help="Every cell is run with the English prompt and with the native-language "
                                       "prompt written by native speakers; cells without a verified native prompt "
                                       "have no native score.") or prompt_default
    score_name = c3.segmented_control("Score", list(SCORES), default="Normalized", key="score",
                                      bind="query-params", disabled=seahelm_rule,
                                      help="Normalized = (score − chance) / (100 − chance) × 100, the SEA-HELM "
                                           "convention; 0 is chance, negative is below chance. Raw is the metric "
                                           "itself on 0-100.") or "Normalized"
    language_links()
    others = " ".join(filter(None, [also_available("benchmarks", bench, families_with),
                                    also_available("prompts", prompt, prompts_with(bench))]))
    if others:
        st.caption(others)
    models = tuple(filtered_models(model_filters()))
family, prompt_lang, score = FAMILIES[bench], PROMPTS[prompt], SCORES[score_name]
# What every section below depends on besides the store: the key of its shared drawing (`pages._cached.section`).
CHOICES = (family, prompt_lang, score, models)
if not EMBED and view_name == VIEWS[1]:
    seahelm_view(prompt_lang, prompt, models)
    st.stop()


def board_table(board) -> None:
    """The ranked table: missing values as "—", numbers still sortable."""
    numbers = [c for c in board.columns if c not in TEXT_COLUMNS]
    decimals = {c: 0 if c in ("rank", "coverage") else 1 for c in numbers}
    cols = {c: st.column_config.NumberColumn(c) for c in numbers}
    cols |= {"rank": st.column_config.NumberColumn("rank", width="small", help="best rank: 1 + the models whose overall 95% "
                                                             "interval lies wholly above this one's (Methodology)"),
             "rank range": st.column_config.TextColumn("rank range", width=105, help="best–worst rank by the interval-overlap "
                                                                          "rule over every ranked model"),
             "tied with #1": st.column_config.TextColumn("tied with #1", width=90),
             "model": st.column_config.TextColumn("model", width="medium"),
             "model_type": "type", "params_b": st.column_config.NumberColumn("params (B)"),
             "coverage": st.column_config.NumberColumn("cells", help="headline cells this model has"),
             HUMAN: st.column_config.TextColumn(HUMAN, width="large", help=HUMAN_HELP)}
    table(board, f"leaderboard-{family}-{prompt_lang}-{score}", columns=cols,
          display=lambda: dashed(board, decimals), shared=("leaderboard", "board", *CHOICES))


def heatmap() -> None:
    """Every model's headline cells, coloured, with each cell's interval and n on hover; missing cells grey."""
    z = q("leaderboard_matrix", prompt_lang=prompt_lang, score=score, family=family, models=models,
          min_items=STUB_MIN_ITEMS, ranks=ranks)
    hover = q("leaderboard_matrix", prompt_lang=prompt_lang, score=score, family=family, models=models,
              what="hover", min_items=STUB_MIN_ITEMS, ranks=ranks)
    if not z.empty:
        fig = go.Figure(go.Heatmap(
            z=z.values, x=[plot_text(c) for c in z.columns], y=[plot_text(m) for m in z.index],
            customdata=hover.map(plot_text).values,  # names are text: Plotly would render <a href> as a link
            hovertemplate="%{y}<br>%{x}<br>%{customdata}<extra></extra>", texttemplate="%{z:.0f}",
            colorscale="RdBu", zmid=0 if score == "normalized" else 50, zmin=-100 if score == "normalized" else 0,
            zmax=100, colorbar={"title": "normalized" if score == "normalized" else "raw"}))
        missing = z.isna()
        if missing.any().any():  # a missing cell is grey with a dash, never the colour of a score
            fig.add_trace(go.Heatmap(
                z=missing.where(missing).values.astype(float), x=[plot_text(c) for c in z.columns],
                y=[plot_text(m) for m in z.index], colorscale=[[0, MISSING_GREY], [1, MISSING_GREY]],
                showscale=False, text=missing.map(lambda m: "—" if m else "").values, texttemplate="%{text}",
                customdata=hover.map(plot_text).values,
                hovertemplate="%{y}<br>%{x}<br>no score: %{customdata}<extra></extra>"))
        fig.update_layout(height=160 + 38 * len(z.index), margin={"l": 10, "r": 10, "t": 30, "b": 10},
                          xaxis={"side": "top", "tickangle": -45}, yaxis={"autorange": "reversed"})
        st.plotly_chart(fig, width="stretch")
        if missing.any().any():
            st.caption("Grey cells with a dash have no score (not run, or not scored yet); hover for why.")


CELL_NUMBERS = {"value": 1, "ci_low": 1, "ci_high": 1, "n": 0, "n_runs": 0, "chance": 1, "normalized": 1,
                "unparsed %": 1, "SEA-HELM view": 1}  # the cell table's numbers: missing values as "—", never None


def cell_rows():
    """Every cell with its interval, n, format failures and a link to its run card (shared: read, never change)."""
    details = q("leaderboard_cells", prompt_lang=prompt_lang, family=family, models=models)
    view = q("seahelm_view_cells", prompt_lang=prompt_lang, family=family, models=models)
    details = details.merge(view, on=["model", "task", "lang"], how="left")
    details = details.merge(cell_badges(family, prompt_lang, models), on=["model", "task", "lang"], how="left")
    details["run card"] = [f"/compare?{urlencode({'task': t, 'lang': lg, 'sys': f'{m}|{prompt_lang}'})}"
                           for m, t, lg in zip(details["model"], details["task"], details["lang"])]
    details["unparsed %"] = 100 * details["parse_fail_rate"]
    details = details[["model", "origin", "task", "lang", "metric", "value", "ci_low", "ci_high", "n", "n_runs",
                       "chance", "normalized", "below_chance", "unparsed %", "SEA-HELM view", "status", "note",
                       "leakage", "run card"]]
    return details


def cost_scatter(usage) -> None:
    """Cost against the overall score, for the models with prices."""
    priced = usage.dropna(subset=["cost", "overall"])
    if not priced.empty:
        fig = go.Figure(go.Scatter(x=priced["cost"], y=priced["overall"], mode="markers+text",
                                   text=[plot_text(m) for m in priced["model"]], textposition="top center",
                                   hovertemplate="%{text}<br>cost %{x:.4f}<br>overall %{y:.1f}<extra></extra>"))
        fig.update_layout(height=360, margin={"l": 10, "r": 10, "t": 30, "b": 10},
                          xaxis_title="cost (operator prices per million tokens)",
                          yaxis_title=f"overall ({score_name.lower()})")
        st.plotly_chart(fig, width="stretch", key="cost_scatter")


# rank ranges over the ranked models without the stubs (a stub's wide interval must not push a real model down)
ranks = section(("leaderboard", "ranks", family, prompt_lang, score), lambda: ranks_without_stubs(
    q("board_intervals", prompt_lang=prompt_lang, family=family, score=score)))
board = section(("leaderboard", "rows", *CHOICES), lambda: with_human(
    q("leaderboard_table", prompt_lang=prompt_lang, score=score, family=family, models=models,
      min_items=STUB_MIN_ITEMS, ranks=ranks), prompt_lang, family))
if EMBED:
    st.markdown(f"**Tanaw · {bench} · {score_name.lower()} scores · {prompt} prompt**")
    if board.empty:
        st.caption(f"No {bench} results with the {prompt} prompt.")
    else:
        board_table(board)
    st.stop()
if board.empty:
    empty_state(f"No {bench} results with the {prompt} prompt pass the filters.",
                "Clear the model filters, switch the prompt language, or add results on the Upload page "
                "(or `python -m evaluator ingest FILE --model NAME`).")
else:
    st.subheader(f"{bench} · {score_name.lower()} scores · {prompt} prompt")
    st.caption("Rank counts evaluated and uploaded models only (over all of them, whatever the filters); demo "
               "baselines are reference points. Ranks are ranges: models whose overall 95% intervals overlap share "
               "ranks, and every model that could be first is marked 'tied with #1' (Methodology → Aggregation). "
               f"A model with fewer than {STUB_MIN_ITEMS} scored answers here is listed as 'too few items' and "
               "never ranked. "
               "Averages: per language the mean of competency means, overall the mean over languages, over the "
               "cells a model has (coverage). Hover a heatmap cell for its 95% interval and n.")
    board_table(board)

    section(("leaderboard", "heatmap", *CHOICES), heatmap)

    with st.expander("Every cell with its interval, n and format failures"):
        details = section(("leaderboard", "cells", *CHOICES), cell_rows)
        table(details, f"cells-{family}-{prompt_lang}", display=lambda: dashed(details, CELL_NUMBERS),
              shared=("leaderboard", "cells-grid", *CHOICES),
              columns={**{c: st.column_config.NumberColumn(c) for c in CELL_NUMBERS},
                       "value": st.column_config.NumberColumn("score", help="0-100"),
                       "run card": st.column_config.LinkColumn(
                           "run card", display_text="run card", help="harness, endpoint, generation settings, "
                           "prompt template hash, dates and source file, on Compare"),
                       "unparsed %": st.column_config.NumberColumn("unparsed %",
                                                                   help="instruction-following failures"),
                       "SEA-HELM view": st.column_config.NumberColumn(
                           "SEA-HELM view",
                           help="SEA-HELM's headline for classification tasks: balanced accuracy normalised by "
                                "chance and clipped at 0, unparsed answers as a null class. For comparison with "
                                "SEA-HELM's board; not ranked (see Methodology)")})

if not board.empty:
    leakage_section(bench, family, prompt_lang, models)  # badges with evidence and clean scores; ranks unchanged
    st.subheader("Cost and speed")
    usage = section(("leaderboard", "usage", *CHOICES), lambda: q(
        "usage_table", prompt_lang=prompt_lang, family=family, models=models).merge(
        board[["model", "overall"]], on="model", how="left"))
    if usage.empty or not usage["requests"].gt(0).any():
        st.caption("No stored requests for these models.")
    else:
        st.caption("Per model over its current runs of this benchmark and prompt: requests, tokens and mean latency "
                   "as stored per item; cost where the run settings give `price_per_mtok: {input, output}` (per "
                   "million tokens). Click a column to sort.")
        table(usage, f"usage-{family}-{prompt_lang}", columns={
            "mean_latency_s": st.column_config.NumberColumn("mean latency (s)"),
            "tokens_in": st.column_config.NumberColumn("input tokens"),
            "tokens_out": st.column_config.NumberColumn("output tokens"),
            "cost": st.column_config.NumberColumn("cost"), "overall": st.column_config.NumberColumn("overall")},
              display=lambda: dashed(usage, {"requests": 0, "tokens_in": 0, "tokens_out": 0, "mean_latency_s": 2,
                                             "cost": 4, "overall": 1}), shared=("leaderboard", "usage-grid", *CHOICES))
        section(("leaderboard", "cost", *CHOICES, score_name), lambda: cost_scatter(usage))

st.subheader("Reported in the papers (not ranked)")
reported = q("reported_table", prompt_lang=prompt_lang, score=score, family=family)
if reported.empty:
    st.caption(f"The papers report no {bench} results for this prompt language on the headline metrics.")
else:
    st.caption("Numbers as published (BHASA: Leong et al., 2023; PACUTE), on the papers' own samples and models; "
               "'n/a' prompt rows (fine-tuned, human) appear under both prompt languages.")
    reported_cells = [c for c in reported.columns if c not in ("system", "source")]
    table(reported, f"reported-{family}-{prompt_lang}",  # cells a paper does not report show "—", never None
          columns={c: st.column_config.NumberColumn(c) for c in reported_cells},
          display=lambda: dashed(reported, {c: 1 for c in reported_cells}),
          shared=("leaderboard", "reported", family, prompt_lang, score))
    marker = "scored by a different gold"
    caveats = q("reported_rows")
    caveats = caveats[caveats["note"].fillna("").str.contains(marker, regex=False)
                      & (caveats["task"] + " · " + caveats["lang"]).isin(reported.columns)]
    for cell, note in sorted({(f"{t} · {lg}", n[n.index(marker):])
                              for t, lg, n in zip(caveats["task"], caveats["lang"], caveats["note"])}):
        st.warning(f"{md_escape(cell)}: {md_escape(note)}. See Methodology → Differences.", icon=":material/warning:")
    download("Download every reported result with its citation (CSV)", q("reported_rows"), "reported-results.csv",
             "dl_reported_all")
