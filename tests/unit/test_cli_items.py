"""`python -m evaluator items`: ids, rendered EN and native prompts and gold, for offline inference."""
import json

from cli.main import main


def test_items_json_gives_both_prompts_both_orders_and_gold(shared_data, capsys):
    assert main(["items", "--task", "causal", "--lang", "th", "--limit", "2", "--json",
                 "--data-dir", str(shared_data)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["item_id"], r["order"]) for r in rows] == [
        ("xcopa-th-test-0", "ab"), ("xcopa-th-test-0", "ba"), ("xcopa-th-test-1", "ab"), ("xcopa-th-test-1", "ba")]
    first = rows[0]
    assert first["gold"] == "A" and rows[1]["gold"] == "B"  # label 0 → A; swapped order flips it
    assert "most likely to be its cause?" in first["prompt_en"]  # Thai 'effect' corrected to the consensus
    assert first["prompt_native"] and "xcopa-question-corrected: effect→cause" in first["warnings"]


def test_items_reports_a_missing_native_prompt_instead_of_inventing_one(shared_data, capsys):
    assert main(["items", "--task", "ner", "--lang", "id", "--limit", "1", "--json",
                 "--data-dir", str(shared_data)]) == 0
    row = json.loads(capsys.readouterr().out.splitlines()[0])
    assert row["prompt_native"] is None and "no native prompt" in row["native_unavailable"]
    assert row["prompt_en"].startswith("Perform Named Entity Recognition (NER) on the following text using only")


def test_items_unknown_cell_is_a_clear_error(shared_data, capsys):
    assert main(["items", "--task", "ner", "--lang", "vi", "--data-dir", str(shared_data)]) == 2
    assert "ner" in capsys.readouterr().err
