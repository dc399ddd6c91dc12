"""Leakage probes from the queue: a request of mode "leakage" goes through the same checks as a run request (the
fields, the endpoint policy, the key allow-list, the model's name) and the worker has the child probe the model
(`services.leakage_probes`), storing the probes' rows for every prompt language's cell; FINISHED with the number of
probe verdicts stored."""
from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from cli.main import main
from evaluator.leakage import EVERY_PROMPT
from services import worker
from services.leakage import flagged_table
from store import db, queue
from store.leakage import read_signals
from tests.helpers.standin_server import StandinServer
from tests.integration.test_leakage_cli import _knows_the_items
from tests.integration.test_secrets import SECRETS, Recorder

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def env(monkeypatch):
    monkeypatch.delenv("TANAW_RESULTS_REPO", raising=False)
    monkeypatch.delenv("TANAW_QUEUE_REPO", raising=False)
    monkeypatch.setenv("TANAW_ALLOW_PRIVATE_ENDPOINTS", "1")  # the stand-ins listen on 127.0.0.1
    for k, v in SECRETS.items():
        monkeypatch.setenv(k, v)
    return monkeypatch


def _work(path) -> list[tuple]:
    parser = argparse.ArgumentParser()
    worker.add(parser.add_subparsers())
    assert worker.cmd_worker(parser.parse_args(["worker", "--db", str(path), "--exit-when-empty", "--name", "w"])) == 0
    con = db.connect(path)
    try:
        return con.execute("SELECT request_id, status, error, n_results FROM submissions ORDER BY created_at, "
                           "request_id").fetchall()
    finally:
        con.close()


def test_a_queued_leakage_request_is_probed_and_flags_the_cells(tmp_path, env, capsys):
    path = tmp_path / "q.duckdb"
    with StandinServer(reply=_knows_the_items("abssum", "id")) as server:
        assert main(["queue", "add", "--model", "probe-q", "--base-url", server.base_url, "--tasks", "abssum",
                     "--langs", "id", "--mode", "leakage", "--db", str(path)]) == 0
        rows = _work(path)
    assert [(r[1], r[2], r[3]) for r in rows] == [("FINISHED", None, 3)], rows  # guided, TS-Guessing, Min-K%++
    con = db.connect(path)
    try:
        signals = {r["signal"]: r for r in read_signals(con, model_id="probe-q")}
        board = flagged_table(con, "bhasa", "native")
        answers = con.execute("SELECT count(*) FROM runs WHERE model_id = 'probe-q'").fetchone()[0]
        sub = queue.listing(con)[0]
    finally:
        con.close()
    assert sub.mode == "leakage" and answers == 0  # probes, not an evaluation run
    assert {s: (r["prompt_lang"], r["flagged"]) for s, r in signals.items()} == {
        "guided_completion": (EVERY_PROMPT, True), "ts_guessing": (EVERY_PROMPT, False),
        "min_k_pp": (EVERY_PROMPT, False)}
    assert signals["guided_completion"]["n_items"] == 24 and len(signals["guided_completion"]["item_ids"]) == 24
    assert board[["model", "task", "lang", "signal", "items flagged"]].values.tolist() == [
        ["probe-q", "abssum", "id", "guided_completion", 24]]


def test_a_leakage_request_gets_the_run_requests_key_checks(tmp_path, env):
    """A raw request row (as from the queue repo, the page's checks bypassed) naming HF_TOKEN or an unlisted key is
    refused before anything is sent; a keyless one reaches its endpoint with no secret."""
    endpoint = Recorder()
    path = tmp_path / "s.duckdb"
    con = db.connect(path)
    for i, key in enumerate(("HF_TOKEN", "OPENAI_API_KEY", None)):
        con.execute("INSERT INTO submissions (request_id, model_id, backend, base_url, api_key_env, tasks, langs, "
                    "item_limit, mode, created_at) VALUES (?, ?, 'openai', ?, ?, 'sentiment', 'id', 6, 'leakage', "
                    "now() + to_seconds(?))", [f"r{i}", f"m{i}", endpoint.url, key, i])
    con.close()
    try:
        rows = _work(path)
    finally:
        endpoint.close()
    assert [r[1] for r in rows] == ["FAILED", "FAILED", "FINISHED"], rows
    assert all(r[2].startswith("refused: api_key_env: ") for r in rows[:2])
    assert len(endpoint.headers) >= 12 and endpoint.leaked() == []  # the guided and general prompts, the echo
    assert {h.get("authorization") for h in endpoint.headers} == {"Bearer EMPTY"}


def test_an_unknown_mode_is_refused_by_the_worker_and_sends_nothing(tmp_path, env):
    endpoint = Recorder()
    path = tmp_path / "s.duckdb"
    con = db.connect(path)
    con.execute("INSERT INTO submissions (request_id, model_id, backend, base_url, tasks, langs, mode) "
                "VALUES ('r0', 'm0', 'openai', ?, 'sentiment', 'id', 'shell')", [endpoint.url])
    con.close()
    try:
        rows = _work(path)
    finally:
        endpoint.close()
    assert rows == [("r0", "FAILED", "refused: mode: must be empty (an evaluation run) or one of ('leakage',), "
                                     "not 'shell'", None)]
    assert endpoint.headers == []


def test_queue_add_refuses_an_unknown_mode_and_a_private_endpoint(tmp_path, monkeypatch, capsys):
    path = tmp_path / "q.duckdb"
    with pytest.raises(SystemExit) as exc:
        main(["queue", "add", "--model", "m", "--base-url", "https://llm.example.org/v1", "--mode", "shell",
              "--db", str(path)])
    assert exc.value.code == 2 and "invalid choice: 'shell'" in capsys.readouterr().err
    monkeypatch.delenv("TANAW_ALLOW_PRIVATE_ENDPOINTS", raising=False)
    assert main(["queue", "add", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--mode", "leakage",
                 "--db", str(path)]) == 2
    assert capsys.readouterr().err.startswith("error: not queued: ")
    con = db.connect(path)
    try:
        assert con.execute("SELECT count(*) FROM submissions").fetchone()[0] == 0
    finally:
        con.close()


def test_the_queue_page_queues_a_leakage_request_with_the_same_checks(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from tests.helpers.fixtures_store import pages_on

    for k in ("SPACE_ID", "TANAW_SUBMIT_TOKEN", "TANAW_ALLOW_PRIVATE_ENDPOINTS"):
        monkeypatch.delenv(k, raising=False)
    path = tmp_path / "q.duckdb"
    db.connect(path).close()
    with pages_on(path):
        at = AppTest.from_file(str(REPO / "pages" / "queue.py"), default_timeout=60).run()
        for url in ("http://169.254.169.254/v1", "http://8.8.8.8/v1"):
            inputs = {t.label: t for t in at.text_input}
            inputs["Model name (as shown on the leaderboard)"].set_value("probe-page")
            inputs["Endpoint base URL"].set_value(url)
            next(r for r in at.radio if r.label == "What to run").set_value("leakage")
            next(b for b in at.button if b.label == "Queue the request").click()
            at.run()
            assert not at.exception
        errors = [e.value.replace("\\", "").replace("\u2060", "") for e in at.error]
        shown = at.dataframe[-1].value if at.dataframe else None
    assert errors == [] and any("Queued as request" in s.value for s in at.success)
    con = db.connect(path)
    try:
        subs = queue.listing(con)
    finally:
        con.close()
    assert [(s.base_url, s.mode) for s in subs] == [("http://8.8.8.8/v1", "leakage")]  # the metadata IP refused
    assert shown is not None and list(shown["mode"]) == ["leakage"]
