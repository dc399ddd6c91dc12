"""Request an evaluation and follow the queue (PENDING -> RUNNING -> FINISHED | FAILED).

Submitted values are untrusted: they are shown in dataframes only, never as Markdown or HTML. The form calls
`services.queue.submit_request` (field checks, the endpoint policy, one locked write); refusals are shown
generically (docs/security.md, "Endpoints"). On a public Space requests need TANAW_SUBMIT_TOKEN (closed without it).
"""
from __future__ import annotations

import os

import streamlit as st

from evaluator.registry import FAMILIES, TASKS
from pages import _cached as cached
from pages._entry import ensure_app
from pages._gate import checked
from pages._ui import frame, md_escape
from services import queue
from services.queue import EndpointRefused, submit_request
from services.write import WriterBusy
from store import access

ensure_app()

STATUS_ICONS = {"PENDING": ":material/schedule:", "RUNNING": ":material/autorenew:",
                "FINISHED": ":material/check_circle:", "FAILED": ":material/error:"}
BACKENDS = {"openai": "OpenAI-compatible endpoint (vLLM, SGLang, TGI, hosted API)",
            "hub": "Model on the Hugging Face Hub (served by our worker)"}
PROMPTS = {"en,native": "English and native prompts", "en": "English prompts", "native": "Native prompts"}
MODES = {"": "Evaluation run", "leakage": "Leakage probes (guided completion, TS-Guessing, Min-K%++; prompts unused)"}


def _request_form(access_mode: str) -> None:
    """The request form, or why it is closed; queues through submit_request."""
    if access_mode == "closed":
        st.info("Requests are closed on this public Space: the operator has not set a submission token "
                "(TANAW_SUBMIT_TOKEN).", icon=":material/lock:")
        return
    choices = cached.q("submission_choices")
    families = sorted(choices["family"].unique()) or list(FAMILIES)
    langs = sorted(choices["lang"].unique()) or sorted({lang for t in TASKS.values() for lang in t.langs})
    with st.form("request"):
        model_id = st.text_input("Model name (as shown on the leaderboard)", max_chars=200)
        backend = st.radio("Where is it served?", list(BACKENDS), format_func=BACKENDS.get)
        mode = st.radio("What to run", list(MODES), format_func=MODES.get,
                        help="Leakage probes ask the model whether it has seen the benchmarks' items; their flags "
                             "show on the board's cells of those tasks and languages.")
        c1, c2 = st.columns(2)
        base_url = c1.text_input("Endpoint base URL", placeholder="https://my-server.example/v1",
                                 help="For an OpenAI-compatible endpoint; include /v1.")
        api_key_env = c2.text_input("API key variable", max_chars=64,
                                    help="The NAME of the environment variable the worker reads the key from, "
                                         "agreed with the maintainers. Never paste a key here.")
        c3, c4 = st.columns(2)
        hub_model = c3.text_input("Hub model id / served model name", placeholder="org/model",
                                  help="Required for a Hub model; optional name the endpoint expects.")
        revision = c4.text_input("Hub revision", placeholder="main")
        tasks = st.multiselect("Task families", families, default=families)
        sel_langs = st.multiselect("Languages", langs, default=langs)
        c5, c6 = st.columns(2)
        prompt_langs = c5.selectbox("Prompts", list(PROMPTS), format_func=PROMPTS.get)
        limit = c6.number_input("Items per task and language (empty = all)", min_value=1, value=None, step=10)
        submitter = st.text_input("Your name or contact", max_chars=200)
        token = st.text_input("Submission token", type="password") if access_mode == "token" else ""
        sent = st.form_submit_button("Queue the request", type="primary")
    if sent and checked("queue", token, remember=False) is None:
        if not token:
            st.error("Requests need a valid submission token; ask the maintainers.")
    elif sent:
        request = queue.Submission(
            request_id="", model_id=model_id.strip(), backend=backend, base_url=base_url.strip() or None,
            hub_model=hub_model.strip() or None, revision=revision.strip() or None,
            api_key_env=api_key_env.strip() or None,
            tasks=None if set(tasks) == set(families) else ",".join(tasks) or None,
            langs=None if set(sel_langs) == set(langs) else ",".join(sel_langs) or None,
            prompt_langs=prompt_langs, item_limit=int(limit) if limit else None, submitter=submitter.strip() or None,
            mode=mode or None)
        try:
            stored, created = submit_request(None, request)
        except (queue.QueueError, EndpointRefused) as e:  # messages name the field, never the endpoint's answer
            st.error(md_escape(f"Not queued: {e}"))
        except WriterBusy:
            st.error("Not queued: the store is busy; try again shortly.")
        else:
            cached.clear()
            st.session_state["queued"] = (f"Queued as request {stored.request_id}." if created else
                                          f"The same request is already {stored.status} "
                                          f"(request {stored.request_id}).")
            st.rerun()  # redraw the counts above with the new request


st.title("Evaluation queue")
st.caption("Ask for a model to be evaluated on BHASA, LINDSEA, the cultural probes and PACUTE. A worker "
           "(`python -m evaluator worker`) takes requests in order; results appear on the leaderboard.")

if "queued" in st.session_state:
    st.success(md_escape(st.session_state.pop("queued")), icon=":material/check:")
counts = cached.q("submission_counts")
for col, row in zip(st.columns(len(counts)), counts.itertuples()):
    col.metric(md_escape(row.status.title()), int(row.n))

with st.expander("Request an evaluation", icon=":material/add_circle:"):
    _request_form(access.mode("queue"))

status = st.segmented_control("Show", ["ALL", *queue.STATUSES], default="ALL", key="status",
                              bind="query-params")
rows = cached.q("submissions", status=None if status in (None, "ALL") else status)
if rows.empty:
    st.info("No requests yet." if status in (None, "ALL") else f"No {status} requests.")
else:
    frame(rows, hide_index=True, width="stretch", column_config={
        "status": st.column_config.TextColumn("status"),
        "model_id": st.column_config.TextColumn("model"),
        "served_at": st.column_config.TextColumn("served at"),
        "prompt_langs": st.column_config.TextColumn("prompts"),
        "mode": st.column_config.TextColumn("run"),
        "created_at": st.column_config.DatetimeColumn("submitted", format="YYYY-MM-DD HH:mm"),
        "started_at": st.column_config.DatetimeColumn("started", format="YYYY-MM-DD HH:mm"),
        "finished_at": st.column_config.DatetimeColumn("finished", format="YYYY-MM-DD HH:mm"),
        "request_id": st.column_config.TextColumn("request"),
        "item_limit": st.column_config.NumberColumn("items/cell"),
        "n_results": st.column_config.NumberColumn("answers"),
        "error": st.column_config.TextColumn("error / warning", width="large"),
    })

with st.expander("Results repository sync", icon=":material/cloud_sync:"):
    repo = os.environ.get("TANAW_RESULTS_REPO")
    st.text(f"Results repo: {repo}" if repo else "Hub sync is off (TANAW_RESULTS_REPO not set).")
    log = cached.q("hub_sync_log", limit=20)
    if not log.empty:
        frame(log, hide_index=True, width="stretch")
