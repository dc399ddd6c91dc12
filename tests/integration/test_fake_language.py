"""A language is a data change: a fake language from a fixture (`tests/fixtures/fake_language`: one language entry,
a prompt pack and a few items) copied into a temporary data directory shows up in `tasks --json`, `items`, ingest,
extraction with its own answer tag, the leaderboard and every page's language choice, with no other file touched.

Everything runs in subprocesses with `TANAW_DATA_DIR` set, since the registry is read once per process.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "fake_language"

PAGES_SCRIPT = r"""
import json, sys
from streamlit.testing.v1 import AppTest

def run(page, **params):
    at = AppTest.from_file(f"pages/{page}.py", default_timeout=120)
    at.query_params.update(params)
    at.run()
    assert not at.exception, (page, at.exception)
    return at

def choices(at, label):
    return [list(s.options) for s in at.selectbox if s.label == label]

out = {}
at = run("lindsea", model="Fake-1", lang="zz", prompt="native")
out["lindsea"] = {"langs": choices(at, "Language"), "cells": at.dataframe[0].value[["task", "value"]].values.tolist()}
at = run("cultural", lang="zz")
out["cultural"] = {"langs": choices(at, "Language"), "probes": choices(at, "Probe (item id)")}
for bench in ("BHASA", "LINDSEA"):
    at = run("leaderboard", bench=bench, prompt="Native", score="Raw")
    out["leaderboard_" + bench] = [" ".join(map(str, d.value.columns)) for d in at.dataframe]
at = run("compare", task="sentiment")
out["compare"] = choices(at, "Language")
at = run("model", model="Fake-1")
out["model"] = at.dataframe[0].value[["task", "lang"]].values.tolist()
at = run("queue")
out["queue"] = [list(m.options) for m in at.multiselect if m.label == "Languages"]
print(json.dumps(out))
"""

EXTRACT_SCRIPT = r"""
import json
from evaluator.extract import EXTRACTORS
from evaluator.registry import get_task
from evaluator.spec import Item

task = get_task("sentiment")
item = Item(task="sentiment", lang="zz", item_id="0", inputs={}, gold="positive")
out = {raw: EXTRACTORS[task.extractor](raw, task=task, lang="zz", item=item).answer
       for raw in ("Vastaus: kielteinen", "vastaus: myönteinen", "Vastaus: ei myönteinen",
                   "Vastaus: myönteinen tai kielteinen", "Vastaus: myönteinen\nVastaus: kielteinen")}
print(json.dumps(out, ensure_ascii=False))
"""


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    """A temporary data dir holding only the fixture, a store and the environment pointing at both."""
    tmp = tmp_path_factory.mktemp("fake_language")
    data = tmp / "data"
    shutil.copytree(FIXTURE, data)
    env = {**os.environ, "TANAW_DATA_DIR": str(data), "TANAW_DB": str(tmp / "tanaw.duckdb"),
           "HOME": str(tmp / "home")}
    env.pop("TANAW_LANGUAGES_DIR", None)
    return tmp, env


def sh(env, *args, code: str | None = None) -> str:
    cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "evaluator", *args]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_fake_language_end_to_end(fake):
    tmp, env = fake
    before = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout

    tasks = {r["task"]: r for r in json.loads(sh(env, "tasks", "--json"))}
    assert {name for name, r in tasks.items() if "zz" in r["langs"]} == {
        "sentiment", "lindsea-mp", "cultural-representation"}
    assert tasks["sentiment"]["headline"]["zz"] == "accuracy" and tasks["sentiment"]["chance"]["zz"] == 0.5

    items = [json.loads(line) for line in sh(env, "items", "--task", "sentiment", "--lang", "zz", "--json")
             .splitlines()]
    assert [i["gold"] for i in items] == ["positive", "negative", "positive", "negative"]
    assert items[0]["prompt_native"].startswith("Mikä on lauseen tunne?")  # the language's own prompt pack
    pairs = [json.loads(line) for line in sh(env, "items", "--task", "lindsea-mp", "--lang", "zz", "--json")
             .splitlines()]
    assert len(pairs) == 8 and "You are a Zedish linguist." in pairs[0]["prompt_en"]  # name from the entry

    # extraction with the language's own answer tag, negator and "or"
    assert json.loads(sh(env, code=EXTRACT_SCRIPT)) == {
        "Vastaus: kielteinen": "negative", "vastaus: myönteinen": "positive", "Vastaus: ei myönteinen": None,
        "Vastaus: myönteinen tai kielteinen": None, "Vastaus: myönteinen\nVastaus: kielteinen": None}

    preds = [{"task": "sentiment", "lang": "zz", "item_id": str(i), "prompt_lang": "native", "prediction": out}
             for i, out in enumerate(["Vastaus: myönteinen", "Vastaus: kielteinen", "Vastaus: ei myönteinen",
                                      "Vastaus: myönteinen"])]
    for stem in ("morphology", "argument_structure", "filler-gap_dependencies", "NPIs_and_negation"):
        preds += [{"task": "lindsea-mp", "lang": "zz", "item_id": f"{stem}-0", "prompt_lang": "native",
                   "order": order, "prediction": f"Vastaus: {letter}"} for order, letter in (("ab", "a"), ("ba", "b"))]
    preds += [{"task": "cultural-representation", "lang": "zz", "item_id": str(i), "prompt_lang": "native",
               "prediction": "Se on vanha tapa."} for i in range(2)]
    path = tmp / "fake.jsonl"
    path.write_text("\n".join(json.dumps(p, ensure_ascii=False) for p in preds) + "\n", encoding="utf-8")
    assert "imported 14 predictions" in sh(env, "ingest", str(path), "--model", "Fake-1")

    board = {(r["task"], r["lang"]): r for r in json.loads(sh(env, "leaderboard", "--json"))}
    # 2 of 4 right; the negated answer is unparsed, not read as positive
    assert board[("sentiment", "zz")]["value"] == 50.0 and board[("sentiment", "zz")]["parse_fail_rate"] == 0.25
    assert board[("lindsea-mp", "zz")]["value"] == 100.0  # lower-case letters after the Zedish tag, both orders

    pages = json.loads(sh(env, code=PAGES_SCRIPT))
    assert pages["lindsea"]["langs"] == [["id", "ta", "zz"]]
    assert pages["lindsea"]["cells"] == [["lindsea-mp", 100.0]]
    assert pages["cultural"] == {"langs": [["id", "ta", "zz"]], "probes": [["0", "1"]]}
    assert any("zz" in columns for columns in pages["leaderboard_BHASA"]), pages["leaderboard_BHASA"]
    assert any("zz" in columns for columns in pages["leaderboard_LINDSEA"]), pages["leaderboard_LINDSEA"]
    assert pages["compare"] == [["zz"]]
    assert sorted(map(tuple, pages["model"])) == [("lindsea-mp", "zz"), ("sentiment", "zz")]
    assert any("zz" in langs for langs in pages["queue"])

    after = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout
    assert after == before, "adding a language must not touch any file of the repository"


def test_bad_language_entry_names_file_and_field(tmp_path):
    (tmp_path / "languages").mkdir()
    (tmp_path / "languages" / "zz.yaml").write_text("code: zz\nname: Zedish\nlabel_words: [positif]\n",
                                                    encoding="utf-8")
    env = {**os.environ, "TANAW_DATA_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "evaluator", "tasks"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0
    assert f"{tmp_path / 'languages' / 'zz.yaml'}: label_words: expected a mapping" in done.stderr
    assert "Traceback" not in done.stderr
