"""`tanaw leakage` end to end: the probes' verdicts land in the store as leakage signal rows of the model's cells,
and the mode goes through the endpoint policy: no server secret reaches a user-chosen endpoint, a refused endpoint
or key gets nothing at all."""
from __future__ import annotations

import json
import re

import pytest
from scipy.stats import wilcoxon

from cli.main import main
from evaluator.aggregate import aggregate_cell
from evaluator.datasets import load_items
from evaluator.leakage import EVERY_PROMPT, LeakSignal
from evaluator.leakage import probes as P
from evaluator.registry import TASKS
from evaluator.spec import Prediction
from evaluator.stats import wilson
from services.ingest import ingest_predictions
from services.leakage import PROBE_NOTE, clean_score, flagged_table
from services.stored_columns import cell_pairs
from store import db
from store.leakage import read_signals, save_signals
from tests.helpers.standin_server import StandinServer
from tests.integration.test_secrets import SECRETS, Recorder


def _knows_the_items(task: str, lang: str, first: int | None = None):
    """A stand-in that completes guided prompts from the true items (the first `first` of them only, when given)
    and general ones with noise."""
    pieces = {c[0]: c[1] for it in load_items(task, lang)[:first] if (c := P.split_instance(P.item_text(it)))}

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
    assert (g.task, g.lang, g.prompt_lang, g.flagged, g.n_items) == ("abssum", "id", "*", True, 24)
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
    assert [(r["signal"], r["prompt_lang"], r["flagged"]) for r in rows] == [("guided_completion", "*", False)]


def _ingest_both_prompts(path, model: str = "probe-m") -> list[str]:
    """Store the model's abssum/id answers under the English and the native prompt (each its item's reference
    for the even items, a fixed sentence for the odd ones); returns the items' ids in file order."""
    items = load_items("abssum", "id")
    preds = [Prediction(task="abssum", lang="id", item_id=it.item_id, prompt_lang=pl,
                        output=it.gold if i % 2 == 0 else "Ringkasan singkat tentang berita ini.")
             for pl in ("en", "native") for i, it in enumerate(items)]
    con = db.connect(path)
    try:
        ingest_predictions(con, preds, model={"model_id": model, "origin": "uploaded"},
                           source={"file": f"{model}.jsonl", "kind": "upload", "harness": "tanaw"})
    finally:
        con.close()
    return [it.item_id for it in items]


def test_a_probe_flags_the_en_and_the_native_cell_and_both_clean_scores(tmp_path):
    path = tmp_path / "t.duckdb"
    ids = _ingest_both_prompts(path)
    with StandinServer(reply=_knows_the_items("abssum", "id", first=10)) as server:
        assert main(["leakage", "--model", "probe-m", "--base-url", server.base_url, "--tasks", "abssum",
                     "--langs", "id", "--db", str(path), "--probes", "guided", "--max-retries", "1"]) == 0
    known = sorted(ids[:10])
    # guided ROUGE-L 1 on the 10 known items and 0 elsewhere, general 0 everywhere (the paired test's reference)
    reference_p = wilcoxon([1.0] * 10 + [0.0] * 14, [0.0] * 24, zero_method="wilcox", alternative="greater").pvalue
    con = db.connect(path)
    try:
        boards = {pl: flagged_table(con, "bhasa", pl) for pl in ("en", "native")}
        clean = {pl: clean_score(con, "probe-m", "abssum", "id", pl) for pl in ("en", "native")}
        pairs = {pl: cell_pairs(con, "probe-m", TASKS["abssum"], "id", pl) for pl in ("en", "native")}
        stored_rows = read_signals(con, model_id="probe-m", task="abssum", lang="id")
    finally:
        con.close()
    assert [(r["signal"], r["prompt_lang"]) for r in stored_rows if r["signal"] in P.PROBE_SIGNALS] == [
        ("guided_completion", "*")]  # one row for the items, not one per prompt
    for pl, board in boards.items():
        probe = board[board["signal"] == "guided_completion"]
        assert probe[["model", "task", "lang", "prompt_lang", "items flagged", "n items"]].values.tolist() == [
            ["probe-m", "abssum", "id", pl, 10, 24]]
        assert probe["flagged item ids"].iloc[0] == ", ".join(known)
        evidence = probe["evidence"].iloc[0]
        assert evidence.startswith("guided_completion: 10 of 24 items (41.7%, 95% CI ") and evidence.endswith(
            PROBE_NOTE)
        assert float(re.search(r"p = (\S+)", evidence).group(1)) == pytest.approx(reference_p, rel=1e-3)
    for pl in ("en", "native"):
        assert set(known) <= set(clean[pl]["flagged"])
        kept = [(it, res) for it, res in pairs[pl] if it.item_id not in clean[pl]["flagged"]]
        assert len(kept) == 24 - len(clean[pl]["flagged"]) and len(kept) > 0
        spec = TASKS["abssum"]
        expected = next(s for s in aggregate_cell(spec, "id", kept) if s.metric == spec.headline_metric("id"))
        assert clean[pl]["clean"] == expected and clean[pl]["clean"].n == len(kept)
        full = next(s for s in aggregate_cell(spec, "id", pairs[pl]) if s.metric == spec.headline_metric("id"))
        assert clean[pl]["full"] == full and full.n == 24


def test_an_older_stores_en_only_probe_row_still_reads_on_both_cells(tmp_path):
    path = tmp_path / "t.duckdb"
    ids = _ingest_both_prompts(path)
    old = LeakSignal("probe-m", "abssum", "id", "en", "ts_guessing", True, tuple(sorted(ids[:3])), 0.125, 0.001,
                     0.04, 0.31, 24, "TS-Guessing: as an older store kept it")
    con = db.connect(path)
    try:
        save_signals(con, [old.as_row()])
        boards = {pl: flagged_table(con, "bhasa", pl) for pl in ("en", "native")}
        flagged = {pl: clean_score(con, "probe-m", "abssum", "id", pl)["flagged"] for pl in ("en", "native")}
    finally:
        con.close()
    for pl, board in boards.items():
        probe = board[board["signal"] == "ts_guessing"]
        assert probe[["prompt_lang", "items flagged", "n items", "p-value"]].values.tolist() == [[pl, 3, 24, 0.001]]
        assert set(sorted(ids[:3])) <= set(flagged[pl])


def test_a_new_probe_run_replaces_an_older_stores_en_row(tmp_path):
    path = tmp_path / "t.duckdb"
    con = db.connect(path)
    try:
        save_signals(con, [LeakSignal("probe-m", "abssum", "id", "en", "guided_completion", True, ("x",)).as_row()])
    finally:
        con.close()
    with StandinServer(reply=lambda prompt: "lorem ipsum") as server:
        assert main(["leakage", "--model", "probe-m", "--base-url", server.base_url, "--tasks", "abssum",
                     "--langs", "id", "--db", str(path), "--probes", "guided", "--max-retries", "1"]) == 0
    con = db.connect(path)
    try:
        rows = read_signals(con, model_id="probe-m")
        board = flagged_table(con, "bhasa", "native")
    finally:
        con.close()
    assert [(r["prompt_lang"], r["flagged"]) for r in rows] == [(EVERY_PROMPT, False)]
    assert board.empty


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
