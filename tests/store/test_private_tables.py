"""Only public tables leave the store: `python -m evaluator export`, the Hub push (services.hub_sync) and a pull
carry store.schema.PUBLIC_TABLES and nothing else; every table of the schema is listed public or private."""
from __future__ import annotations

import json
from pathlib import Path

from cli.main import main
from services import hub_sync
from store import db
from store.parquet import _export_table, checksum, export_store, file_sha256, schema_tables
from store.schema import PRIVATE_TABLES, PUBLIC_TABLES, row_counts
from tests.helpers.hub_standin import HubStandin
from tests.helpers.store_fixture import filled_store

REPO = "tanaw/results"
CONTACT, ENDPOINT, BLIND, NOTE = "alice.submitter@example.org", "http://10.9.8.7:8000/v1", "sea-lion|native", \
    "annotator-comment-7f3a"
"""Values that only private tables hold: none may appear in any exported or pushed byte."""


def _with_private_rows(path: str = ":memory:"):
    con = filled_store(path)
    con.execute("INSERT INTO audit (actor, action, detail) VALUES ('web:admin', 'hide', ?)", [CONTACT])
    con.execute("INSERT INTO submissions (request_id, model_id, backend, base_url, api_key_env, submitter, status) "
                "VALUES ('r1', 'sea-lion', 'openai', ?, 'OPENAI_API_KEY', ?, 'PENDING')", [ENDPOINT, CONTACT])
    con.execute("INSERT INTO campaigns (campaign_id, task, lang, protocol) VALUES ('c1', 'qa', 'th', 'mt')")
    con.execute("INSERT INTO campaign_candidates VALUES ('c1', 'q0', 'k1', ?, 'candidate text')", [BLIND])
    con.execute("INSERT INTO campaign_assignments VALUES ('c1', 'ann', 0, 'q0', ['k1'], false)")
    con.execute("INSERT INTO judgements (campaign_id, annotator, seq, item_id, cand_id, criterion, value, note) "
                "VALUES ('c1', 'ann', 0, 'q0', 'k1', 'comment', NULL, ?)", [NOTE])
    con.execute("INSERT INTO campaign_tokens (campaign_id, annotator, token_hash) VALUES ('c1', 'ann', ?)", ["f" * 64])
    return con


def _leaks(files: dict[str, bytes]) -> list[str]:
    private = sorted({p.split("/")[0] for p in files} & (set(PRIVATE_TABLES) | {"notes"}))
    found = [v for v in (CONTACT, ENDPOINT, BLIND, NOTE) if any(v.encode() in b for b in files.values())]
    return private + found


def _folder(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_every_table_of_the_schema_is_listed_public_or_private():
    con = db.connect(":memory:")
    found = set(schema_tables(con))
    assert not set(PUBLIC_TABLES) & set(PRIVATE_TABLES)
    assert found - set(PUBLIC_TABLES) - set(PRIVATE_TABLES) == set(), "list each new table in store/schema.py"
    assert set(PUBLIC_TABLES) | set(PRIVATE_TABLES) == found  # no name listed that the schema lacks
    assert {"audit", "submissions", "judgements", "campaign_assignments", "campaign_candidates",
            "campaign_tokens", "ingests", "hub_sync"} <= set(PRIVATE_TABLES)


def test_export_cli_writes_only_public_tables(tmp_path, capsys):
    path = tmp_path / "s.duckdb"
    con = _with_private_rows(str(path))
    con.execute("CREATE TABLE notes (k VARCHAR)")  # a table nobody listed is private too
    con.execute("INSERT INTO notes VALUES (?)", [CONTACT])
    con.close()
    assert main(["export", str(tmp_path / "out"), "--db", str(path)]) == 0
    files = _folder(tmp_path / "out")
    manifest = json.loads(files["manifest.json"])
    assert set(manifest["tables"]) <= set(PUBLIC_TABLES) and "predictions" in manifest["tables"]
    assert _leaks(files) == []
    assert "audit" not in capsys.readouterr().out


def test_hub_push_publishes_only_public_tables(tmp_path, monkeypatch):
    path = tmp_path / "s.duckdb"
    _with_private_rows(str(path)).close()
    with HubStandin() as standin:
        standin.create_repo(REPO)
        for k, v in {"TANAW_RESULTS_REPO": REPO, "HF_TOKEN": "write-token", "HF_ENDPOINT": standin.url,
                     "TANAW_HOME": str(tmp_path / "home"), "TANAW_DB": str(path)}.items():
            monkeypatch.setenv(k, v)
        status = hub_sync.push_changes({"fingerprint": None})
        assert status is not None and status.ok, status and status.message
        files = standin.files(REPO)
    assert "runs/model_id=sea-lion/data_0.parquet" in files
    assert set(json.loads(files["manifest.json"])["tables"]) <= set(PUBLIC_TABLES)
    assert _leaks(files) == []


def _repo_with_private_tables(tmp_path: Path) -> dict[str, bytes]:
    """An export as an older Tanaw, or a co-writer, could push it: the public tables plus a queued request, an audit
    row and judgements, listed in the manifest with their true rows, checksums and file hashes."""
    root = tmp_path / "planted"
    export_store(filled_store(), root)
    evil = _with_private_rows()
    manifest = json.loads((root / "manifest.json").read_text())
    for table in ("submissions", "audit", "judgements", "campaign_candidates"):
        done = _export_table(evil, table, root)
        manifest["tables"][table] = {
            "rows": done.rows, "checksum": checksum(evil, table)[1], "partition_by": list(done.partition_by),
            "derived_partitions": done.derived, "files": {f.relative_to(root / table).as_posix(): file_sha256(f)
                                                          for f in (root / table).rglob("*.parquet")}}
    (root / "manifest.json").write_text(json.dumps(manifest))
    return _folder(root)


def test_pull_never_imports_private_tables_from_the_results_repo(tmp_path, monkeypatch):
    planted = _repo_with_private_tables(tmp_path)
    assert any(p.startswith("submissions/") for p in planted)
    path = tmp_path / "space.duckdb"
    db.connect(path).close()
    with HubStandin() as standin:
        standin.create_repo(REPO, planted)
        for k, v in {"TANAW_RESULTS_REPO": REPO, "HF_TOKEN": "write-token", "HF_ENDPOINT": standin.url,
                     "TANAW_HOME": str(tmp_path / "home"), "TANAW_DB": str(path)}.items():
            monkeypatch.setenv(k, v)
        status = hub_sync.pull({})
    assert status.ok, status.message
    con = db.connect(path)
    counts = row_counts(con)
    assert counts["predictions"] == 21
    assert counts["submissions"] == counts["judgements"] == counts["campaign_candidates"] == 0
    assert con.execute("SELECT count(*) FROM audit WHERE detail = ?", [CONTACT]).fetchone()[0] == 0


def test_import_cli_skips_private_tables(tmp_path):
    assert any(p.startswith("judgements/") for p in _repo_with_private_tables(tmp_path))
    path = tmp_path / "dst.duckdb"
    assert main(["import", str(tmp_path / "planted"), "--db", str(path)]) == 0
    con = db.connect(path)
    assert row_counts(con)["submissions"] == 0 and row_counts(con)["predictions"] == 21
