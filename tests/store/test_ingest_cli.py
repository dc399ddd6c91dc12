"""Scoring a predictions file end to end through `python -m evaluator ingest` (the foundation's promise).

All-right predictions score 100 on every scored cell of ../shared/data, all-wrong ones at or below chance;
a malformed line fails with its line number and leaves every table's row count unchanged; the same file twice is
a no-op. (30 items per cell keep this quick; the full files were checked by hand: 17,011 predictions, all 100.)
"""
import json

import pytest

from cli.main import main
from evaluator.registry import TASKS
from store.db import connect
from store.queries.leaderboard import leaderboard_cells
from store.schema import row_counts
from tests.helpers.predictions_factory import write_predictions

LIMIT = 30


def _ingest(path, db, data_dir, model="m", *extra):
    return main(["ingest", str(path), "--model", model, "--db", str(db), "--data-dir", str(data_dir), *extra])


@pytest.fixture(scope="module")
def scored(tmp_path_factory, shared_data):
    tmp = tmp_path_factory.mktemp("ingest")
    db = tmp / "t.duckdb"
    right, wrong = tmp / "right.jsonl", tmp / "wrong.jsonl"
    counts = write_predictions(right, shared_data, right=True, limit=LIMIT)
    write_predictions(wrong, shared_data, right=False, limit=LIMIT)
    assert _ingest(right, db, shared_data, "oracle") == 0
    assert _ingest(wrong, db, shared_data, "anti-oracle") == 0
    con = connect(db, read_only=True)
    cells = leaderboard_cells(con, "en")
    con.close()
    return counts, cells, db


def test_right_answers_score_100_on_every_scored_cell(scored):
    counts, cells, _ = scored
    oracle = cells[cells["model"] == "oracle"].set_index(["task", "lang"])
    assert set(oracle.index) == set(counts)
    for (task, lang), r in oracle.iterrows():
        assert r["status"] == "ok", (task, lang, r["note"])
        assert r["value"] == pytest.approx(100.0), (task, lang)
        assert r["n"] == counts[(task, lang)] and r["parse_fail_rate"] == 0


def test_wrong_answers_score_at_or_below_chance(scored):
    counts, cells, _ = scored
    anti = cells[cells["model"] == "anti-oracle"].set_index(["task", "lang"])
    for (task, lang), r in anti.iterrows():
        chance = TASKS[task].chance_level(lang)
        limit = 100 * chance if chance is not None else r["chance"]
        assert r["value"] <= limit + 1e-9, (task, lang, r["value"], limit)
        assert r["normalized"] <= 1e-9


def test_the_same_file_twice_changes_nothing(scored, tmp_path, shared_data):
    _, _, db = scored
    right = tmp_path / "again.jsonl"
    write_predictions(right, shared_data, right=True, limit=LIMIT)
    con = connect(db, read_only=True)
    before = row_counts(con)
    con.close()
    assert _ingest(right, db, shared_data, "oracle") == 0
    con = connect(db, read_only=True)
    after = row_counts(con)
    con.close()
    changed = {t: (before[t], after[t]) for t in before if before[t] != after[t] and t not in ("audit",)}
    assert changed == {}


def test_malformed_line_fails_with_its_line_number_and_writes_nothing(scored, tmp_path, shared_data, capsys):
    _, _, db = scored
    bad = tmp_path / "bad.jsonl"
    good = {"task": "sentiment", "lang": "id", "item_id": "nusax-id-411", "prompt_lang": "en", "prediction": "x"}
    bad.write_text(json.dumps(good) + "\n" + json.dumps({**good, "item_id": "nusax-id-412", "prompt_lang": "fr"})
                   + "\n{not json\n", encoding="utf-8")
    con = connect(db, read_only=True)
    before = row_counts(con)
    con.close()
    assert _ingest(bad, db, shared_data, "broken") == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:2: prompt_lang:" in err and "bad.jsonl:3:" in err
    con = connect(db, read_only=True)
    after = row_counts(con)
    con.close()
    assert {t: after[t] for t in before if t != "audit"} == {t: before[t] for t in before if t != "audit"}


def test_leaderboard_cli_prints_raw_normalized_n_and_interval(scored, capsys):
    _, _, db = scored
    assert main(["leaderboard", "--db", str(db), "--json", "--prompt-lang", "en"]) == 0
    rows = json.loads(capsys.readouterr().out)
    row = next(r for r in rows if r["model"] == "oracle" and r["task"] == "sentiment" and r["lang"] == "ta")
    assert (row["metric"], row["value"], row["normalized"], row["n"]) == ("accuracy", 100.0, 100.0, LIMIT)
    z2 = 1.959963984540054 ** 2  # Wilson interval at p = 1: [n / (n + z²), 1]
    assert row["ci_low"] == pytest.approx(100 * LIMIT / (LIMIT + z2)) and row["ci_high"] == pytest.approx(100.0)
