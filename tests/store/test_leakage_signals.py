"""Leakage signals through the real write path: a cell whose outputs copy 8 references is flagged with exactly
those 8 items (the source copies and wrong answers are not); the demo baselines, the demo model and a model whose
outputs are shuffled references flag nothing; the clean-items score is the evaluator's aggregate over the unflagged
items; a model card's declaration flags its benchmark's cells without any probe; a bad declaration changes nothing.
"""
from __future__ import annotations

import random

import pytest

from evaluator.aggregate import aggregate_cell
from evaluator.registry import TASKS
from evaluator.scoring import score_prediction
from evaluator.spec import Prediction
from services.leakage import cell_signals, clean_score, declare, flagged_table
from store.db import connect
from store.schema import row_counts
from tests.helpers.leakage_fixture import (LANG, MODEL, PROMPT, TASK, copied_ids, ingest_memoriser,
                                           memoriser_outputs, mt_items)


@pytest.fixture()
def con(tmp_path):
    c = connect(tmp_path / "leak.duckdb")
    yield c
    c.close()


def test_eight_verbatim_references_flag_exactly_those_items(con):
    ingest_memoriser(con)
    signals = [s for s in cell_signals(con) if s.flagged]
    assert [(s.model_id, s.task, s.lang, s.prompt_lang, s.signal) for s in signals] == \
        [(MODEL, TASK, LANG, PROMPT, "mt_verbatim")]
    sig = signals[0]
    items = mt_items()
    assert list(sig.item_ids) == copied_ids(items) and len(sig.item_ids) == 8
    assert sig.n_items == 12 and sig.statistic == pytest.approx(8 / 12)
    assert sig.ci_low == pytest.approx(0.3906, abs=1e-4) and sig.ci_high == pytest.approx(0.8619, abs=1e-4)  # Wilson
    table = flagged_table(con, family=TASKS[TASK].family, prompt_lang=PROMPT)
    assert table["items flagged"].tolist() == [8]
    assert table["evidence"].iloc[0].startswith("mt_verbatim: 8 of 12 items (66.7%, 95% CI 39.1–86.2%)")


def test_clean_items_score_is_the_aggregate_over_the_unflagged_items(con):
    ingest_memoriser(con)
    result = clean_score(con, MODEL, TASK, LANG, PROMPT)
    items, outputs = mt_items(), memoriser_outputs(mt_items())
    task = TASKS[TASK]
    kept = [(it, score_prediction(task, it, Prediction(TASK, LANG, it.item_id, PROMPT, outputs[it.item_id])))
            for it in items[8:]]
    expected = next(s for s in aggregate_cell(task, LANG, kept) if s.metric == "chrf++")
    assert result["flagged"] == copied_ids(items)
    assert result["clean"].metric == "chrf++" and result["clean"].n == 4
    assert result["clean"].value == pytest.approx(expected.value)
    stored = con.execute("SELECT value FROM aggregates WHERE model_id = ? AND metric = 'chrf++'", [MODEL]).fetchone()[0]
    assert result["full"].value == pytest.approx(stored)  # the full score is the board's (ranks unchanged)
    assert result["clean"].value < result["full"].value


def test_shuffled_references_flag_nothing(con):
    """A model that cannot have seen the items in order: each output is another item's reference."""
    from services.ingest import ingest_predictions
    from services.demo import DEMO_DIR

    items = mt_items()
    order = list(range(len(items)))
    random.Random(0).shuffle(order)
    order = order[1:] + order[:1]  # a cycle: no item keeps its own reference
    preds = [Prediction(TASK, LANG, items[a].item_id, PROMPT, items[b].gold) for a, b in zip(sorted(order), order)]
    assert all(p.output != items[i].gold for i, p in enumerate(preds))
    ingest_predictions(con, preds, model={"model_id": "Shuffled", "origin": "uploaded"},
                       source={"file": "s.jsonl", "kind": "upload"}, data_dir=DEMO_DIR)
    signals = cell_signals(con)
    assert [s.signal for s in signals] == ["mt_verbatim"] and not signals[0].flagged and signals[0].n_items == 12


def test_a_declaration_flags_its_benchmark_cells_without_a_probe(con):
    ingest_memoriser(con, model_id="Declarer")
    declare(con, "Declarer", ["Flores 200"], "Web crawl to 2024, FLORES-200 devtest included.")
    flags = [s for s in cell_signals(con) if s.signal == "declared"]
    assert [(s.model_id, s.task, s.lang, s.prompt_lang, s.flagged, s.item_ids) for s in flags] == \
        [("Declarer", TASK, LANG, PROMPT, True, ())]
    assert flags[0].detail == "the model card declares Flores 200 in its training data"
    assert clean_score(con, "Declarer", TASK, LANG, PROMPT)["cell_flags"] == flags


