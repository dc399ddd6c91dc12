"""Hub sync through huggingface_hub against a local stand-in (HF_ENDPOINT): pull, push, PR fallback, outages."""
from __future__ import annotations

import json

import pytest

from store import db, hub
from store.parquet import checksum, tables
from store.schema import PUBLIC_TABLES, row_counts
from tests.helpers.hub_standin import HubStandin
from tests.helpers.store_fixture import filled_store

REPO = "tanaw/results"


@pytest.fixture()
def standin():
    with HubStandin() as s:
        s.create_repo(REPO)
        yield s


def _config(standin, tmp_path, token="write-token") -> hub.HubConfig:
    return hub.HubConfig(repo_id=REPO, token=token, endpoint=standin.url, work_dir=tmp_path / "hub")


def _sums(con):
    return {t: checksum(con, t) for t in tables(con)}


def test_push_then_pull_into_a_fresh_store(standin, tmp_path):
    src = filled_store()
    status = hub.push(src, "results for 3 models", _config(standin, tmp_path))
    assert status.ok and status.pr_url is None, status.message
    files = standin.files(REPO)
    assert "manifest.json" in files and "runs/model_id=meta%2Fllama%203/data_0.parquet" in files
    assert json.loads(files["manifest.json"])["tables"]["predictions"]["rows"] == 21

    dst = db.connect(tmp_path / "space.duckdb")
    pulled = hub.pull(dst, _config(standin, tmp_path / "other"))
    assert pulled.ok and pulled.revision == standin.repos[REPO].refs["main"]
    public = sum(n for t, n in row_counts(src).items() if t in PUBLIC_TABLES)
    assert pulled.message.startswith(f"Pulled {public:,} rows from {REPO}@")
    assert _sums(dst) == _sums(src)
    again = hub.pull(dst, _config(standin, tmp_path / "other"))  # same head: no download, no re-import
    assert again.ok and "current" in again.message


def test_push_sends_only_changed_partitions_and_deletes_stale(standin, tmp_path):
    con = filled_store()
    hub.push(con, "first", _config(standin, tmp_path))
    con.execute("DELETE FROM scores WHERE run_id = 'run-2-qa'")
    con.execute("UPDATE aggregates SET value = 99 WHERE model_id = 'org/m=2' AND task = 'qa'")
    status = hub.push(con, "second", _config(standin, tmp_path))
    assert status.ok
    ref, summary, touched = standin.commit_log[-1]
    assert (ref, summary) == ("main", "second")
    assert sorted(touched) == ["aggregates/model_id=org%2Fm%3D2/data_0.parquet", "manifest.json",
                               "scores/model_id=sea-lion/task=qa/data_0.parquet"]
    assert "scores/model_id=sea-lion/task=qa/data_0.parquet" not in standin.files(REPO)  # deleted on the Hub
    dst = db.connect(":memory:")
    assert hub.pull(dst, _config(standin, tmp_path / "b")).ok
    assert _sums(dst) == _sums(con)


def test_read_only_token_opens_a_pull_request(standin, tmp_path):
    main_before = standin.repos[REPO].refs["main"]
    status = hub.push(filled_store(), "upload from a reader", _config(standin, tmp_path, token="read-token"))
    assert status.ok and status.pr_url == f"{standin.url}/datasets/{REPO}/discussions/1", status.message
    assert standin.repos[REPO].refs["main"] == main_before
    assert "manifest.json" in standin.files(REPO, "refs/pr/1")
    assert [c[0] for c in standin.commit_log] == ["refs/pr/1"]


def test_pull_failure_keeps_last_good_data(standin, tmp_path):
    hub.push(filled_store(), "seed", _config(standin, tmp_path))
    dst = db.connect(":memory:")
    assert hub.pull(dst, _config(standin, tmp_path / "a")).ok
    good = _sums(dst)

    standin.down = True
    status = hub.pull(dst, _config(standin, tmp_path / "b"))
    assert not status.ok and "serving the last good data" in status.message and "503" in status.message
    assert _sums(dst) == good
    assert hub.last_status(dst) == status

    standin.down = False
    standin.stop()  # connection refused
    status = hub.pull(dst, _config(standin, tmp_path / "c"))
    assert not status.ok and "Connect" in status.message
    assert _sums(dst) == good


def test_corrupt_export_on_the_hub_is_rejected(standin, tmp_path):
    hub.push(filled_store(), "seed", _config(standin, tmp_path))
    repo = standin.repos[REPO]
    files = dict(standin.files(REPO))
    manifest = json.loads(files["manifest.json"])
    manifest["tables"]["runs"]["rows"] = 5
    files["manifest.json"] = json.dumps(manifest).encode()
    repo.commit(files, "bad manual edit", "main")
    dst = db.connect(":memory:")
    dst.execute("INSERT INTO models (model_id, origin) VALUES ('local', 'demo')")
    status = hub.pull(dst, _config(standin, tmp_path / "x"))
    assert not status.ok and "'runs' has 6 rows" in status.message
    assert dst.execute("SELECT model_id FROM models").fetchall() == [("local",)]


