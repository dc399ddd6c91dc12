"""Human evaluation: campaign results (per-system means with 95% intervals, agreement between annotators, quality
checks, agreement of the automatic metrics with the human scores) beside the BHASA paper's human rows.

The paper's rows are reported numbers from other annotators and other items: shown in their own table, never ranked
together with campaign results. Numbers come from evaluator.human.results; the rows from store.queries.human.
"""
from __future__ import annotations

import plotly.express as px
import streamlit as st

from evaluator.human import results
from pages._entry import ensure_app
from pages._ui import empty_state, lang_label, md_escape, plot_frame, table
from store.cached import q

ensure_app()

st.title("Human evaluation")
st.caption("Native speakers judge blinded candidates (BHASA §3.5.2, Appendix D). Campaign results are this app's "
           "own; the BHASA paper's human rows below are reported figures, not comparable rankings.")

found = q("human_campaigns")
if found.empty:
    empty_state("No human evaluation campaign yet.", "Create one with `python -m evaluator campaign create` "
                "and send the annotators their links.")
else:
    cid = st.selectbox("Campaign", found["campaign_id"].tolist(), key="campaign", bind="query-params")
    c = found[found["campaign_id"] == cid].iloc[0]
    st.markdown(md_escape(f"{c['task']} · {lang_label(c['lang'])} · {c['protocol']} · {c['n_items']} items · "
                          f"k={c['k']} · seed {c['seed']} · {c['status']}"))
    judged = q("campaign_judgements", campaign_id=cid)
    if judged.empty:
        empty_state("No judgements yet.", "Annotators open their personal links on the Annotate page.")
        st.stop()
    means = results.system_means(judged, c["protocol"])
    st.subheader("Per system")
    st.caption("Mean per criterion with 95% intervals (Wilson for yes/no criteria, Student t otherwise); quality-check "
               "repeats and the corrupted candidate excluded. correct_of_n: items a majority judged correct.")
    table(means, f"human_{cid}_systems")
    fig = px.scatter(plot_frame(means, "system", "criterion"), x="mean", y="system", facet_col="criterion",
                     error_x=means["high"] - means["mean"], error_x_minus=means["mean"] - means["low"])
    fig.update_xaxes(matches=None)
    st.plotly_chart(fig, width="stretch")
    st.subheader("Agreement between annotators")
    st.caption("Krippendorff's alpha (krippendorff package) per criterion; 1 = perfect, 0 = chance, < 0 = systematic "
               "disagreement.")
    table(results.alphas(judged, c["protocol"]), f"human_{cid}_alpha")
    st.subheader("Automatic metrics against the human scores")
    st.caption("Kendall's tau (scipy) with bootstrap 95% intervals over items, at item and system level.")
    table(results.metric_agreement(judged, q("campaign_metric_scores", campaign_id=cid), c["protocol"], n_boot=300),
          f"human_{cid}_tau")
    st.subheader("Quality checks per annotator")
    table(results.quality(judged, c["protocol"]), f"human_{cid}_quality")

st.subheader("BHASA paper: human evaluation (reported)")
reported = q("human_reported")
if reported.empty:
    empty_state("No reported human rows stored.", "They load with the reference results.")
else:
    table(reported, "human_reported")
