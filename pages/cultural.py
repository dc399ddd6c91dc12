"""Cultural probes: each model's answer to the same open question side by side, and human ratings."""
from __future__ import annotations

import streamlit as st

from evaluator.human.protocols import RATINGS_SCALE
from evaluator.registry import task_langs
from pages._cached import clear, q
from pages._entry import ensure_app
from pages._gate import checked
from pages._filters import filtered_models, model_filters
from pages._ui import dashed, empty_state, lang_label, md_escape, table
from services import ratings as ratings_flow
from services.write import WriterBusy
from store import access

ensure_app()
LOW, HIGH = RATINGS_SCALE

st.title("Cultural probes")
st.caption("Open questions on proverbs, customs and culture asked in the native language (BHASA cultural "
           "representation). There is no gold answer: read the responses side by side and upload human ratings.")

available = filtered_models(model_filters(), "cultural-")
c1, c2 = st.columns([1, 3])
langs = task_langs("cultural-representation")
lang = c1.selectbox("Language", langs, key="lang", bind="query-params", help=", ".join(map(lang_label, langs)))
items = q("cultural_items", lang=lang)
if items.empty:
    empty_state(f"No cultural probes stored for {lang}.", "Ingest cultural-representation results first.")
    st.stop()
item_id = c2.selectbox("Probe (item id)", items["item_id"].tolist(), key="item", bind="query-params",
                       help="The probe's category and target are shown below; the full list is at the bottom.")
models = st.multiselect("Models", available, default=available[:4], key="models", bind="query-params",
                        max_selections=4)

probe = items[items["item_id"] == item_id].iloc[0]
with st.container(border=True):
    st.markdown(f"**Probe {md_escape(item_id)}** · {md_escape(probe['category'])} · {md_escape(probe['aspect'])} · "
                f"target: {md_escape(probe['target'])}")
    st.code(probe["prompt"] or "", language=None, wrap_lines=True)

if not models:
    empty_state("No model selected.", "Choose up to four models above (or clear the model filters).")
else:
    responses = q("cultural_responses", lang=lang, item_id=item_id, models=tuple(models))
    cols = st.columns(len(models))
    for col, model in zip(cols, models):
        with col:
            st.markdown(f"**{md_escape(model)}**")
            mine = responses[responses["model_id"] == model]
            if mine.empty:
                st.caption("No response to this probe.")
            for r in mine.itertuples():
                st.caption(f"{md_escape(r.prompt_lang)} prompt · run {r.run_no}")
                st.code(r.output if isinstance(r.output, str) else "(empty)", language=None, wrap_lines=True)

st.subheader("Human ratings")
summary = q("cultural_rating_summary", lang=lang)
if summary.empty:
    empty_state("No ratings uploaded yet for this language.",
                "Upload a CSV with columns item, model, rater, one numeric column per criterion (e.g. accuracy, "
                f"fluency, sensitivity; each rating {LOW:g}-{HIGH:g}) and optionally lang.")
else:
    st.caption("Mean per model and criterion over all rated probes with its 95% interval (Student t), as stored "
               "when the ratings were written. Uploaded ratings are a campaign "
               f"(ratings-cultural-representation-{md_escape(lang)}): agreement between raters is on the Human "
               "evaluation page.")
    table(summary, f"cultural_ratings_{lang}",
          display=dashed(summary, {"mean": 2, "low": 2, "high": 2}))
    this = q("cultural_item_ratings", lang=lang, item_id=item_id)
    if not this.empty:
        st.markdown(f"Ratings of probe {md_escape(item_id)}")
        table(this, f"cultural_ratings_{lang}_{item_id}")

def _ratings_upload() -> None:
    """Upload ratings through services.ratings.save_ratings (locked, audited; a rater token names its rater).
    Closed on a public Space unless TANAW_RATER_TOKENS is set (docs/security.md, "Ratings and admin actions")."""
    state = access.mode("rate")
    if state == "closed":
        st.info("Rating uploads are closed here: the operator has not set rater tokens (TANAW_RATER_TOKENS).",
                icon=":material/lock:")
        return
    token = st.text_input("Rater token", type="password", key="rater_token") if state == "token" else ""
    upload = st.file_uploader("Ratings file", type=["csv"], key="ratings_upload",
                              help=f"Columns item, model, rater, optional lang and task, one column per criterion; "
                                   f"every rating {LOW:g}-{HIGH:g}.")
    if upload is None or not st.button("Add ratings", key="ratings_add"):
        return
    grant = checked("rate", token, remember=False)
    if grant is None:
        if not token:
            st.error("Ratings need a valid rater token; ask the maintainers.", icon=":material/lock:")
        return
    try:
        added = ratings_flow.save_ratings(None, upload.getvalue(), upload.name, actor=grant.actor,
                                          rater=grant.rater)
    except ratings_flow.RatingsError as e:
        st.error(md_escape(str(e)), icon=":material/error:")
    except WriterBusy:
        st.error("The store is busy; try again shortly.", icon=":material/error:")
    else:
        clear()
        st.success(md_escape(f"Added {added.n_rows} scores: {added.n_items} probes, {added.n_models} models, "
                             f"{added.n_raters} raters, criteria {', '.join(added.criteria)}."))


with st.expander("Upload ratings (CSV)"):
    _ratings_upload()

with st.expander(f"All {len(items)} probes in {lang}"):
    table(items, f"cultural_probes_{lang}", height=300)
