"""A store another process holds: reads use the serving app's snapshot (never the write lock), writes wait saying
so and end in one clear line; no command prints a traceback."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from store import db

REPO = Path(__file__).resolve().parents[2]
HOLD = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1])
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def _holding(path: Path, seconds: float = 60) -> subprocess.Popen:
    """A process that keeps the store open read-write (as the app does)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


@pytest.fixture()
def store(tmp_path) -> Path:
    path = tmp_path / "t.duckdb"
    con = db.connect(path)
    con.execute("INSERT INTO models (model_id, origin) VALUES ('m', 'uploaded')")
    con.close()
    return path


def _cli(path: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "tanaw_cli", *args, "--db", str(path)], capture_output=True,
                          text=True, cwd=REPO, timeout=120)
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    return done


def test_a_read_of_a_held_store_reads_its_snapshot(store):
    con = db.connect(store)
    snap = db.write_snapshot(con, store)
    con.close()
    assert snap == db.snapshot_path(store) and snap.is_file()
    proc = _holding(store)
    try:
        con, note = db.reader(store)
        assert con.execute("SELECT model_id FROM models").fetchall() == [("m",)]
        assert note.startswith(f"{store} is held by the serving app; read its snapshot of ")
        con.close()
        done = _cli(store, "campaign", "status")
        assert done.returncode == 0 and "read its snapshot of" in done.stderr
    finally:
        proc.kill()
        proc.wait()
    con, note = db.reader(store)  # free again: the file itself
    assert note is None
    con.close()


def test_a_read_without_a_snapshot_waits_then_says_why(store):
    proc = _holding(store)
    try:
        said = []
        start = time.monotonic()
        with pytest.raises(db.StoreBusy, match="held by another process and has no snapshot"):
            db.reader(store, wait=6, say=said.append)
        assert time.monotonic() - start >= 6
        assert said and said[0].startswith(f"waiting for {store}: another process holds it")
        done = _cli(store, "leaderboard", "--wait", "1")
        last = done.stderr.splitlines()[-1]
        assert done.returncode == 3 and last.startswith("error: ") and "no snapshot" in last
    finally:
        proc.kill()
        proc.wait()


def test_a_write_to_a_held_store_waits_with_progress_then_says_why(store):
    proc = _holding(store)
    try:
        done = _cli(store, "campaign", "finish", "--id", "x", "--wait", "6")
    finally:
        proc.kill()
        proc.wait()
    assert done.returncode == 2
    assert "waiting for the store" in done.stderr and "another process has it open" in done.stderr
    assert "is open in another process (is the app running on it?)" in done.stderr.splitlines()[-1]
