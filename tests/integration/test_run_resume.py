"""`python -m evaluator run` killed with SIGKILL halfway, then restarted: each item stored once, at most C in flight
plus one group of answers (`evaluator.run.group_size`) asked twice."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb

from evaluator.run import group_size
from tests.helpers.standin_server import Faults, StandinServer

REPO = Path(__file__).resolve().parents[2]
C = 4
LOST_AT_MOST = C + group_size(C)
"""The runner's stated bound: C requests in flight plus one group of answers handed to the writer (20 here)."""


def _cmd(url: str, db: Path) -> list[str]:
    return [sys.executable, "-m", "evaluator", "run", "--model", "standin-resume", "--base-url", url,
            "--tasks", "sentiment", "--langs", "id,vi,th", "--limit", "20", "--prompt-lang", "en",
            "-c", str(C), "--db", str(db), "--no-progress"]


def _stored(db: Path) -> tuple[int, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT count(*), count(DISTINCT (run_id, item_id, ord)) FROM predictions").fetchone()
    finally:
        con.close()


def test_sigkill_halfway_then_resume_stores_everything_once(tmp_path):
    db = tmp_path / "resume.duckdb"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with StandinServer(latency=0.25) as server:
        proc = subprocess.Popen(_cmd(server.base_url, db), cwd=REPO, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while server.statuses[200] < 30 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, proc.stdout.read().decode()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        asked_before = dict(server.counts)
        stored_before, distinct_before = _stored(db)
        assert stored_before == distinct_before and 0 < stored_before < 60
        # asked but not stored = in flight or uncommitted at the kill: never more than C + one group
        assert len(asked_before) - stored_before <= LOST_AT_MOST

        done = subprocess.run(_cmd(server.base_url, db), cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"{stored_before} already stored" in done.stdout

    stored, distinct = _stored(db)
    assert stored == distinct == 60
    assert len(server.counts) == 60  # every prompt asked
    asked_twice = [p for p, n in server.counts.items() if n > 1]
    assert len(asked_twice) == len(asked_before) - stored_before <= LOST_AT_MOST  # re-asked: exactly the lost ones
    assert all(server.counts[p] == 2 for p in asked_twice)
    assert set(asked_twice) <= set(asked_before)


def test_bursts_of_429_and_500_are_retried_and_the_run_completes(tmp_path):
    db = tmp_path / "bursts.duckdb"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with StandinServer(faults=Faults(burst_429=6, burst_500=6, p_500=0.05, seed=3)) as server:
        done = subprocess.run([*_cmd(server.base_url, db), "--max-retries", "10"], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert server.statuses[429] == 6 and server.statuses[500] >= 6 and server.statuses[200] == 60
    assert _stored(db) == (60, 60)
    assert "60 answers stored, 0 already stored, 0 failed" in done.stdout
