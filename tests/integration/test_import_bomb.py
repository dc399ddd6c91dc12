"""A Parquet decode bomb in an export or the results repo (a 0.05 MB file of 2,000,000 copies of one 1,000-character
value, 2 GB decoded) is refused before anything is materialised: `python -m evaluator import` in a child process
stays under 400 MB peak RSS and says why; a file whose bytes differ from the manifest's sha256 is refused before it
is decoded."""
from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from store.parquet import export_store, file_sha256
from store.reference import REPORTED_CSV
from tests.helpers.store_fixture import filled_store

ROWS = 2_000_000
PEAK_MB = 400


def _arrow_bomb(target: Path) -> None:
    """The same bomb written by pyarrow with its own Arrow schema declaring the text `large_string` (64-bit
    offsets) and already dictionary-encoded."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    one = pa.DictionaryArray.from_arrays(pa.array([0] * ROWS, pa.int32()), pa.array(["x" * 1000], pa.large_string()))
    text = {c: pa.array([v] * ROWS, pa.string()) for c, v in (
        ("source", "src"), ("citation", None), ("task", "qa"), ("lang", "th"), ("metric", "f1"),
        ("paper_metric", None), ("system", "x"), ("prompt_lang", "en"))}
    pq.write_table(pa.table({**text, "value": pa.array([1.0] * ROWS), "note": one}), target, compression="zstd")


def _plain_bomb(target: Path) -> None:
    """The same rows without a dictionary: plain pages that zstd packs to a few hundred kB, whose footer declares
    their 2 GB."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    note = pa.array(["x" * 1000]).take(pa.array([0] * ROWS))
    text = {c: pa.array([v] * ROWS, pa.string()) for c, v in (
        ("source", "src"), ("citation", None), ("task", "qa"), ("lang", "th"), ("metric", "f1"),
        ("paper_metric", None), ("system", "x"), ("prompt_lang", "en"))}
    pq.write_table(pa.table({**text, "value": pa.array([1.0] * ROWS), "note": note}), target, compression="zstd",
                   use_dictionary=False, row_group_size=ROWS)


def _bomb_export(root: Path, writer: str = "duckdb") -> Path:
    """An export whose `reported` table is the bomb, listed in the manifest with its true row count and sha256."""
    export_store(filled_store(), root)
    shutil.rmtree(root / "reported")
    (root / "reported").mkdir()
    target = root / "reported" / "data_0.parquet"
    if writer == "pyarrow":
        _arrow_bomb(target)
    elif writer == "plain":
        _plain_bomb(target)
    else:
        duckdb.connect().execute(
            f"COPY (SELECT 'src' AS source, NULL::VARCHAR AS citation, 'qa' AS task, 'th' AS lang, 'f1' AS metric, "
            f"NULL::VARCHAR AS paper_metric, 'x' AS system, 'en' AS prompt_lang, 1.0::DOUBLE AS value, "
            f"repeat('x', 1000) AS note FROM range({ROWS})) TO '{target}' (FORMAT parquet, COMPRESSION zstd)")
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["tables"]["reported"].update(rows=ROWS, partition_by=[], files={"data_0.parquet": file_sha256(target)})
    (root / "manifest.json").write_text(json.dumps(manifest))
    return target


CLI = """
import atexit, re, runpy, sys
def peak(out=sys.argv[1]):  # VmHWM: the child's own peak (ru_maxrss survives exec: it counts the forking test)
    hwm = re.search(r"VmHWM:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1)
    open(out, "w").write(hwm)
atexit.register(peak)
sys.argv = ["evaluator", *sys.argv[2:]]
runpy.run_module("evaluator", run_name="__main__")
"""


def _import(src: Path, db_path: Path, tmp_path: Path) -> tuple[int, str, float]:
    """(exit code, stderr, peak RSS in MB) of `python -m evaluator import SRC` in a child process."""
    if not Path("/proc/self/status").exists():
        pytest.skip("peak RSS is read from /proc/self/status (Linux)")
    peak = tmp_path / "peak.txt"
    done = subprocess.run([sys.executable, "-c", CLI, str(peak), "import", str(src), "--db", str(db_path)],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2], timeout=600)
    return done.returncode, done.stderr, int(peak.read_text()) / 1024


