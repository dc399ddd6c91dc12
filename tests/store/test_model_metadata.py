"""Model metadata is taken from the file where it states it, else left unknown (NULL, shown as "—"), never
defaulted; a file that reports no tokens shows no token counts (not 0 tokens)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from evaluator.formats.model_meta import pacute_model_meta
from store.db import connect
from store.queries.leaderboard import usage_table

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo"


@pytest.mark.parametrize("entry,meta", [
    ({"hf_model_name": "gpt-4.1-nano", "model_type": "it"}, {"model_type": "instruct"}),
    ({"model_type": "pt"}, {"model_type": "base"}),
    ({"model_type": "it", "thinking": True}, {"model_type": "reasoning"}),
    ({"model_type": "it", "thinking": False}, {"model_type": "instruct"}),
    ({"model_type": "api"}, {}),                      # not a type we know: not guessed
    ({"hf_model_name": "x"}, {}),                     # not stated: unknown
])
def test_pacute_bench_states_the_model_type(entry, meta):
    assert pacute_model_meta(entry) == meta


def _ingest(db: Path, path: Path, model: str, *extra: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "tanaw_cli", "ingest", str(path), "--model", model, "--db", str(db),
                           "--data-dir", str(DEMO), *extra], capture_output=True, text=True, cwd=REPO, timeout=600)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done


def _model(db: Path, model: str) -> tuple:
    con = connect(db, read_only=True)
    try:
        return con.execute("SELECT model_type, weights, params_b, licence FROM models WHERE model_id = ?",
                           [model]).fetchone()
    finally:
        con.close()


def test_a_file_stating_nothing_leaves_every_field_unknown_and_shows_no_tokens(tmp_path):
    rows = [r for r in map(json.loads, (DEMO / "gemma-3-270m.results.jsonl").read_text().splitlines())
            if r["task"] == "sentiment" and r["lang"] == "id"]
    assert rows and not any("tokens_in" in r or "usage" in r for r in rows)
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    db = tmp_path / "t.duckdb"
    _ingest(db, path, "quiet-model")
    assert _model(db, "quiet-model") == (None, None, None, None)
    con = connect(db, read_only=True)
    try:
        stored = con.execute("SELECT requests, tokens_in, tokens_out FROM model_usage WHERE model_id = 'quiet-model' "
                             "AND prompt_lang = 'en' AND family = ''").fetchone()
        assert stored == (len([r for r in rows if r["prompt_lang"] == "en"]), 0, 0)  # 0: none reported
        shown = usage_table(con, prompt_lang="en").set_index("model").loc["quiet-model"]
    finally:
        con.close()
    assert shown["requests"] == stored[0]
    assert pd.isna(shown["tokens_in"]) and pd.isna(shown["tokens_out"])  # NULL: "—" on the board


@pytest.mark.needs_samples
def test_the_model_type_a_pacute_file_states_is_taken_and_nothing_else_is_assumed(tmp_path, shared_data):
    db = tmp_path / "t.duckdb"
    done = _ingest(db, shared_data / "pacute" / "results-sample" / "gpt-4.1-nano", "gpt-4.1-nano", "--allow-partial")
    assert "note: model type 'instruct' from the file (override with --model-type)" in done.stderr
    assert _model(db, "gpt-4.1-nano") == ("instruct", None, None, None)  # not "open weights": unknown
    _ingest(db, DEMO / "gemma-3-270m.results.jsonl", "typed", "--model-type", "base", "--weights", "open")
    assert _model(db, "typed") == ("base", "open", None, None)
