"""Lone UTF-16 surrogates (`"\\udfff\\ud800"` escaped in JSON) are refused when a file is read, in every format:
`python -m evaluator ingest` exits 2 with `FILE:LINE: field: problem` and no traceback, and writes nothing."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from store import db
from tests.helpers import upload_files as U
from tests.helpers.fuzz_uploads import base_files, rows_of, summary_files

pytestmark = pytest.mark.needs_samples
REPO = Path(__file__).resolve().parents[2]
LONE = "\udfff\ud800"

ROW_FIELDS = {  # a file of each per-item format: the field of its second row given the surrogates, as errors name it
    "inferences/id/sentiment/m_sentiment_id.jsonl": (("responses", 0), "responses[0]"),
    "samples_xcopa_id_2026-03-01T10-00-00.jsonl": (("doc", "premise"), "doc.premise"),
    "pacute-affixation-gen.jsonl": (("response",), "response"),
    "native-preds.jsonl": (("prediction",), "prediction"),
}


def _set(value: dict, path: tuple, text: str) -> None:
    for key in path[:-1]:
        value = value[key]
    value[path[-1]] = text


def _ingest(path: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evaluator", "ingest", str(path), "--model", "m",
                           "--db", str(tmp_path / "s.duckdb"), "--data-dir", str(U.DATA)],
                          capture_output=True, text=True, cwd=REPO, timeout=300)


@pytest.mark.parametrize("name", sorted(ROW_FIELDS))
def test_cli_ingest_refuses_a_lone_surrogate_in_each_format(name, tmp_path):
    rows = rows_of(base_files()[name])
    where, field = ROW_FIELDS[name]
    _set(rows[1], where, LONE)
    path = tmp_path / Path(name).name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="ascii")
    assert "\\udfff\\ud800" in path.read_text()
    done = _ingest(path, tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"{path.name}:2: {field}: lone UTF-16 surrogate \\udfff is not a Unicode character" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    con = db.connect(tmp_path / "s.duckdb")
    assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == 0


def test_cli_ingest_refuses_a_lone_surrogate_in_a_summary_document(tmp_path):
    name = "results_2026-03-01T10-00-00.json"
    doc = json.loads(summary_files()[name])
    doc["config"]["model"] = "hf" + LONE
    path = tmp_path / name
    path.write_text(json.dumps(doc, indent=1), encoding="ascii")
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "\\udfff" in t)
    done = _ingest(path, tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"{name}:{line}: config.model: lone UTF-16 surrogate \\udfff" in done.stderr


def test_cli_refuses_an_undecodable_model_name_and_file_name(tmp_path):
    rows = rows_of(base_files()["native-preds.jsonl"])
    folder = tmp_path / "upload"
    folder.mkdir()
    Path(os.fsdecode(bytes(folder) + b"/native-\xff.jsonl")).write_bytes(U.jsonl(rows))  # not UTF-8
    Path(os.fsdecode(bytes(folder) + b"/nested-\xfe.zip")).write_bytes(b"PK")  # refused before it is read
    done = _ingest(folder, tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "native-\\udcff.jsonl: file name is not valid UTF-8; rename it" in done.stderr
    assert "nested-\\udcfe.zip: file name is not valid UTF-8; rename it" in done.stderr
    path = tmp_path / "native-preds.jsonl"
    path.write_bytes(U.jsonl(rows))
    done = subprocess.run([sys.executable, "-m", "evaluator", "ingest", str(path), "--model", "m" + "\udcff",
                           "--db", str(tmp_path / "s.duckdb"), "--data-dir", str(U.DATA)],
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.returncode == 2 and "error: --model: model_id: not valid UTF-8 text" in done.stderr, done.stderr