def test_empty_repo_and_disabled(standin, tmp_path):
    con = db.connect(":memory:")
    status = hub.pull(con, _config(standin, tmp_path))
    assert status.ok and "holds no results yet" in status.message
    off = hub.pull(con, hub.HubConfig(repo_id=None))
    assert off.action == "disabled" and off.ok
    assert hub.HubConfig.from_env({"TANAW_RESULTS_REPO": "a/b", "HF_TOKEN": "t", "HF_ENDPOINT": "http://x",
                                   "TANAW_HOME": str(tmp_path)}) == hub.HubConfig(
        "a/b", "t", "http://x", "main", tmp_path / "hub")


def test_two_writers_merge_instead_of_overwriting(standin, tmp_path, monkeypatch):
    app, worker = db.connect(":memory:"), db.connect(":memory:")
    hub.push(filled_store(), "seed", _config(standin, tmp_path / "seed"))
    assert hub.pull(app, _config(standin, tmp_path / "app")).ok
    assert hub.pull(worker, _config(standin, tmp_path / "w")).ok
    app.execute("INSERT INTO submissions (request_id, model_id, backend, status) VALUES ('r1', 'new', 'openai', "
                "'PENDING')")
    app.execute("INSERT INTO models (model_id, origin) VALUES ('requested', 'evaluated')")
    assert hub.push(app, "request r1", _config(standin, tmp_path / "app")).ok
    worker.execute("INSERT INTO models (model_id, origin) VALUES ('from-worker', 'evaluated')")

    real_export = hub.parquet.export_store
    raced = []

    def export_then_race(con, dest, **kw):  # another writer commits while the worker builds its export
        if not raced:
            raced.append(1)
            app.execute("INSERT INTO models (model_id, origin) VALUES ('from-app', 'uploaded')")
            assert hub.push(app, "upload", _config(standin, tmp_path / "app")).ok
        return real_export(con, dest, **kw)

    monkeypatch.setattr(hub.parquet, "export_store", export_then_race)
    status = hub.push(worker, "results", _config(standin, tmp_path / "w"))
    assert status.ok, status.message
    assert [c[1] for c in standin.commit_log[-3:]] == ["request r1", "upload", "results"]
    final = db.connect(":memory:")
    assert hub.pull(final, _config(standin, tmp_path / "f")).ok
    models = {r[0] for r in final.execute("SELECT model_id FROM models").fetchall()}
    assert {"from-app", "from-worker", "requested", "sea-lion"} <= models
    assert final.execute("SELECT count(*) FROM submissions").fetchone()[0] == 0  # the queue stays in its store
    assert app.execute("SELECT status FROM submissions").fetchall() == [("PENDING",)]


def test_partial_pull_for_a_large_store(standin, tmp_path):
    src = filled_store()
    hub.push(src, "full", _config(standin, tmp_path / "full"))
    n_requests = len(standin.requests)
    con = db.connect(":memory:")
    small = hub.HubConfig.from_env({"TANAW_RESULTS_REPO": REPO, "HF_ENDPOINT": standin.url,
                                    "TANAW_HOME": str(tmp_path / "p"), "TANAW_PULL_TABLES": "models,aggregates"})
    assert small.tables == ("models", "aggregates")
    assert hub.pull(con, small).ok
    counts = row_counts(con)
    assert counts["models"] == 3 and counts["aggregates"] == 6 and counts["predictions"] == 0
    fetched = [p for m, p in standin.requests[n_requests:] if m == "GET" and "/resolve/" in p]
    assert fetched and all("/models/" in p or "/aggregates/" in p or p.endswith("manifest.json") for p in fetched)
    refused = hub.push(con, "would drop predictions", small)
    assert not refused.ok and "TANAW_PULL_TABLES" in refused.message
    assert json.loads(standin.files(REPO)["manifest.json"])["tables"]["predictions"]["rows"] == 21


def test_unpushed_changes_survive_a_failed_pull_too(standin, tmp_path):
    con = db.connect(":memory:")
    hub.push(filled_store(), "seed", _config(standin, tmp_path / "seed"))
    assert hub.pull(con, _config(standin, tmp_path / "a")).ok
    con.execute("INSERT INTO models (model_id, origin) VALUES ('offline-upload', 'uploaded')")
    standin.down = True
    assert not hub.push(con, "upload", _config(standin, tmp_path / "a")).ok
    assert not hub.pull(con, _config(standin, tmp_path / "a")).ok
    standin.down = False
    hub.push(filled_store(), "someone else", _config(standin, tmp_path / "other"))
    assert hub.pull(con, _config(standin, tmp_path / "a")).message.startswith("Merged")
    assert hub.push(con, "retry", _config(standin, tmp_path / "a")).ok
    hub.push(filled_store(), "again", _config(standin, tmp_path / "other2"))
    assert hub.pull(con, _config(standin, tmp_path / "a")).message.startswith("Pulled")  # clean again: replace
    assert con.execute("SELECT count(*) FROM models WHERE model_id = 'offline-upload'").fetchone()[0] == 1