def test_a_bad_declaration_names_its_field_and_changes_nothing(con):
    ingest_memoriser(con)
    before = row_counts(con)
    with pytest.raises(ValueError, match=r"declared_data\[1\]: 'NoSuchBench' names no task"):
        declare(con, MODEL, ["FLORES-200", "NoSuchBench"], None)
    with pytest.raises(ValueError, match="training_data: holds control characters"):
        declare(con, MODEL, ["FLORES-200"], "a\x00b")
    with pytest.raises(ValueError, match="model: no stored model named 'nobody'"):
        declare(con, "nobody", ["FLORES-200"], None)
    assert row_counts(con) == before
    assert con.execute("SELECT declared_data FROM models").fetchall() == [(None,)]


def test_the_command_line_sets_and_clears_a_declaration(tmp_path, capsys):
    from cli.main import main

    db = tmp_path / "cli.duckdb"
    c = connect(db)
    ingest_memoriser(c)
    c.close()
    assert main(["declare", MODEL, "--data", "FLORES-200", "--text", "Web crawl to 2024", "--db", str(db)]) == 0
    assert capsys.readouterr().out == f"{MODEL}: declares FLORES-200; training-data text stored\n"
    assert main(["declare", MODEL, "--data", "Nope", "--db", str(db)]) == 2
    assert capsys.readouterr().err == "error: declared_data[0]: 'Nope' names no task, benchmark family or dataset\n"
    c = connect(db)
    assert c.execute("SELECT declared_data, training_data FROM models").fetchall() == \
        [(["FLORES-200"], "Web crawl to 2024")]
    assert c.execute("SELECT action, model_id FROM audit WHERE action = 'declare'").fetchall() == [("declare", MODEL)]
    assert [s.signal for s in cell_signals(c) if s.flagged] == ["declared", "mt_verbatim"]
    c.close()
    assert main(["declare", MODEL, "--clear", "--db", str(db)]) == 0
    c = connect(db)
    assert c.execute("SELECT declared_data, training_data FROM models").fetchall() == [(None, None)]
    c.close()


def test_only_the_owner_changes_a_card(con):
    ingest_memoriser(con, owner="uploader:alice")
    with pytest.raises(ValueError, match="belongs to another identity"):
        declare(con, MODEL, ["FLORES-200"], None)
    declare(con, MODEL, ["FLORES-200"], None, owner="uploader:alice")
    assert [s.signal for s in cell_signals(con) if s.flagged] == ["declared", "mt_verbatim"]


def _memoriser_file() -> bytes:
    import json

    items = mt_items()
    return "".join(json.dumps({"task": TASK, "lang": LANG, "item_id": i, "prompt_lang": PROMPT, "prediction": o},
                              ensure_ascii=False) + "\n"
                   for i, o in memoriser_outputs(items).items()).encode()


def test_an_upload_sets_the_declaration_and_a_bad_one_is_refused_before_writing(tmp_path):
    from services.demo import DEMO_DIR
    from services.upload import ingest_upload, read_upload

    db = tmp_path / "up.duckdb"
    upload = read_upload(_memoriser_file(), "memoriser.jsonl", data_dir=DEMO_DIR)
    bad = ingest_upload(db, upload, model={"model_id": MODEL}, data_dir=DEMO_DIR,
                        declaration=(["FLORES-200", "Nope"], None))
    assert bad.status == "rejected"
    assert [(e.file, e.field, e.problem) for e in bad.errors] == [
        ("memoriser.jsonl", "declared_data[1]", "'Nope' names no task, benchmark family or dataset")]
    c = connect(db)
    assert c.execute("SELECT count(*) FROM models").fetchone()[0] == 0
    c.close()
    out = ingest_upload(db, upload, model={"model_id": MODEL}, data_dir=DEMO_DIR,
                        declaration=(["FLORES-200"], "Crawl to 2024"))
    assert out.status == "imported"
    c = connect(db)
    assert [(s.signal, s.item_ids == tuple(copied_ids(mt_items()))) for s in cell_signals(c) if s.flagged] == \
        [("declared", False), ("mt_verbatim", True)]
    c.close()


def test_deleting_the_upload_removes_its_signals(tmp_path):
    from services.demo import DEMO_DIR
    from services.upload import admin_action, ingest_upload, read_upload

    db = tmp_path / "del.duckdb"
    upload = read_upload(_memoriser_file(), "memoriser.jsonl", data_dir=DEMO_DIR)
    assert ingest_upload(db, upload, model={"model_id": MODEL}, data_dir=DEMO_DIR).status == "imported"
    c = connect(db)
    assert [s.signal for s in cell_signals(c) if s.flagged] == ["mt_verbatim"]
    c.close()
    admin_action(db, upload.sha256, "delete")
    c = connect(db)
    assert cell_signals(c) == []
    c.close()