@pytest.mark.parametrize("writer", ["duckdb", "pyarrow", "plain"])
def test_a_decode_bomb_is_refused_before_it_is_materialised(tmp_path, writer):
    target = _bomb_export(tmp_path / "x", writer)
    assert target.stat().st_size < 4 * 1024 ** 2  # 0.05 MB from DuckDB, 0.3 MB and 2.2 MB (plain) from pyarrow
    code, err, peak = _import(tmp_path / "x", tmp_path / "dst.duckdb", tmp_path)
    assert code == 1, err
    assert "decode to more than" in err and "MB by this one" in err and "nothing was imported" in err, err
    assert "Traceback" not in err
    assert peak < PEAK_MB, f"peak RSS {peak:.0f} MB"
    con = duckdb.connect(str(tmp_path / "dst.duckdb"))
    with REPORTED_CSV.open(encoding="utf-8", newline="") as f:  # a store is created with the papers' rows only
        assert con.execute("SELECT count(*) FROM reported").fetchone()[0] == len(list(csv.DictReader(f)))
    assert con.execute("SELECT count(*) FROM predictions").fetchone()[0] == 0


def test_a_file_that_differs_from_the_manifest_sha256_is_not_decoded(tmp_path):
    target = _bomb_export(tmp_path / "x")
    manifest = json.loads((tmp_path / "x" / "manifest.json").read_text())
    manifest["tables"]["reported"]["files"]["data_0.parquet"] = "0" * 64
    (tmp_path / "x" / "manifest.json").write_text(json.dumps(manifest))
    code, err, peak = _import(tmp_path / "x", tmp_path / "dst.duckdb", tmp_path)
    assert code == 1 and f"{target}: sha256 differs from the manifest's; nothing was read" in err, err
    assert peak < PEAK_MB


def test_a_file_missing_from_the_manifest_list_is_refused(tmp_path):
    export_store(filled_store(), tmp_path / "x")
    runs = tmp_path / "x" / "runs" / "model_id=sea-lion"
    (runs / "data_1.parquet").write_bytes((runs / "data_0.parquet").read_bytes())
    code, err, _ = _import(tmp_path / "x", tmp_path / "dst.duckdb", tmp_path)
    assert code == 1 and "['model_id=sea-lion/data_1.parquet'] are not in the manifest's list" in err, err


def test_a_parquet_store_refuses_the_bomb_before_loading_it(tmp_path):
    """TANAW_PARQUET (store.scale) loads the small tables into memory: the same checks run first."""
    from store.parquet import ParquetStoreError
    from store.scale import connect_parquet

    target = _bomb_export(tmp_path / "x")
    with pytest.raises(ParquetStoreError, match=f"{target}: the import's files decode to more than 64 MB"):
        connect_parquet(tmp_path / "x")
    manifest = json.loads((tmp_path / "x" / "manifest.json").read_text())
    manifest["tables"]["reported"]["files"]["data_0.parquet"] = "0" * 64
    (tmp_path / "x" / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ParquetStoreError, match="sha256 differs from the manifest's; nothing was read"):
        connect_parquet(tmp_path / "x")


def test_a_hub_pull_of_the_bomb_keeps_the_last_good_data(tmp_path):
    """The results repo holding the bomb (pushed by a co-writer): the pull fails closed, the store unchanged."""
    from store import db, hub
    from tests.helpers.hub_standin import HubStandin

    _bomb_export(tmp_path / "x")
    files = {p.relative_to(tmp_path / "x").as_posix(): p.read_bytes() for p in (tmp_path / "x").rglob("*")
             if p.is_file()}
    con = db.connect(":memory:")
    con.execute("INSERT INTO models (model_id, origin) VALUES ('last-good', 'demo')")
    with HubStandin() as standin:
        standin.create_repo("tanaw/results", files)
        status = hub.pull(con, hub.HubConfig("tanaw/results", "read-token", standin.url, work_dir=tmp_path / "hub"))
    assert not status.ok and "serving the last good data" in status.message
    assert con.execute("SELECT model_id FROM models").fetchall() == [("last-good",)]
    assert con.execute("SELECT count(*) FROM reported").fetchone()[0] == 0
    last = con.execute("SELECT message FROM hub_sync ORDER BY rowid DESC LIMIT 1").fetchone()[0]
    assert "decode to more than 64 MB" in last, last
