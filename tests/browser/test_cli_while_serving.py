"""Every command works while the app serves the store: the app (a `streamlit run app.py` process with a visitor,
so it holds the DuckDB file as it does in use) and the CLI on the same store. Reads (`leaderboard`, `campaign
status`) read the app's snapshot without waiting; writes (`campaign create`, `finish`, `ingest --inbox`) go through
its inbox, are applied by the running app within seconds (no restart) and answered; nothing prints a traceback."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from store import inbox
from tests.helpers.browser import chromium_available, chromium_page, serve_app
from tests.helpers.demo_pages import demo_store_db  # noqa: F401  (fixture demo_db)

REPO = Path(__file__).resolve().parents[2]
ITEMS = {"TANAW_DATA_DIR": str(REPO / "data" / "demo")}
"""The app and the commands score against the demo items (the store is the demo store)."""
DEMO_MODEL = "Gemma 3 270M base · Q4_K_M (demo run)"


def _cli(db: Path, *args: str, timeout: float = 180) -> tuple[int, str, str]:
    done = subprocess.run([sys.executable, "-m", "tanaw_cli", *args, "--db", str(db)], capture_output=True, text=True,
                          cwd=REPO, timeout=timeout, env={**os.environ, **ITEMS})
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    return done.returncode, done.stdout, done.stderr


def _answers(path: Path, cell: tuple[str, str], n: int) -> Path:
    """The demo model's first `n` answers on one demo cell, as a native file (they match the demo items)."""
    rows = [r for r in map(json.loads, (REPO / "data" / "demo" / "gemma-3-270m.results.jsonl").read_text().splitlines())
            if (r["task"], r["lang"]) == cell][:n]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.skipif(not chromium_available(), reason="needs headless Chromium (/usr/bin/chromium) and playwright")
def test_commands_succeed_while_the_app_serves_the_store(demo_db, tmp_path):
    db = tmp_path / "tanaw.duckdb"
    shutil.copy(demo_db, db)
    with serve_app(db, env=ITEMS, log_path=tmp_path / "app.log") as url:
        with chromium_page() as page:  # the first visitor: the app opens the store and starts its inbox watcher
            page.goto(url)
            page.wait_for_function("() => document.querySelector('h1')", timeout=180000)
        deadline = time.monotonic() + 60
        while not inbox.serving(db) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert inbox.serving(db)

        code, out, err = _cli(db, "leaderboard", "--json")  # a read: the snapshot, at once
        assert code == 0 and "held by the serving app; read its snapshot of" in err
        assert DEMO_MODEL in {r["model"] for r in json.loads(out)}

        systems = f"{DEMO_MODEL}:en,{DEMO_MODEL}:native"
        code, out, err = _cli(db, "campaign", "create", "--id", "served-1", "--task", "translation-en-xx", "--lang",
                              "th", "--systems", systems, "--annotators", "ann,bo", "--items", "3", "--k", "2")
        assert code == 0, err
        assert "queued the request in its inbox" in err and "campaign served-1 created by the app" in out
        links = [line.split("\t") for line in out.splitlines() if "\t" in line]
        assert [name for name, _ in links] == ["ann", "bo"] and all("?token=" in link for _, link in links)

        code, out, err = _cli(db, "campaign", "status", "--id", "served-1")
        assert code == 0 and "read its snapshot" in err
        # 3 items, each judged by k = 2 of the 2 annotators, plus one quality-check repeat each: 4 per annotator
        assert [line.split()[3:] for line in out.splitlines()[2:]] == [["open", "ann", "0/4"], ["open", "bo", "0/4"]]

        code, out, err = _cli(db, "campaign", "finish", "--id", "served-1")
        assert code == 0 and "campaign served-1 finished by the app" in out, err
        code, out, _ = _cli(db, "campaign", "status", "--id", "served-1")
        assert {line.split()[3] for line in out.splitlines()[2:]} == {"finished"}

        queued = _answers(tmp_path / "queued.jsonl", ("sentiment", "id"), 12)
        code, out, err = _cli(db, "ingest", str(queued), "--model", "queued-model", "--inbox")
        assert code == 0, err
        assert "queued" in err and "imported 12 predictions" in out and "(the app's answer)" in out
        code, out, _ = _cli(db, "leaderboard", "--json")  # the snapshot the app refreshed before answering
        assert any(r["model"] == "queued-model" and r["n"] == 12 for r in json.loads(out))
    log = (tmp_path / "app.log").read_text()
    assert "Traceback" not in log, log[-3000:]
    assert not inbox.pending(db) and not inbox.requests(db)
