"""`python -m evaluator run` on SEA-IFEval against the local stand-in: each prompt is the item text itself, sent
once in the item's language, and the stored cell scores the scripted answers as hand-computed."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb

from tests.helpers.standin_server import StandinServer
from tests.store.test_ifeval_import import ANSWERS, EXPECTED, FIXTURES

REPO = Path(__file__).resolve().parents[2]


def test_run_sends_the_item_text_and_scores_the_answers(tmp_path):
    texts = {json.loads(line)["prompts"][0]["text"]: json.loads(line)["id"]
             for line in (FIXTURES / "sea-ifeval" / "id.jsonl").read_text("utf-8").splitlines()}
    db = tmp_path / "run.duckdb"
    env = {**os.environ, "PYTHONPATH": str(REPO), "TANAW_DATA_DIR": str(FIXTURES), "HOME": str(tmp_path)}
    with StandinServer(reply=lambda prompt: ANSWERS["id"][texts[prompt]][0]) as server:
        done = subprocess.run([sys.executable, "-m", "evaluator", "run", "--model", "standin-if", "--base-url",
                               server.base_url, "--tasks", "sea-ifeval", "--langs", "id", "--prompt-lang", "native",
                               "--db", str(db), "--no-progress"], cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        assert set(server.counts) == set(texts) and set(server.counts.values()) == {1}
    con = duckdb.connect(str(db), read_only=True)
    try:
        got = dict(con.execute("SELECT metric, value FROM aggregates WHERE model_id = 'standin-if' "
                               "AND task = 'sea-ifeval' AND lang = 'id' AND prompt_lang = 'native'").fetchall())
    finally:
        con.close()
    assert got["ifeval_prompt_strict"] == EXPECTED["id"]["strict"] == 60.0
    assert got["ifeval_prompt_loose"] == EXPECTED["id"]["loose"] == 70.0
    assert got["ifeval_inst_strict"] == 60.0 and got["ifeval_language"] == 90.0  # item 18 answers in English
