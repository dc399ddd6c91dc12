"""One round of the serving app's inbox watcher (services.serving), in process: queued uploads and requests are
applied and answered, a refused or unknown request is answered with its reason, and the snapshot is refreshed
before any answer, so a read right after sees the change."""
from __future__ import annotations

import json
from pathlib import Path

import duckdb

from services.serving import Watcher
from services.upload import queue_upload
from store import db, inbox

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo"


def test_a_round_applies_answers_and_refreshes_the_snapshot(tmp_path, monkeypatch):
    monkeypatch.setenv("TANAW_DATA_DIR", str(DEMO))
    path = tmp_path / "t.duckdb"
    db.connect(path).close()
    rows = [r for r in map(json.loads, (DEMO / "gemma-3-270m.results.jsonl").read_text().splitlines())
            if (r["task"], r["lang"]) == ("sentiment", "id")][:12]
    answers = tmp_path / "a.jsonl"
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    queued = queue_upload(path, answers, fmt="auto", model={"model_id": "queued"})
    unknown = inbox.drop_request(path, "drop-everything", {}, "cli:tester")
    refused = inbox.drop_request(path, "campaign-finish", {"id": "nope"}, "cli:tester")
    watcher = Watcher(path.resolve())
    assert watcher.round() is True
    assert inbox.serving(path)
    assert (inbox.inbox_dir(path) / f"{unknown}{inbox.REPLY_SUFFIX}").stat().st_mode & 0o777 == 0o600  # links: private
    assert inbox.wait_reply(path, unknown, 0) == {"ok": False, "error": "unknown request 'drop-everything'"}
    assert inbox.wait_reply(path, refused, 0) == {"ok": False, "error": "campaign_id: no campaign 'nope'"}
    got = inbox.wait_reply(path, queued.stem, 0)
    assert got["ok"] and got["message"] == "imported 12 predictions and 0 self-reported scores for queued"
    assert inbox.wait_reply(path, queued.stem, 0) is None  # an answer is read once
    assert not inbox.pending(path) and not inbox.requests(path)
    snap = duckdb.connect(str(db.snapshot_path(path)), read_only=True)
    try:
        assert snap.execute("SELECT count(*) FROM predictions").fetchone() == (12,)
    finally:
        snap.close()
    assert watcher.round() is False  # nothing queued: nothing answered
