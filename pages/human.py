"""Human evaluation: campaign results (per-system means with 95% intervals, mean ESA scores, agreement between
annotators per criterion and per language across campaigns, quality checks, agreement of the automatic metrics with
the human scores) beside the BHASA paper's human rows.

Every figure is read from the store: evaluator.human.results computed it when the judgements were written
(services.human_results). A finished campaign's numbers were computed when it finished; an open campaign's are
provisional (the judgements so far), and its Kendall's tau has no interval until it finishes. The paper's rows are
reported numbers from other annotators and other items: shown in their own table, never ranked together with
campaign results.
"""
from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

from pages._cached import q
from pages._entry import ensure_app
from pages._ui import dashed, empty_state, lang_label, md_escape, plot_frame, table

ensure_app()


def stored_tables(cid: str) -> dict[str, pd.DataFrame]:
    """A campaign's stored figures (final when finished, else provisional): systems, alpha, tau, quality."""
    means = q("campaign_results", campaign_id=cid, kind="mean").rename(columns={"value": "mean"})
    means["correct_of_n"] = [f"{int(c)} of {int(i)}" if pd.notna(c) else None
                             for c, i in zip(means["correct"], means["items"])]
    alpha = q("campaign_results", campaign_id=cid, kind="alpha").rename(columns={"value": "alpha", "n": "units"})
    tau = q("campaign_results", campaign_id=cid, kind="tau").rename(columns={"criterion": "metric", "value": "tau"})
    return {"systems": means[["system", "criterion", "mean", "low", "high", "n", "items", "correct_of_n"]],
            "alpha": alpha[["criterion", "level", "alpha", "units"]],
            "tau": tau[["metric", "level", "tau", "low", "high", "n"]],
            "quality": q("campaign_quality", campaign_id=cid)}


# Number columns of the human tables: four decimals, a missing value (an interval not computed) shown as "—".
# (A comment, not a string: Streamlit's magic would draw a bare string in a page script as markdown.)
FIGURES = ("mean", "low", "high", "alpha", "tau", "repeat_agreement")


def figures(df: pd.DataFrame, name: str) -> None:
    """A human-evaluation table with its missing figures shown as "—" (not the word None)."""
    table(df, name, display=dashed(df, {c: 4 for c in FIGURES if c in df.columns}))


def systems_plot(means: pd.DataFrame) -> None:
    fig = px.scatter(plot_frame(means, "system", "criterion"), x="mean", y="system", facet_col="criterion",
                     error_x=means["high"] - means["mean"], error_x_minus=means["mean"] - means["low"],
                     hover_data={"low": True, "high": True})
    fig.update_traces(hovertemplate="%{y}<br>mean %{x:.3g}<br>95% CI %{customdata[0]:.3g}-%{customdata[1]:.3g}"
                                    "<extra></extra>")  # the interval, not Plotly's raw error arms
    fig.update_xaxes(matches=None)
    st.plotly_chart(fig, width="stretch")


def campaign_section(c: pd.Series) -> None:
    cid = c["campaign_id"]
    st.markdown(md_escape(f"{c['task']} · {lang_label(c['lang'])} · {c['protocol']} · {c['n_items']} items · "
                          f"k={c['k']} · seed {c['seed']} · {c['status']}"))
    if not c["judged"]:
        empty_state("No judgements yet.", "Annotators open their personal links on the Annotate page.")
        return
    tables = stored_tables(cid)
    if c["status"] != "finished":
        st.warning("This campaign is open: the figures below are provisional (judgements so far) and it has no "
                   "leaderboard column until `python -m evaluator campaign finish`.", icon=":material/pending:")
    means = tables["systems"]
    st.subheader("Per system")
    st.caption("Mean per criterion with 95% intervals (Wilson for yes/no criteria, Student t otherwise); quality-check "
               "repeats and the corrupted candidate excluded. correct_of_n: items a majority judged correct.")
    figures(means, f"human_{cid}_systems")
    systems_plot(means)
    esa = means[means["criterion"] == "esa"]
    if not esa.empty:
        st.subheader("ESA score")
        st.caption("Error Span Annotation: after marking minor and major error spans, annotators score each "
                   "translation 0-100; mean per system with its Student t 95% interval, n = judgements.")
        figures(esa[["system", "mean", "low", "high", "n", "items"]], f"human_{cid}_esa")
    st.subheader("Agreement between annotators")
    st.caption("Krippendorff's alpha (krippendorff package) per criterion; 1 = perfect, 0 = chance, < 0 = systematic "
               "disagreement.")
    figures(tables["alpha"], f"human_{cid}_alpha")
    st.subheader("Automatic metrics against the human scores")
    st.caption("Kendall's tau (scipy) of every automatic metric with the human headline criterion (mean over "
               "annotators), with bootstrap 95% intervals over items, at item and system level.")
    if c["status"] != "finished":
        st.caption("Provisional: tau so far, without its interval; the 1,000-draw bootstrap runs once, when the "
                   "campaign finishes.")
    if tables["tau"].empty:
        st.caption("No automatic metric scores for the rated candidates.")
    else:
        figures(tables["tau"], f"human_{cid}_tau")
    st.subheader("Quality checks per annotator")
    figures(tables["quality"], f"human_{cid}_quality")


st.title("Human evaluation")
st.caption("Native speakers judge blinded candidates (BHASA §3.5.2, Appendix D). Campaign results are this app's "
           "own; the BHASA paper's human rows below are reported figures, not comparable rankings.")

found = q("human_campaigns")
if found.empty:
    empty_state("No human evaluation campaign yet.", "Create one with `python -m evaluator campaign create` "
                "and send the annotators their links.")
else:
    cid = st.selectbox("Campaign", found["campaign_id"].tolist(), key="campaign", bind="query-params")
    campaign_section(found[found["campaign_id"] == cid].iloc[0])
    st.subheader("Agreement per language, across campaigns")
    st.caption("Krippendorff's alpha per protocol, language and criterion over every campaign's judgements (a unit "
               "is one candidate of one item of one campaign).")
    figures(q("language_alphas"), "human_alpha_by_language")

st.subheader("BHASA paper: human evaluation (reported)")
reported = q("human_reported")
if reported.empty:
    empty_state("No reported human rows stored.", "They load with the reference results.")
else:
    table(reported, "human_reported")
