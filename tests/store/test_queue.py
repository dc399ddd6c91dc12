"""Submission queue: validation, de-duplication, FIFO claims, status transitions and the queries the page uses."""
from __future__ import annotations

import pytest

from store import db, queue
from store.queries import QUERIES
from store.queue import QueueError, Submission


def _sub(**kw) -> Submission:
    base = dict(request_id="", model_id="sea-lion-v4", backend="openai", base_url="http://gpu-1:8000/v1",
                tasks="sentiment", langs="id", prompt_langs="en,native", item_limit=5)
    return Submission(**{**base, **kw})


@pytest.mark.parametrize("kw, field", [
    (dict(model_id=" "), "model_id"),
    (dict(backend="ollama"), "backend"),
    (dict(base_url="gpu-1:8000"), "base_url"),
    (dict(base_url="file:///etc/passwd"), "base_url"),
    (dict(backend="hub", base_url=None, hub_model="just-a-name"), "hub_model"),
    (dict(api_key_env="sk-live-1234"), "api_key_env"),
    (dict(tasks="sentiment; DROP TABLE runs"), "tasks"),
    (dict(item_limit=0), "item_limit"),
    (dict(mode="probe; DROP TABLE runs"), "mode"),
])
def test_bad_requests_name_the_field(kw, field):
    con = db.connect(":memory:")
    with pytest.raises(QueueError, match=f"^{field}:"):
        queue.submit(con, _sub(**kw))
    assert con.execute("SELECT count(*) FROM submissions").fetchone()[0] == 0


def test_duplicate_active_request_is_not_queued_twice():
    con = db.connect(":memory:")
    first, created = queue.submit(con, _sub())
    again, created_again = queue.submit(con, _sub(submitter="someone else"))
    assert created and not created_again and again.request_id == first.request_id
    other, created_other = queue.submit(con, _sub(langs="th"))
    assert created_other and other.request_id != first.request_id
    assert [s.status for s in queue.listing(con)] == ["PENDING", "PENDING"]
    probe, created_probe = queue.submit(con, _sub(mode="leakage"))  # the probes of the same model: another request
    assert created_probe and probe.mode == "leakage" and probe.request_id != first.request_id
    assert queue.submit(con, _sub(mode="leakage"))[0].request_id == probe.request_id
    assert [s.mode for s in queue.listing(con)] == [None, None, "leakage"]
    assert list(QUERIES["submissions"](con)["mode"]) == ["leakage", "evaluation", "evaluation"]


def test_fifo_claims_and_transitions():
    con = db.connect(":memory:")
    a, _ = queue.submit(con, _sub(model_id="a"))
    b, _ = queue.submit(con, _sub(model_id="b", backend="hub", base_url=None, hub_model="org/b", revision="main"))
    c, _ = queue.submit(con, _sub(model_id="c"))
    got = queue.claim_next(con, "w1")
    assert (got.request_id, got.status, got.worker) == (a.request_id, "RUNNING", "w1") and got.started_at
    assert queue.claim_next(con, "w2").request_id == b.request_id
    done = queue.finish(con, a.request_id, 42)
    assert (done.status, done.n_results, done.error) == ("FINISHED", 42, None) and done.finished_at
    failed = queue.fail(con, b.request_id, "server said 404")
    assert (failed.status, failed.error) == ("FAILED", "server said 404")
    with pytest.raises(QueueError, match="not RUNNING"):
        queue.finish(con, b.request_id)
    assert queue.claim_next(con, "w1").request_id == c.request_id
    assert queue.claim_next(con, "w1") is None
    assert queue.release_stale(con, "w1") == 1
    assert queue.get(con, c.request_id).status == "PENDING"


def test_queue_queries():
    con = db.connect(":memory:")
    queue.submit(con, _sub(model_id="a"))
    queue.submit(con, _sub(model_id="b", backend="hub", base_url=None, hub_model="org/b", revision="v2",
                           tasks=None, langs=None))
    queue.claim_next(con, "w")
    counts = QUERIES["submission_counts"](con)
    assert counts.to_dict("records") == [{"status": "PENDING", "n": 1}, {"status": "RUNNING", "n": 1},
                                         {"status": "FINISHED", "n": 0}, {"status": "FAILED", "n": 0}]
    rows = QUERIES["submissions"](con)
    assert list(rows["model_id"]) == ["b", "a"]  # newest first
    assert rows.iloc[0]["served_at"] == "org/b@v2" and rows.iloc[0]["tasks"] == "all"
    assert rows.iloc[1]["served_at"] == "http://gpu-1:8000/v1"
    assert list(QUERIES["submissions"](con, status="RUNNING")["model_id"]) == ["a"]
    assert QUERIES["hub_sync_log"](con).empty
