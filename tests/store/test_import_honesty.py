"""An import whose answer rows mostly match none of the items is refused with the reason and the fix (`tanaw data
pull`, naming the items it was matched against), exits non-zero and writes nothing, unless `--allow-partial`
accepts the partial import. The case: a model's pacute-bench folder (the public sample) against the demo items."""
from __future__ import annotations

import shutil

import pytest

from cli.main import main
from evaluator.formats import coverage
from evaluator.formats.read import FileReport, Upload
from store.db import connect
from store.schema import row_counts
from tests.helpers.demo_pages import demo_store_db  # noqa: F401  (fixture demo_db)

DEMO_ITEMS = coverage.DEMO_ITEMS


def _store(demo_db, tmp_path):
    path = tmp_path / "demo.duckdb"
    shutil.copy(demo_db, path)
    return path


def _counts(path):
    con = connect(path, read_only=True)
    try:
        return row_counts(con), [r[0] for r in con.execute("SELECT model_id FROM models ORDER BY 1").fetchall()]
    finally:
        con.close()


@pytest.mark.needs_samples
def test_a_pacute_folder_against_the_demo_items_is_refused_with_the_data_pull_hint(demo_db, tmp_path, shared_data,
                                                                                   capsys):
    path = _store(demo_db, tmp_path)
    before = _counts(path)
    folder = shared_data / "pacute" / "results-sample" / "gpt-4.1-nano"
    code = main(["ingest", str(folder), "--model", "gpt-4.1-nano", "--db", str(path), "--data-dir", str(DEMO_ITEMS)])
    err = capsys.readouterr().err
    assert code == 2
    # 5,940 answer rows in its eight inference files; one hierarchical item is also a demo item
    assert "no benchmark data here: 1 of 5,940 answer rows match one of the items in" in err
    assert "(Tanaw's demo items" in err and "run `tanaw data pull`" in err and "--allow-partial" in err
    assert "Traceback" not in err
    assert _counts(path) == before  # nothing written (the refusal's audit row is not a counted table)
    assert "gpt-4.1-nano" not in before[1]


@pytest.mark.needs_samples
def test_allow_partial_imports_the_matching_rows(demo_db, tmp_path, shared_data, capsys):
    path = _store(demo_db, tmp_path)
    folder = shared_data / "pacute" / "results-sample" / "gpt-4.1-nano"
    code = main(["ingest", str(folder), "--model", "gpt-4.1-nano", "--db", str(path), "--data-dir", str(DEMO_ITEMS),
                 "--allow-partial"])
    assert code == 0, capsys.readouterr().err
    assert "imported 1 predictions" in capsys.readouterr().out
    con = connect(path, read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM predictions JOIN runs USING (run_id) "
                           "WHERE model_id = 'gpt-4.1-nano'").fetchone()[0] == 1
    finally:
        con.close()


def test_a_file_none_of_whose_rows_match_gets_the_same_hint(tmp_path, capsys):
    """No row matched and no summary: the reader's own "nothing to import" becomes the reason and the fix."""
    path = tmp_path / "answers.jsonl"
    path.write_text('{"task": "sentiment", "lang": "id", "item_id": "bhasa-sentiment-id-7", "prompt_lang": "en", '
                    '"prediction": "Positive"}\n', encoding="utf-8")
    code = main(["ingest", str(path), "--model", "m", "--db", str(tmp_path / "t.duckdb"), "--data-dir",
                 str(DEMO_ITEMS)])
    err = capsys.readouterr().err
    assert code == 2
    assert "no benchmark data here: 0 of 1 answer rows match one of the items in" in err and "data pull" in err


def _upload(*files: tuple[str, int, int]) -> Upload:
    return Upload("u.zip", "0" * 64, files=[FileReport(n, fmt, 1, rows, matched) for n, (fmt, rows, matched)
                                            in enumerate(files)])


@pytest.mark.parametrize("files,refused", [
    ([("native", 10, 4)], True),                       # 4 of 10 matched: mostly unmatched
    ([("native", 10, 5)], False),                      # half matched: accepted
    ([("lm-eval", 6, 0), ("lm-eval", 4, 4)], True),    # counted over the upload's files: 4 of 10
    ([("seahelm-summary", 57, 0)], False),             # a summary file holds scores, not answer rows
    ([("pacute-bench", 0, 0)], False),                 # nothing read: the reader's own error applies
])
def test_the_share_rule_counts_answer_rows_of_per_item_files(files, refused):
    up = _upload(*files)
    assert (coverage.refusal(up, DEMO_ITEMS) is not None) is refused


def test_the_items_are_named_by_what_they_are(tmp_path):
    assert "Tanaw's demo items" in coverage.items_version(DEMO_ITEMS)
    (tmp_path / "tanaw-pull.json").write_text('{"pulled_at": "2026-12-01T10:00:00+00:00"}')
    assert coverage.items_version(tmp_path) == f"{tmp_path} (benchmark data pulled 2026-12-01T10:00:00+00:00)"
    assert coverage.items_version("hf:org/items@abc123") == "the items of hf:org/items@abc123"
