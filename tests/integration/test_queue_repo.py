"""The evaluation queue between a Space and a worker through the private queue repo (TANAW_QUEUE_REPO) on the Hub
stand-in: a request queued on the Space's store reaches the worker's store, the worker's statuses come back, the
public results repo never holds `submissions`, and a queue repo the Hub reports public is refused."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from services import hub_sync, worker
from services.queue import submit_request
from store import db, hub, queue
from store.queue import Submission
from tests.helpers.hub_standin import HubStandin
from tests.helpers.standin_server import StandinServer
from tests.integration.test_worker import SLICE, _args

CONTACT = "alice-queue@example.org"
RESULTS, QUEUE = "tanaw/results", "tanaw/queue"
REPO = Path(__file__).resolve().parents[2]


def _env(monkeypatch, hub_server, tmp_path, space_db) -> None:
    for k, v in {"TANAW_RESULTS_REPO": RESULTS, "TANAW_QUEUE_REPO": QUEUE, "HF_TOKEN": "write-token",
                 "HF_ENDPOINT": hub_server.url, "TANAW_HOME": str(tmp_path / "home"), "TANAW_DB": str(space_db),
                 "TANAW_ALLOW_PRIVATE_ENDPOINTS": "1"}.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("TANAW_PULL_TABLES", raising=False)


def _request(model_id: str, base_url: str) -> Submission:
    return Submission(request_id="", model_id=model_id, backend="openai", base_url=base_url, submitter=CONTACT,
                      **SLICE)


def _statuses(path) -> dict[str, tuple[str, int | None]]:
    con = db.connect(path)
    try:
        return {s.request_id: (s.status, s.n_results) for s in queue.listing(con)}
    finally:
        con.close()


def _assert_results_repo_public_only(hub_server) -> None:
    """Every file of every commit of the results repo: no `submissions` folder or manifest entry, no submitter."""
    repo = hub_server.repos[RESULTS]
    assert len(repo.commits) > 1  # the worker did push results
    for files in repo.commits.values():
        assert not [p for p in files if p.split("/")[0] == "submissions"]
        assert all(CONTACT.encode() not in data for data in files.values())
        if "manifest.json" in files:
            assert "submissions" not in json.loads(files["manifest.json"])["tables"]


def test_a_request_queued_on_the_space_runs_on_the_worker_and_its_status_comes_back(tmp_path, monkeypatch):
    space, gpu = tmp_path / "space.duckdb", tmp_path / "worker.duckdb"
    with HubStandin() as hub_server, StandinServer() as server:
        hub_server.create_repo(RESULTS)
        hub_server.create_repo(QUEUE, private=True)
        _env(monkeypatch, hub_server, tmp_path, space)
        first, created = submit_request(space, _request("queued-on-space", server.base_url))
        assert created and _statuses(space) == {first.request_id: ("PENDING", None)}
        queued = hub_server.files(QUEUE)
        assert sorted({p.split("/")[0] for p in queued}) == [".gitattributes", "manifest.json", "submissions"]
        assert list(json.loads(queued["manifest.json"])["tables"]) == ["submissions"]

        second = {}
        run = worker.handle

        def queue_while_running(sub, args):  # the Space queues another request while the worker runs the first
            assert _statuses(gpu)[first.request_id] == ("RUNNING", None)
            second["sub"], _ = submit_request(space, _request("queued-second", server.base_url))
            return run(sub, args)

        monkeypatch.setattr(worker, "handle", queue_while_running)
        assert worker.cmd_worker(_args(gpu)) == 0  # --once: pulls the queue repo, claims, runs, pushes
        later = second["sub"].request_id
        assert _statuses(gpu) == {first.request_id: ("FINISHED", 2), later: ("PENDING", None)}

        state: dict = {}
        assert hub_sync.pull(state).ok  # the Space's periodic pull: results and queue
        assert _statuses(space) == {first.request_id: ("FINISHED", 2), later: ("PENDING", None)}
        con = db.connect(space)
        assert con.execute("SELECT count(*) FROM predictions").fetchone()[0] == 2  # the results, via the results repo
        con.close()
        _assert_results_repo_public_only(hub_server)
        summaries = [c[1] for c in hub_server.commit_log]
        assert f"Queue: queued-on-space FINISHED ({first.request_id})" in summaries


def test_a_request_queued_on_the_page_reaches_a_worker_store(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from tests.helpers.fixtures_store import pages_on

    space, gpu = tmp_path / "space.duckdb", tmp_path / "worker.duckdb"
    db.connect(space).close()
    with HubStandin() as hub_server:
        hub_server.create_repo(QUEUE, private=True)
        _env(monkeypatch, hub_server, tmp_path, space)
        monkeypatch.delenv("TANAW_RESULTS_REPO")
        for k in ("SPACE_ID", "TANAW_SUBMIT_TOKEN"):
            monkeypatch.delenv(k, raising=False)
        with pages_on(space):
            at = AppTest.from_file(str(REPO / "pages" / "queue.py"), default_timeout=60).run()
            inputs = {t.label: t for t in at.text_input}
            inputs["Model name (as shown on the leaderboard)"].set_value("from-the-page")
            inputs["Endpoint base URL"].set_value("https://ok.example/v1")
            inputs["Your name or contact"].set_value(CONTACT)
            at.button[0].click()
            at.run()
            assert not at.exception and any("Queued as request" in s.value for s in at.success)
        con = db.connect(gpu)
        assert hub.pull(con, hub.HubConfig.queue()).ok  # what the worker does before claiming
        (sub,) = queue.listing(con)
        assert (sub.model_id, sub.base_url, sub.submitter, sub.status) == ("from-the-page", "https://ok.example/v1",
                                                                            CONTACT, "PENDING")
        assert queue.claim_next(con, "gpu-1").request_id == sub.request_id
        con.close()


def test_a_public_queue_repo_is_refused_and_gets_nothing(tmp_path, monkeypatch):
    space = tmp_path / "space.duckdb"
    with HubStandin() as hub_server, StandinServer() as server:
        hub_server.create_repo(RESULTS)
        hub_server.create_repo(QUEUE, private=False)
        _env(monkeypatch, hub_server, tmp_path, space)
        sub, created = submit_request(space, _request("queued-on-space", server.base_url))
        assert created  # queued locally; only the push is refused
        assert list(hub_server.files(QUEUE)) == [".gitattributes"] and len(hub_server.repos[QUEUE].commits) == 1
        con = db.connect(space)
        refused = f"Refused TANAW_QUEUE_REPO={QUEUE}: the Hub reports this dataset repo as public"
        action, ok, message = con.execute("SELECT action, ok, message FROM hub_sync ORDER BY rowid DESC "
                                          "LIMIT 1").fetchone()
        assert (action, ok) == ("push", False) and message.startswith(refused)
        pulled = hub.pull(con, hub.HubConfig.queue())  # a worker pointed at it reads nothing either
        assert not pulled.ok and pulled.message.startswith(refused)
        con.close()
        assert not [p for m, p in hub_server.requests if p.startswith(f"/datasets/{QUEUE}/resolve")]


def test_merge_keeps_the_later_status_per_request():
    con = db.connect(":memory:")
    rows = {"a": "PENDING", "b": "FINISHED", "c": "RUNNING", "d": "FAILED"}
    for rid, status in rows.items():
        con.execute("INSERT INTO submissions (request_id, model_id, backend, status, worker) VALUES (?, 'm', "
                    "'openai', ?, 'ours')", [rid, status])
    con.execute("CREATE TEMP TABLE theirs AS SELECT * FROM submissions LIMIT 0")
    for rid, status in {"a": "RUNNING", "b": "RUNNING", "c": "FAILED", "d": "FINISHED", "e": "PENDING",
                        "f": "DONE?"}.items():
        con.execute("INSERT INTO theirs (request_id, model_id, backend, status, worker) VALUES (?, 'm', 'openai', "
                    "?, 'theirs')", [rid, status])
    queue.merge_staged(con, "theirs")
    got = dict((r[0], r[1:]) for r in con.execute("SELECT request_id, status, worker FROM submissions").fetchall())
    assert got == {"a": ("RUNNING", "theirs"), "b": ("FINISHED", "ours"), "c": ("FAILED", "theirs"),
                   "d": ("FAILED", "ours"), "e": ("PENDING", "theirs")}


@pytest.mark.parametrize("private", [True, False])
def test_the_stand_in_reports_privacy_and_hides_private_repos_without_a_token(private):
    from huggingface_hub import HfApi
    from huggingface_hub.errors import RepositoryNotFoundError

    with HubStandin() as hub_server:
        hub_server.create_repo(QUEUE, private=private)
        assert HfApi(endpoint=hub_server.url, token="read-token").dataset_info(QUEUE).private is private
        if private:
            with pytest.raises(RepositoryNotFoundError):
                HfApi(endpoint=hub_server.url, token=False).dataset_info(QUEUE)


def test_a_request_queued_while_the_hub_is_down_is_pushed_at_the_next_pull(tmp_path, monkeypatch):
    space = tmp_path / "space.duckdb"
    with HubStandin() as hub_server:
        hub_server.create_repo(QUEUE, private=True)
        _env(monkeypatch, hub_server, tmp_path, space)
        monkeypatch.delenv("TANAW_RESULTS_REPO")
        hub_server.down = True
        sub, created = submit_request(space, _request("queued-offline", "https://ok.example/v1"))
        assert created and list(hub_server.files(QUEUE)) == [".gitattributes"]
        hub_server.down = False
        assert hub_sync.pull({}).ok
        pushed = [c[1] for c in hub_server.commit_log]
        assert pushed == ["Queue: requests kept while the queue repo was unreachable"]
        assert json.loads(hub_server.files(QUEUE)["manifest.json"])["tables"]["submissions"]["rows"] == 1
