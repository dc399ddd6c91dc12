"""Concurrent uploads are serialised through one writer and land exactly once; readers never see partial state;
a SIGKILL in the middle of an ingest leaves a store that opens and holds all or none of that file."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from services.upload import ingest_upload
from evaluator.formats.mapping import ItemIndex
from evaluator.formats.read import read_upload
from store.db import connect
from tests.helpers import upload_files as U

pytestmark = pytest.mark.needs_samples
REPO = Path(__file__).resolve().parents[2]
N_ROWS = 20


def _file(k: int) -> bytes:
    """A different SEA-HELM file per k (different wrong answers, hence different bytes)."""
    return U.jsonl(U.seahelm_sentiment_rows(N_ROWS, wrong=(k % N_ROWS,)))


def test_twenty_concurrent_uploads_land_exactly_once(tmp_path):
    db = tmp_path / "c.duckdb"
    app = connect(db)  # the app process's long-lived connection
    index = ItemIndex(U.DATA)
    uploads = [read_upload(_file(k), f"inferences/id/sentiment/m{k}_sentiment_id.jsonl", index=index)
               for k in range(20)]
    stop = threading.Event()
    partial: list[tuple] = []

    def reader() -> None:  # a page reading while uploads land: predictions always come in whole files
        cur = app.cursor()
        while not stop.is_set():
            n_pred, n_up = cur.execute("SELECT (SELECT count(*) FROM predictions), (SELECT count(*) FROM uploads)"
                                       ).fetchone()
            if n_pred != n_up * N_ROWS:
                partial.append((n_pred, n_up))
            time.sleep(0.02)

    watcher = threading.Thread(target=reader)
    watcher.start()
    with ThreadPoolExecutor(20) as pool:
        outs = list(pool.map(lambda k: ingest_upload(db, uploads[k], model={"model_id": f"model-{k:02d}"},
                                                     actor=f"t{k}"), range(20)))
    # and the same twenty again: all no-ops
    with ThreadPoolExecutor(20) as pool:
        again = list(pool.map(lambda k: ingest_upload(db, uploads[k], model={"model_id": f"model-{k:02d}"}),
                              range(20)))
    stop.set()
    watcher.join()
    assert [o.status for o in outs] == ["imported"] * 20, [o.message for o in outs]
    assert [o.status for o in again] == ["noop"] * 20
    cur = app.cursor()
    assert cur.execute("SELECT count(*), count(DISTINCT model_id) FROM runs").fetchone() == (20, 20)
    assert cur.execute("SELECT count(*) FROM predictions").fetchone()[0] == 20 * N_ROWS
    assert cur.execute("SELECT count(*) FROM uploads").fetchone()[0] == 20
    # model-k answered item k wrong: accuracy 19/20 for every model
    vals = cur.execute("SELECT DISTINCT round(value, 6) FROM aggregates WHERE metric = 'accuracy'").fetchall()
    assert vals == [(round(100 * 19 / 20, 6),)]
    assert partial == []
    app.close()


def _cli(db: Path, path: Path, model: str) -> subprocess.Popen:
    env = {**os.environ, "TANAW_DATA_DIR": str(U.DATA)}
    return subprocess.Popen([sys.executable, "-m", "evaluator", "ingest", str(path), "--model", model, "--db", str(db)],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_concurrent_cli_processes_queue_on_the_file_lock(tmp_path):
    db = tmp_path / "p.duckdb"
    procs = []
    for k in range(2):
        f = tmp_path / f"m{k}_sentiment_id.jsonl"
        f.write_bytes(_file(k))
        procs.append(_cli(db, f, f"proc-{k}"))
    results = [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in procs]
    for code, out, err in results:
        assert code == 0, err
        assert "locked" not in (out + err).lower()
    con = connect(db, read_only=True)
    assert con.execute("SELECT count(*) FROM uploads").fetchone()[0] == 2
    assert con.execute("SELECT count(*) FROM predictions").fetchone()[0] == 2 * N_ROWS
    con.close()


_CHILD = """
import sys
from services.upload import ingest_upload
from evaluator.formats.read import read_upload
up = read_upload(sys.argv[2])


def progress(i, n):
    if i == n:  # every prediction scored: the rows are being written inside the open transaction from now on
        print("WRITING", flush=True)


ingest_upload(sys.argv[1], up, model={"model_id": "victim"}, progress=progress)
print("DONE", flush=True)
"""


@pytest.mark.parametrize("delay", [0.1, 2.0])
def test_sigkill_mid_ingest_leaves_all_or_none(tmp_path, delay):
    db = tmp_path / "k.duckdb"
    base = tmp_path / "m_sentiment_id.jsonl"
    base.write_bytes(_file(0))
    assert ingest_upload(db, read_upload(base), model={"model_id": "survivor"}).status == "imported"
    env = {**os.environ, "TANAW_DATA_DIR": str(U.DATA)}
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(db), str(U.PACUTE_SAMPLE)], cwd=REPO, env=env,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "WRITING"
    time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    con = connect(db)  # opens (and replays its WAL) after the kill
    n = con.execute("SELECT count(*) FROM predictions p JOIN runs r USING (run_id) WHERE r.model_id = 'victim'"
                    ).fetchone()[0]
    ups = con.execute("SELECT count(*) FROM uploads WHERE model_id = 'victim'").fetchone()[0]
    assert (n, ups) in ((0, 0), (5940, 1))
    assert con.execute("SELECT count(*) FROM predictions p JOIN runs r USING (run_id) WHERE r.model_id = 'survivor'"
                       ).fetchone()[0] == N_ROWS
    aggs = con.execute("SELECT count(*) FROM aggregates WHERE model_id = 'victim'").fetchone()[0]
    assert (aggs > 0) == (n > 0)
    con.close()


_HOLDER = """
import sys, time
from store.db import connect
con = connect(sys.argv[1])
print("HELD", flush=True)
time.sleep(120)
"""


def test_cli_queues_in_the_inbox_while_another_process_holds_the_store(tmp_path):
    from services.upload import drain_inbox
    from store import inbox

    db = tmp_path / "i.duckdb"
    f = tmp_path / "q_sentiment_id.jsonl"
    f.write_bytes(_file(3))
    env = {**os.environ, "TANAW_DATA_DIR": str(U.DATA)}
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(db)], cwd=REPO, env=env, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "HELD"
        cli = subprocess.run([sys.executable, "-m", "evaluator", "ingest", str(f), "--model", "queued", "--db",
                              str(db), "--wait", "1", "--inbox"], cwd=REPO, env=env, capture_output=True, text=True,
                             timeout=120)
        assert cli.returncode == 0, cli.stderr
        assert "queued" in cli.stdout and "locked" not in (cli.stdout + cli.stderr).lower()
        assert len(inbox.pending(db)) == 1
    finally:
        holder.kill()
        holder.wait()
    outs = drain_inbox(db)  # what the app's upload page does
    assert [o.status for o in outs] == ["imported"] and outs[0].model_id == "queued"
    assert inbox.pending(db) == []
    con = connect(db, read_only=True)
    assert con.execute("SELECT count(*) FROM predictions").fetchone()[0] == N_ROWS
    assert con.execute("SELECT actor FROM audit WHERE action = 'upload'").fetchone()[0].endswith("(inbox)")
    con.close()
