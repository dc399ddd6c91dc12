"""`tanaw leakage` end to end: the probes' verdicts land in the store as leakage signal rows of the model's cells,
and the mode goes through the endpoint policy: no server secret reaches a user-chosen endpoint, a refused endpoint
or key gets nothing at all."""
from __future__ import annotations

import json
import re

import pytest

from cli.main import main
from evaluator.datasets import load_items
from evaluator.leakage import LeakSignal
from evaluator.leakage import probes as P
from evaluator.stats import wilson
from services.leakage import flagged_table
from store import db
from store.leakage import read_signals
from tests.helpers.standin_server import StandinServer
from tests.integration.test_secrets import SECRETS, Recorder


def _knows_the_items(task: str, lang: str):
    pieces = {c[0]: c[1] for it in load_items(task, lang) if (c := P.split_instance(P.item_text(it)))}

    def reply(prompt: str) -> str:
        first = re.search(r"First piece: (.*?)\n\nSecond piece:", prompt, re.S)
        if first is None:
            return "no idea"
        return pieces.get(first.group(1), "") if "split of the" in prompt else "lorem ipsum dolor sit amet"
    return reply


def test_leakage_command_stores_each_probes_verdict_as_a_signal(tmp_path, capsys):
    path = tmp_path / "t.duckdb"
    with StandinServer(reply=_knows_the_items("abssum", "id")) as server:
        code = main(["leakage", "--model", "probe-m", "--base-url", server.base_url, "--tasks", "abssum",
                     "--langs", "id", "--db", str(path), "--max-retries", "1"])
    out = capsys.readouterr().out
    assert code == 0, out
    con = db.connect(path)
    try:
        rows = {r["signal"]: LeakSignal.from_row(r) for r in read_signals(con, model_id="probe-m")}
        origin = con.execute("SELECT origin FROM models WHERE model_id = 'probe-m'").fetchone()
        board = flagged_table(con, "bhasa", "en")  # what the leaderboard's leakage section shows
    finally:
        con.close()
    assert board[["model", "task", "lang", "signal", "items flagged", "n items", "share %"]].values.tolist() == [
        ["probe-m", "abssum", "id", "guided_completion", 24, 24, 100.0]]
    assert board["evidence"][0].startswith("guided_completion: 24 of 24 items (100.0%, 95% CI 86.2–100.0%) p = ")
    assert origin == ("evaluated",)
    assert set(rows) == {"guided_completion", "ts_guessing", "min_k_pp"}
    g = rows["guided_completion"]
    assert (g.task, g.lang, g.prompt_lang, g.flagged, g.n_items) == ("abssum", "id", "en", True, 24)
    assert g.p_value < 0.01 and g.statistic == 1.0 and len(g.item_ids) == 24  # share of the items listed
    assert (g.ci_low, g.ci_high) == pytest.approx(wilson(1.0, 24)) and g.ci_low == pytest.approx(0.8620, abs=1e-4)
    assert "ROUGE-L 1.000 guided vs 0.000 general over 24 items" in g.detail
    assert "Wilcoxon" in g.detail and "\n" not in g.detail
    ts, mk = rows["ts_guessing"], rows["min_k_pp"]
    assert not ts.flagged and ts.p_value is None and ts.detail.startswith("not available")
    assert not mk.flagged and mk.p_value is None and mk.detail.startswith("not available")  # no alternatives
    assert "FLAGGED" in out and "3 probe verdicts stored, 1 flagged" in out


def test_a_second_probe_run_replaces_the_cells_rows(tmp_path):
    path = tmp_path / "t.duckdb"
    argv = ["leakage", "--model", "probe-m", "--tasks", "abssum", "--langs", "id", "--db", str(path),
            "--probes", "guided", "--max-retries", "1"]
    with StandinServer(reply=_knows_the_items("abssum", "id")) as server:
        assert main([*argv, "--base-url", server.base_url]) == 0
    with StandinServer(reply=lambda prompt: "lorem ipsum") as server:
        assert main([*argv, "--base-url", server.base_url]) == 0
    con = db.connect(path)
    try:
        rows = read_signals(con, model_id="probe-m")
    finally:
        con.close()
    assert [(r["signal"], r["flagged"]) for r in rows] == [("guided_completion", False)]


@pytest.fixture
def env(monkeypatch):
    monkeypatch.setenv("TANAW_ALLOW_PRIVATE_ENDPOINTS", "1")  # the recorder listens on 127.0.0.1
    for k, v in SECRETS.items():
        monkeypatch.setenv(k, v)
    return monkeypatch


def _probe(recorder: Recorder, tmp_path, *extra: str) -> int:
    return main(["leakage", "--model", "probe-m", "--base-url", recorder.url, "--tasks", "sentiment", "--langs", "id",
                 "--limit", "6", "--db", str(tmp_path / "t.duckdb"), "--public-endpoint", "--max-retries", "1",
                 *extra])


def test_no_server_secret_reaches_a_user_chosen_endpoint(tmp_path, env):
    recorder = Recorder()
    try:
        assert _probe(recorder, tmp_path) == 0
    finally:
        recorder.close()
    assert len(recorder.headers) >= 12  # the guided and general prompts were sent, and the echo request
    assert recorder.leaked() == []
    assert {h.get("authorization") for h in recorder.headers} == {"Bearer EMPTY"}


@pytest.mark.parametrize("key_env, bound", [("HF_TOKEN", ""), ("OPENAI_API_KEY", "openai:OPENAI_API_KEY"),
                                            ("UNLISTED_KEY", "")])
def test_a_refused_key_sends_nothing(tmp_path, env, capsys, key_env, bound):
    env.setenv("TANAW_ENDPOINT_KEYS", bound)
    env.setenv("UNLISTED_KEY", "sk-unlisted")
    recorder = Recorder()
    try:
        assert _probe(recorder, tmp_path, "--api-key-env", key_env) == 2
    finally:
        recorder.close()
    assert recorder.headers == []
    err = capsys.readouterr().err
    assert err.startswith("error: api_key_env:") and "Traceback" not in err
    assert not any(v in err for v in SECRETS.values())


def test_a_private_endpoint_is_refused_on_the_public_policy(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("TANAW_ALLOW_PRIVATE_ENDPOINTS", raising=False)
    recorder = Recorder()
    try:
        assert _probe(recorder, tmp_path) == 2
    finally:
        recorder.close()
    assert recorder.headers == []
    assert "not accepted" in capsys.readouterr().err
    assert json.dumps(recorder.headers) == "[]"


@pytest.mark.parametrize("argv, message", [
    (["--probes", "guided,bogus"], "error: --probes: unknown probe 'bogus'"),
    (["--split", "test\n## injected"], "error: --split: a split name"),
    (["--top-k", "0"], "error: --top-k: between 1 and 100"),
])
def test_bad_options_exit_2_with_one_line_and_send_nothing(tmp_path, capsys, argv, message):
    with StandinServer() as server:
        code = main(["leakage", "--model", "m", "--base-url", server.base_url, "--db", str(tmp_path / "t.duckdb"),
                     *argv])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(message) and err.count("\n") == 1 and server.requests == 0
