"""A task is one file: a family folder (`family.yaml` and one `<task>.yaml` naming its data, prompt, answer reader
and metrics) and its items, in a temporary data directory's `tasks/`, show up in `tasks --json` and `items`; a result
file for the task is scored on ingest and the task is on the leaderboard (the CLI's and the page's), with no file of
the repository touched. A task file naming a missing part is refused with its file and field.

Everything runs in subprocesses with `TANAW_DATA_DIR` set, since the registry is read once per process.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.registry import TASKS

ROOT = Path(__file__).resolve().parents[2]

FAMILY = "title: Odd one\nposition: 9\nboard: true\ndescription: Which word does not belong.\n"
TASK = """name: odd-one-out
group: NLR
langs: [id]
mode: generate
extractor: letter
metrics: [accuracy]
labels: {id: [A, B, C]}
chance: 0.3333333333333333
prompt_en:
  user: "Which word does not belong?\\nA: {a}\\nB: {b}\\nC: {c}\\nAnswer with A, B or C."
data: {file: "odd/{lang}.jsonl", id: id, gold: answer, inputs: [a, b, c]}
description: Pick the word that is not like the others.
"""
ITEMS = [("q1", "apel", "jeruk", "meja", "C"), ("q2", "kursi", "kucing", "anjing", "A"),
         ("q3", "merah", "biru", "lari", "C"), ("q4", "satu", "hijau", "dua", "B")]
ANSWERS = ["Jawaban: C", "Jawaban: A", "Jawaban: B", "Jawaban: B"]  # three of four right

PAGE_SCRIPT = r"""
import json
from streamlit.testing.v1 import AppTest

at = AppTest.from_file("pages/leaderboard.py", default_timeout=120)
at.query_params.update(bench="Odd one", prompt="English", score="Raw")
at.run()
assert not at.exception, at.exception
print(json.dumps({"benches": [list(s.options) for s in at.segmented_control],
                  "tables": [d.value.astype(str).values.tolist() for d in at.dataframe]}))
"""


@pytest.fixture(scope="module")
def added(tmp_path_factory):
    """A data directory holding only the new family, its task file and items; a store; the environment."""
    tmp = tmp_path_factory.mktemp("added_task")
    data = tmp / "data"
    (data / "tasks" / "odd").mkdir(parents=True)
    (data / "tasks" / "odd" / "family.yaml").write_text(FAMILY, encoding="utf-8")
    (data / "tasks" / "odd" / "odd-one-out.yaml").write_text(TASK, encoding="utf-8")
    (data / "odd").mkdir()
    (data / "odd" / "id.jsonl").write_text("".join(json.dumps(dict(zip(("id", "a", "b", "c", "answer"), row))) + "\n"
                                                   for row in ITEMS), encoding="utf-8")
    env = {**os.environ, "TANAW_DATA_DIR": str(data), "TANAW_DB": str(tmp / "tanaw.duckdb"), "HOME": str(tmp / "h")}
    env.pop("TANAW_TASKS_DIR", None)
    return tmp, data, env


def sh(env, *args, code: str | None = None, ok: bool = True) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "evaluator", *args]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert (done.returncode == 0) == ok, done.stderr[-2000:]
    return done


def test_a_task_in_one_file_is_scored_and_on_the_board(added):
    tmp, data, env = added
    before = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout

    tasks = {r["task"]: r for r in json.loads(sh(env, "tasks", "--json").stdout)}
    assert tasks["odd-one-out"]["family"] == "odd" and tasks["odd-one-out"]["langs"] == ["id"]
    assert tasks["odd-one-out"]["headline"] == {"id": "accuracy"}
    assert list(tasks)[-1] == "odd-one-out" and len(tasks) == len(TASKS) + 1  # after the built-in tasks

    items = [json.loads(x) for x in sh(env, "items", "--task", "odd-one-out", "--lang", "id", "--json").stdout
             .splitlines()]
    assert [(i["item_id"], i["gold"]) for i in items] == [(row[0], row[4]) for row in ITEMS]
    assert items[0]["prompt_en"].startswith("Which word does not belong?\nA: apel\nB: jeruk\nC: meja")

    preds = tmp / "odd.jsonl"
    preds.write_text("".join(json.dumps({"task": "odd-one-out", "lang": "id", "item_id": row[0], "prompt_lang": "en",
                                         "prediction": answer}) + "\n" for row, answer in zip(ITEMS, ANSWERS)),
                     encoding="utf-8")
    assert "imported 4 predictions" in sh(env, "ingest", str(preds), "--model", "Odd-1").stdout

    board = {(r["task"], r["lang"]): r for r in json.loads(sh(env, "leaderboard", "--json").stdout)}
    cell = board[("odd-one-out", "id")]
    assert cell["value"] == 75.0 and cell["parse_fail_rate"] == 0.0
    assert cell["normalized"] == pytest.approx((75 - 100 / 3) / (100 - 100 / 3) * 100)
    family = [r for r in json.loads(sh(env, "leaderboard", "--family", "odd", "--json").stdout)]
    assert [(r["model"], r["task"]) for r in family] == [("Odd-1", "odd-one-out")]

    page = json.loads(sh(env, code=PAGE_SCRIPT).stdout)
    assert any("Odd one" in options for options in page["benches"]), page["benches"]
    assert any("Odd-1" in row and "75.0" in row for row in page["tables"][0]), page["tables"]  # the board
    assert any("odd-one-out" in row for table in page["tables"] for row in table), page["tables"]  # its cells

    after = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout
    assert after == before, "adding a task must not touch any file of the repository"


def test_a_task_naming_a_missing_part_names_its_file_and_field(tmp_path):
    folder = tmp_path / "tasks" / "odd"
    folder.mkdir(parents=True)
    (folder / "family.yaml").write_text(FAMILY, encoding="utf-8")
    (folder / "odd-one-out.yaml").write_text(TASK.replace("extractor: letter", "extractor: leter"), encoding="utf-8")
    env = {**os.environ, "TANAW_DATA_DIR": str(tmp_path)}
    done = sh(env, "tasks", ok=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert (f"{folder / 'odd-one-out.yaml'}: extractor: unknown answer reader 'leter'; did you mean 'letter'?"
            in done.stderr)
    (folder / "odd-one-out.yaml").write_text(TASK.replace("group: NLR", "grup: NLR"), encoding="utf-8")
    done = sh(env, "tasks", ok=False)
    assert done.stderr.strip() == f"error: {folder / 'odd-one-out.yaml'}: grup: unknown field; did you mean 'group'?"
