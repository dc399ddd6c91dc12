"""`python -m evaluator worker` end to end: queue -> `evaluator run` against a local OpenAI-compatible stand-in
(directly, or started by --serve-cmd for a Hub model) -> FINISHED with answers stored, statuses pushed to the Hub."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


from services import worker
from store import db, queue
from store.queue import Submission
from tests.helpers.hub_standin import HubStandin
from tests.helpers.standin_server import StandinServer

REPO = Path(__file__).resolve().parents[2]
SLICE = dict(tasks="sentiment", langs="id", prompt_langs="en", item_limit=2)


def _args(db_path, **kw) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    worker.add(parser.add_subparsers())
    args = parser.parse_args(["worker", "--db", str(db_path), "--once", "--name", "test-worker", "-c", "4",
                              "--serve-timeout", "30", *kw.pop("extra", [])])
    return args


def _queue(db_path, **kw) -> str:
    con = db.connect(db_path)
    sub, _ = queue.submit(con, Submission(request_id="", **{**SLICE, **kw}))
    con.close()
    return sub.request_id


def _status(db_path, rid):
    con = db.connect(db_path)
    try:
        return queue.get(con, rid)
    finally:
        con.close()


def _synced_results_repo(hub_server, tmp_path, monkeypatch) -> None:
    """A results repo on the Hub stand-in that the worker pushes to (write token), and the model stand-in on
    127.0.0.1 allowed as an endpoint."""
    hub_server.create_repo("tanaw/results")
    for k, v in {"TANAW_RESULTS_REPO": "tanaw/results", "HF_TOKEN": "write-token",
                 "HF_ENDPOINT": hub_server.url, "TANAW_HOME": str(tmp_path / "home"),
                 "TANAW_ALLOW_PRIVATE_ENDPOINTS": "1"}.items():
        monkeypatch.setenv(k, v)


def test_worker_serves_a_hub_model_and_fails_cleanly_without_a_server(tmp_path, monkeypatch):
    monkeypatch.delenv("TANAW_RESULTS_REPO", raising=False)
    path = tmp_path / "w.duckdb"
    rid = _queue(path, model_id="hub-model", backend="hub", hub_model="org/tiny", revision="main")
    assert worker.cmd_worker(_args(path)) == 0
    failed = _status(path, rid)
    assert failed.status == "FAILED" and "--serve-cmd" in failed.error

    rid = _queue(path, model_id="hub-model-2", backend="hub", hub_model="org/tiny", revision="main")
    serve = f"{sys.executable} {REPO / 'tests' / 'helpers' / 'standin_server.py'} --port {{port}}"
    assert worker.cmd_worker(_args(path, extra=["--serve-cmd", serve])) == 0
    done = _status(path, rid)
    assert done.status == "FINISHED", done.error
    assert done.n_results == 2


def test_worker_runs_an_endpoint_request_and_pushes_its_statuses(tmp_path, monkeypatch):
    path = tmp_path / "w.duckdb"
    with HubStandin() as hub_server, StandinServer() as server:
        _synced_results_repo(hub_server, tmp_path, monkeypatch)
        rid = _queue(path, model_id="synced-model", backend="openai", base_url=server.base_url)
        assert worker.cmd_worker(_args(path)) == 0
        done = _status(path, rid)
        assert done.status == "FINISHED", done.error
        assert done.n_results == 2 and done.worker == "test-worker"
        assert worker.cmd_worker(_args(path)) == 0  # --once on an empty queue: nothing to do
        summaries = [c[1] for c in hub_server.commit_log]
        assert summaries == [f"Queue: synced-model RUNNING ({rid})", f"Queue: synced-model FINISHED ({rid})"]
        manifest = json.loads(hub_server.files("tanaw/results")["manifest.json"])
        assert "submissions" not in manifest["tables"] and manifest["tables"]["predictions"]["rows"] == 2


def test_restarted_worker_requeues_its_interrupted_request(tmp_path, monkeypatch):
    path = tmp_path / "w.duckdb"
    with HubStandin() as hub_server, StandinServer() as server:
        _synced_results_repo(hub_server, tmp_path, monkeypatch)
        rid = _queue(path, model_id="crashed-model", backend="openai", base_url=server.base_url)
        con = db.connect(path)
        assert queue.claim_next(con, "test-worker").request_id == rid  # the worker died here
        from store import hub
        assert hub.push(con, "RUNNING before the crash").ok
        con.close()
        assert worker.cmd_worker(_args(path)) == 0  # same --name: back to PENDING, then run
        assert _status(path, rid).status == "FINISHED"
        summaries = [c[1] for c in hub_server.commit_log]
        assert "Queue: 1 request(s) of test-worker back to PENDING" not in summaries  # the queue is private
        assert summaries[-1] == f"Queue: crashed-model FINISHED ({rid})"
