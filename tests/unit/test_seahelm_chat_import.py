"""SEA-HELM mt-bench files imported through `python -m evaluator judge-import`: answers stored turn by turn, SEA-HELM's
per-turn judge scores kept as self-reported judge scores naming the judge (from `individual_scores`, or read from
the judge batch responses with SEA-HELM's rule); a bad row is named by file, line and field and nothing is stored.
The rows follow the layout SEA-HELM writes at 6844e6c (base_dataloader.write_out_dataframe, the pairwise judge
dataloader's custom_ids); their text is made up."""
from __future__ import annotations

import json

import duckdb

from cli.main import main
from evaluator.formats import seahelm

BASE = {"baselines": {"gpt-4.1-2025-04-14": ["Ref 1", "Ref 2"]}, "references": None,
        "metadata": {"category": "writing", "language": "id"}}
ROWS = [
    {"question_id": 81, "prompts": [{"text": "Tulis surat."}, {"text": "Perpendek."}], **BASE,
     "responses": ["Surat panjang.", "Surat pendek."], "individual_scores": {"weighted_win_rate": [1, 0.5]}},
    {"question_id": 82, "prompts": [{"text": "Hitung 2+2."}, {"text": "Kalikan 3."}], **BASE,
     "references": ["4", "12"], "metadata": {"category": "math", "language": "id"},
     "responses": ["4", "12"]},
]
JUDGE = [{"custom_ids": "82_turn1_baseline-after", "responses": "Assistant A is right. [[A]]"},
         {"custom_ids": "82_turn1_baseline-before", "responses": "[[B]]"},
         {"custom_ids": "82_turn2_baseline-after", "responses": "[[A]]"},
         {"custom_ids": "82_turn2_baseline-before", "responses": "[[A]]"}]


def _write(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_inference_and_judge_batch_files_become_turns_and_self_reported_judge_scores(tmp_path, capsys):
    inf = _write(tmp_path / "org-chat_mt-bench_id.jsonl", ROWS)
    batch = _write(tmp_path / "org-chat_mt-bench_id_turn1_judge_batch_response.jsonl", JUDGE)
    db = tmp_path / "t.duckdb"
    assert main(["judge-import", str(inf), str(batch), "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "2 conversations, 4 turn answers, 4 self-reported judge scores by gpt-4.1-2025-04-14" in out
    con = duckdb.connect(str(db), read_only=True)
    turns = con.execute("SELECT p.item_id, p.ord, p.prompt, p.output FROM predictions p JOIN runs r USING (run_id) "
                        "WHERE r.task = 'sea-mt-bench' AND r.model_id = 'org-chat' ORDER BY ALL").fetchall()
    assert turns == [("81", "t1", "Tulis surat.", "Surat panjang."), ("81", "t2", "Perpendek.", "Surat pendek."),
                     ("82", "t1", "Hitung 2+2.", "4"), ("82", "t2", "Kalikan 3.", "12")]
    judged = con.execute("SELECT item_id, ord, judge_model, template, kind, value, verdict, origin FROM judge_scores "
                         "ORDER BY item_id, ord").fetchall()
    assert [(r[0], r[1], r[5]) for r in judged] == [("81", "t1", 1.0), ("81", "t2", 0.5), ("82", "t1", 1.0),
                                                    ("82", "t2", 0.5)]
    assert {r[2] for r in judged} == {"gpt-4.1-2025-04-14"} and {r[7] for r in judged} == {"self-reported"}
    assert judged[2][6] == "win,win -> win" and judged[3][6] == "win,loss -> tie" and judged[0][6] == "self-reported"
    assert con.execute("SELECT count(*) FROM scores").fetchone()[0] == 0  # never metric scores
    inputs = json.loads(con.execute("SELECT inputs FROM items WHERE task = 'sea-mt-bench' AND item_id = '82'"
                                    ).fetchone()[0])
    assert inputs["turns"] == ["Hitung 2+2.", "Kalikan 3."] and inputs["references"] == ["4", "12"]
    con.close()


def test_a_bad_row_is_named_and_nothing_is_stored(tmp_path, capsys):
    bad = [ROWS[0], {**ROWS[1], "responses": "4"}]
    inf = _write(tmp_path / "org-chat_mt-bench_id.jsonl", bad)
    db = tmp_path / "t.duckdb"
    assert main(["judge-import", str(inf), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "org-chat_mt-bench_id.jsonl:2: responses: expected a list" in err
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM runs WHERE task = 'sea-mt-bench'").fetchone()[0] == 0
    con.close()


def test_the_generic_seahelm_reader_leaves_conversations_to_judge_import():
    data = "".join(json.dumps(r) + "\n" for r in ROWS).encode()
    parsed = seahelm.parse_inference(data, "org-chat_mt-bench_id.jsonl")
    assert not parsed.rows and any("judge-import" in str(w) for w in parsed.warnings)
