"""Upload results: drop a SEA-HELM, lm-eval, pacute-bench or native file, check it, describe the model, import it.

Everything in an uploaded file is untrusted: file names, ids and model outputs are shown with `st.text`,
`st.code` or dataframes only, never as Markdown or HTML.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from evaluator import incidents
from pages import _cached as cached
from pages._cached import reader
from pages._entry import ensure_app
from pages._gate import checked
from pages._ui import dashed, frame, md_escape
from services import gate
from services import upload as upload_flow
from services.self_reported import side_by_side, summary_on_scale
from services.upload import DEFAULT_LIMITS, MB, read_upload
from services.write import WriterBusy
from store import access

ensure_app()

FORMATS = {"auto": "Detect automatically", "native": "Tanaw native JSONL", "pacute-bench": "pacute-bench",
           "seahelm": "SEA-HELM", "lm-eval": "lm-evaluation-harness"}
MODEL_PAGE = "pages/model.py"


def _problems(rows, kind: str, tail: str = "") -> None:
    """A count line and a table of problems (file, line, field, problem), shown as data, not Markdown."""
    if not rows:
        return
    (st.error if kind == "error" else st.warning)(f"{len(rows)} {kind}{'s' if len(rows) != 1 else ''}{tail}")
    frame([{"file": e.file, "line": str(e.line or ""), "field": e.field or "", "problem": e.problem}
                  for e in rows[:500]],
                 hide_index=True, width="stretch")


def _admin() -> None:
    """Hide, show again or delete an upload, and read the audit trail (admin token only)."""
    with st.expander("Admin: queued imports, hide or delete an upload"):
        admin = st.text_input("Admin token", type="password", key="admin_token")
        if not admin or checked("admin", admin) is None:
            return
        _drain_inbox()
        if "admin_done" in st.session_state:
            st.success(md_escape(st.session_state.pop("admin_done")))
        uploads = cached.q("uploads", include_hidden=True)
        frame(uploads, hide_index=True, width="stretch")
        if len(uploads):
            models = dict(zip(uploads["source_hash"], uploads["model_id"]))
            target = st.selectbox("Upload", list(models), key="admin_target",
                                  format_func=lambda h: f"{models[h]} · {h[:12]}…")
            sure = st.checkbox("Deleting removes the upload's runs, predictions and scores for good")
            a1, a2, a3 = st.columns(3)
            clicked = {"hide": a1.button("Hide"), "unhide": a2.button("Show again"),
                       "delete": a3.button("Delete", type="primary", disabled=not sure)}
            action = next((a for a, on in clicked.items() if on), None)
            if action:
                st.session_state["admin_done"] = upload_flow.admin_action(None, target, action,
                                                                           actor="admin")
                cached.clear()
                st.rerun()
        frame(cached.q("audit_log", limit=100), hide_index=True, width="stretch")


def _drain_inbox() -> None:
    """Import the files the operator queued from the command line (an admin action: docs/security.md, roles)."""
    queued = upload_flow.queued_count(None)
    if queued and st.button(f"Import {queued} file(s) queued from the command line (`ingest --inbox`)", key="drain"):
        try:
            done = upload_flow.drain_inbox(None)
        except WriterBusy:
            done = []
            st.warning("The store is busy; try again shortly.")
        except Exception:  # a queued file must not take the page down; the operator finds it in the log
            incidents.record("draining the upload inbox")
            done = []
        cached.clear()
        if done:
            st.info(md_escape("Imported files queued from the command line: " +
                              "; ".join(f"{o.model_id}: {o.message}" for o in done)))


def _read(file, fmt: str):
    """The checked upload, kept for this session (the bytes Streamlit holds are read in place, not copied)."""
    key = (file.file_id, fmt)
    if st.session_state.get("upload_read", (None,))[0] != key:
        with st.spinner("Reading and checking the file…"):
            st.session_state["upload_read"] = (key, read_upload(file.getbuffer(), file.name, fmt=fmt))
    return st.session_state["upload_read"][1]


def _failed(where: str, what: str) -> None:
    """Log the exception being handled with an id; show the visitor the id only, never the traceback."""
    st.error(incidents.message(incidents.record(where), what), icon=":material/error:")
    st.stop()


st.title("Upload results")
st.caption("SEA-HELM, lm-evaluation-harness and pacute-bench result files (or a .zip of them, with run_N folders) "
           "are re-scored against our gold answers. Scores inside the file are kept as self-reported only.")

if access.mode("admin") == "token":  # admin is never open without TANAW_ADMIN_TOKEN
    _admin()

token = ""
# docs/security.md, "Roles and tokens": closed on a public Space without a token; an uploader's token names the identity
# that owns the models it creates (services.upload.name_refusal)
upload_mode = gate.mode("upload", reader())
if upload_mode == "closed":
    st.info("Uploads are closed on this public Space: the operator has not issued upload tokens "
            "(`python -m evaluator uploader add`, or TANAW_UPLOAD_TOKEN).", icon=":material/lock:")
    st.stop()
if upload_mode == "token":
    token = st.text_input("Upload token", type="password", key="upload_token",
                          help="Your personal uploader token; ask the maintainers for one.")
grant = checked("upload", token, reader())
if grant is None:
    if not token:
        st.info("Uploads need a valid token.")
    st.stop()

if st.query_params.get("format") in FORMATS and "fmt" not in st.session_state:
    st.session_state["fmt"] = st.query_params["format"]
fmt = st.selectbox("Format", list(FORMATS), format_func=FORMATS.get, key="fmt")
st.query_params["format"] = fmt
file = st.file_uploader("Result file", type=["jsonl", "json", "zip"], key="file",
                        help=f"Up to {DEFAULT_LIMITS.max_bytes // MB} MB. A .zip may hold several files; "
                             "run_1/, run_2/ folders give run numbers.")
if file is None:
    with st.expander("Recent uploads"):
        frame(cached.q("uploads", limit=20), hide_index=True, width="stretch")
    st.stop()

try:
    upload = _read(file, fmt)
except Exception:
    _failed("reading an upload", "The file could not be checked")
st.subheader("Detected")
frame([{"file": f.name, "format": f.format, "run": f.run, "rows": f.rows, "matched": f.imported}
              for f in upload.files], hide_index=True, width="stretch")
st.text(f"{len(upload.predictions)} predictions matched to our items, {len(upload.summary)} self-reported "
        f"summary scores, sha256 {upload.sha256[:16]}…")

if upload.preview:
    st.subheader("First rows")
    for row in upload.preview:
        st.text(f"{row['file']}:{row['line']} · {row['task']}/{row['lang']} · id {row['id']}")
        st.code(row["output"] or "(empty output)", language=None, wrap_lines=True)

st.subheader("Validation")
_problems(upload.errors, "error", ": the file is refused until they are fixed")
_problems(upload.warnings, "warning", ": the rows or files named are not imported")
if upload.ok and not upload.warnings:
    st.success("No problems found.")
if not upload.ok:
    st.stop()

with st.form("model"):
    st.subheader("Model")
    name = st.text_input("Model name", value=upload.model_hint or "", max_chars=200)
    c1, c2, c3 = st.columns(3)
    org = c1.text_input("Organisation", max_chars=200)
    params = c2.number_input("Parameters (billions)", min_value=0.0, max_value=100000.0, value=None, step=0.1)
    kinds = ["base", "instruct", "reasoning"]  # preselected only when the file states it; else asked, never assumed
    stated = upload.model_meta.get("model_type")
    kind = c3.selectbox("Type", kinds, index=kinds.index(stated) if stated in kinds else None,
                        placeholder="not stated")
    c4, c5, c6 = st.columns(3)
    weights = c4.selectbox("Weights", ["open", "closed"], index=None, placeholder="not stated")
    licence = c5.text_input("Licence", max_chars=100)
    url = c6.text_input("URL", max_chars=500)
    seen = st.text_input("Benchmarks in its training data", max_chars=2000,
                         help="Comma-separated task, benchmark or dataset names the model card declares it was "
                              "trained on (e.g. FLORES-200, XL-Sum): the leaderboard flags those cells.")
    training = st.text_area("Training data (the model card's words)", max_chars=2000)
    who = st.text_input("Submitted by", max_chars=100, help="Your name or Hugging Face user name, for the audit log.")
    submitted = st.form_submit_button("Score and import", type="primary")

if submitted:
    if not name.strip():
        st.error("A model name is required.")
        st.stop()
    if url and not url.startswith(("https://", "http://")):
        st.error("The URL must start with https:// or http://")
        st.stop()
    bar = st.progress(0.0, text="Scoring…")
    model = {"model_id": name, "organisation": org, "params_b": params, "model_type": kind, "weights": weights,
             "licence": licence, "url": url}
    try:
        outcome = upload_flow.ingest_upload(
            None, upload, model=model, owner=grant.owner or grant.actor,
            declaration=([x.strip() for x in seen.split(",") if x.strip()], training.strip() or None)
            if seen.strip() or training.strip() else None,
            actor=f"{grant.actor} ({who.strip()[:100] or 'anonymous'})",
            progress=lambda i, n: bar.progress(min(i / max(n, 1), 1.0), text=f"Scoring {i} of {n}…"))
    except Exception:  # the app keeps serving whatever happens; details go to the log, never to the visitor
        bar.empty()
        _failed("importing an upload", "Import failed")
    bar.progress(1.0, text="Done")
    cached.clear()
    if outcome.status == "rejected":
        st.error(md_escape(outcome.message))
        _problems(outcome.errors, "error")
        st.stop()
    st.success(md_escape(outcome.message))
    if outcome.cells:
        st.subheader("Re-scored by Tanaw")
        cells = pd.DataFrame([{"task": c.task, "lang": c.lang, "prompt": c.prompt_lang, "metric": c.metric,
                               "score": c.value, "ci_low": c.ci_low, "ci_high": c.ci_high, "n": c.n,
                               "unparsed %": None if c.parse_fail_rate is None else 100 * c.parse_fail_rate,
                               "status": c.status} for c in outcome.cells])
        frame(dashed(cells, {"score": 1, "ci_low": 1, "ci_high": 1, "n": 0, "unparsed %": 1}), hide_index=True,
              width="stretch")
    compared = side_by_side(cached.q("rescored_and_reported", model=outcome.model_id))
    if len(compared):
        st.subheader("Re-scored beside self-reported")
        st.caption("The same cells on one scale (0-100; a file's 0-1 shares ×100): Tanaw's score from the raw "
                   "outputs beside the mean of the file's own per-item scores, how many items the two score "
                   "differently and the rule behind it. Self-reported values are kept, never ranked.")
        frame(dashed(compared, {"re-scored": 1, "self-reported": 1, "difference": 1, "items": 0, "differing": 0}),
              hide_index=True, width="stretch",
              column_config={"why": st.column_config.TextColumn("why they differ", width="large")})
    reported = summary_on_scale(cached.q("self_reported_summary", model=outcome.model_id))
    if len(reported):
        with st.expander("Every self-reported figure in the file (never ranked)"):
            frame(dashed(reported, {"value": 1, "items": 0}), hide_index=True, width="stretch")
    if Path(MODEL_PAGE).exists():
        try:
            st.page_link(MODEL_PAGE, label=f"Open the model page of {md_escape(outcome.model_id)}", icon=":material/person:",
                         query_params={"model": outcome.model_id})
        except Exception:  # the model page is not in the navigation (yet)
            pass
