"""Annotate: a native speaker judges blinded candidates, one item at a time, through their personal link.

The link carries the annotator's token (`?token=...`); services.campaigns resolves it, gives the first item not yet
judged (a reload resumes there) and writes the judgement (checked, locked, audited). Candidates are numbered in the
annotator's own shuffled order; no system name or model id reaches this page. Every text is shown as text.
"""
from __future__ import annotations

import streamlit as st

from evaluator.human import protocols
from pages._cached import clear, reading
from pages._entry import ensure_app
from pages._ui import lang_label, md_escape
from services import campaigns as flow
from services.write import WriterBusy

ensure_app()

st.title("Annotate")
token = st.query_params.get("token", "")
with reading() as con:
    view = flow.next_item(con, token)
if view is None:
    st.info("Open this page through the personal link the campaign organiser sent you.", icon=":material/link:")
    st.stop()
st.caption(f"{md_escape(lang_label(view.lang))} · {'translation' if view.protocol == 'mt' else 'summarisation'}")
st.progress(view.n_done / max(view.n_total, 1), text=f"{view.n_done} of {view.n_total} items judged")
if view.seq is None:
    st.success("All your items are judged, or the campaign is closed. Thank you!", icon=":material/check_circle:")
    st.stop()

st.caption("Keys: Tab moves between fields, the arrow keys change a choice, Ctrl+Enter saves from a comment box or "
           "a checkbox (a focused choice keeps Ctrl+Enter to itself).")
PROTO = protocols.PROTOCOLS[view.protocol]
with st.container(border=True):
    st.markdown("**Source**")
    st.text(view.source)
    if view.reference:
        st.markdown("**Reference**")
        st.text(view.reference)


def _error_spans(pos: int, text: str) -> list[dict]:
    """ESA error spans: the candidate's words picked as minor or major errors (adjacent words merge)."""
    key = f"s{view.seq}c{pos}"
    words = flow.words_of(text, view.lang)
    if not words:
        return []
    label = dict(enumerate(f"{n + 1}. {text[a:b]}" for n, (a, b) in enumerate(words)))
    c1, c2 = st.columns(2)
    minor = c1.multiselect("Minor error words (optional)", list(label), format_func=label.get, key=f"{key}minor",
                           placeholder="pick words")
    major = c2.multiselect("Major error words (optional)", list(label), format_func=label.get, key=f"{key}major",
                           placeholder="pick words")
    return flow.picked_spans(words, minor, major)


def _mt_inputs(pos: int, text: str) -> tuple[dict, str, list[dict]]:
    key = f"s{view.seq}c{pos}"
    verdict = st.radio("Translation", ["correct", "incorrect"], index=None, horizontal=True, key=f"{key}ok")
    values = {"correct": None if verdict is None else float(verdict == "correct")}
    cols = st.columns(len(protocols.MQM_CATEGORIES))
    for col, cat in zip(cols, protocols.MQM_CATEGORIES):
        values[f"err_{cat}"] = float(col.checkbox(cat.replace("_", " "), key=f"{key}{cat}"))
    marked = _error_spans(pos, text)
    values["esa"] = st.number_input("Overall quality 0-100 after marking errors (ESA, optional)", 0, 100, value=None,
                                    key=f"{key}esa")
    return values, st.text_area("Comment (optional)", key=f"{key}note", max_chars=flow.MAX_COMMENT), marked


def _summary_inputs(pos: int, text: str) -> tuple[dict, str, list[dict]]:
    key = f"s{view.seq}c{pos}"
    values = {}
    for crit in PROTO.criteria:
        options = list(range(int(crit.low), int(crit.high) + 1))
        fmt = (lambda v: "yes" if v else "no") if crit.name == "faithfulness" else str
        values[crit.name] = st.radio(crit.label, options, index=None, horizontal=True, format_func=fmt,
                                     key=f"{key}{crit.name}")
    return values, st.text_area("Comment (optional)", key=f"{key}note", max_chars=flow.MAX_COMMENT), []


with st.form(f"item{view.seq}"):
    values, comments, marked = {}, {}, {}
    for pos, text in enumerate(view.candidates):
        with st.container(border=True):
            st.markdown(f"**Candidate {pos + 1}**")
            st.text(text)
            values[pos], comments[pos], marked[pos] = (_mt_inputs if view.protocol == "mt" else _summary_inputs)(
                pos, text)
    sent = st.form_submit_button("Save and next", type="primary", shortcut="ctrl+enter",
                                 help="Ctrl+Enter saves from a comment box or a checkbox; every candidate needs its required "
                                 "judgements.")

if sent:
    try:
        flow.submit_judgement(None, token, view.seq, values, comments, spans={p: m for p, m in marked.items() if m})
    except flow.CampaignRefused as e:
        st.error(md_escape(str(e)), icon=":material/error:")
    except WriterBusy:
        st.error("The store is busy; try again shortly.", icon=":material/error:")
    else:
        clear()
        st.rerun()
