"""Tanaw: the leaderboard and failure explorer for LLMs in Southeast Asian languages (Streamlit entry)."""
from __future__ import annotations

import streamlit as st

from pages._cached import clear, connection, parquet_root, q, shared
from pages._entry import embedded, requested, route_default_alias
from pages._hub import push_changes, sync_banner
from pages._ui import md_escape, run_page

st.set_page_config(page_title="Tanaw · SEA LLM leaderboard", page_icon="🔭", layout="wide")


@st.cache_resource(show_spinner="Preparing the results database…")
def prepare_store() -> str:
    """Once per process: registries and roll-ups into the store, the demo content into an empty store, and the
    uploads the CLI queued in the inbox, then a watcher applying what it queues while the app serves
    (`services.startup`). Processes that share the store file (`shared`) find it prepared: deploy/serve.sh does this
    once before it starts them, and the command line writes to it directly while they serve."""
    from services.startup import prepare_store as prepare
    from store.db import db_path

    if shared():
        return "ready"
    done = prepare(connection().cursor(), db_path(), drain=not parquet_root(), on_change=clear)
    return "built" if done["built"] else "ready"


PAGES = {
    "Leaderboards": [
        st.Page("pages/leaderboard.py", title="Leaderboard", icon=":material/leaderboard:", default=True),
        st.Page("pages/language.py", title="By language", icon=":material/translate:"),
    ],
    "Explore": [
        st.Page("pages/lindsea.py", title="LINDSEA", icon=":material/account_tree:"),
        st.Page("pages/pacute.py", title="PACUTE", icon=":material/stacked_line_chart:"),
        st.Page("pages/cultural.py", title="Cultural probes", icon=":material/diversity_3:"),
        st.Page("pages/human.py", title="Human evaluation", icon=":material/groups:"),
        st.Page("pages/compare.py", title="Compare", icon=":material/compare:"),
        st.Page("pages/model.py", title="Model", icon=":material/smart_toy:"),
    ],
    "Contribute": [
        st.Page("pages/upload.py", title="Upload results", icon=":material/upload_file:"),
        st.Page("pages/queue.py", title="Evaluation queue", icon=":material/queue:"),
        st.Page("pages/annotate.py", title="Annotate", icon=":material/rate_review:"),  # [2]: served alone
    ],
    "About": [
        st.Page("pages/methodology.py", title="Methodology", icon=":material/menu_book:"),
    ],
}


def demo_banner() -> None:
    """Say plainly when what the pages show is the embedded demo, not benchmark results: when the store's ranked
    rows are demo ones, i.e. no evaluated or uploaded model is ranked anywhere (`services.board_view`)."""
    from services.board_view import with_stubs

    demo = q("demo_models")
    if demo.empty or with_stubs(q("board_models"))["ranked"].any():
        return
    names = ", ".join(md_escape(m) for m in demo["model_id"])
    st.info(f"**Demo data.** {names} answered Tanaw's own demo items (`data/demo`: 10-60 sentences per cell "
            "written for Tanaw), not the BHASA, LINDSEA or PACUTE test sets, so their scores say nothing about the "
            "benchmarks. Real numbers: point `TANAW_DATA_DIR` at the public data and run or upload a model "
            "(README: *Score your model*).", icon=":material/science:")


prepare_store()
route_default_alias()  # /leaderboard is the leaderboard (the default page, also served at /)
if embedded():  # ?embed=1: the leaderboard table alone, for iframes (docs/deploying.md)
    run_page(st.navigation([PAGES["Leaderboards"][0]], position="hidden"))
    st.stop()
# annotators see one page: no site navigation (and no model names anywhere on it)
annotating = requested(PAGES["Contribute"][2])
page = st.navigation({k: v for k, v in PAGES.items() if v}, position="hidden" if annotating else "top")
if page.url_path != "annotate":  # annotators see blinded candidates: no model names anywhere on their page
    demo_banner()
sync_banner()  # results repo on the Hub (TANAW_RESULTS_REPO): pulled on start, pushed after changes
run_page(page)  # errors: an id, no traceback
push_changes()
