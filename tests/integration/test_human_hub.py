"""Campaigns and their finished results travel with the Hub sync (services.hub_sync through a local stand-in of the
Hub); the blind key (which system wrote which candidate), the assignments, the judgements and the annotators' token
hashes never leave the store; `campaign export --format parquet` (the operator's own file) writes the judgements."""
from __future__ import annotations

import pandas as pd
import pytest

from cli.main import main
from services import campaigns as svc
from services import hub_sync
from store import campaigns, db
from store.human_results import stale_campaigns
from store.parquet import checksum
from tests.helpers.hub_standin import HubStandin
from tests.helpers.human_fixture import MODELS, human_store

REPO = "tanaw/results"
TRAVEL = ("campaigns", "campaign_results")
STAY = ("campaign_candidates", "campaign_assignments", "judgements", "campaign_tokens", "campaign_quality")


@pytest.fixture()
def standin():
    with HubStandin() as s:
        s.create_repo(REPO)
        yield s


def _env(monkeypatch, standin, path, home):
    monkeypatch.setenv("TANAW_RESULTS_REPO", REPO)
    monkeypatch.setenv("HF_TOKEN", "write-token")
    monkeypatch.setenv("HF_ENDPOINT", standin.url)
    monkeypatch.setenv("TANAW_HOME", str(home))
    monkeypatch.setenv("TANAW_DB", str(path))


def _judged_campaign(path) -> None:
    human_store(path)
    tokens = svc.create_campaign(path, campaign_id="mt", task="translation-en-xx", lang="th",
                                 systems=[(m, "native") for m in MODELS], annotators=["ann", "bo"], n_items=2, k=2,
                                 seed=4, n_repeats=0)
    con = db.connect(path)
    mine = {a: campaigns.assignments(con, "mt", a) for a in tokens}
    con.close()
    for name, token in tokens.items():
        for a in mine[name]:
            spans = {0: [{"start": 0, "end": 2, "severity": "major"}]}
            svc.submit_judgement(path, token, a.seq, {p: {"correct": 1, "esa": 60} for p in range(len(a.cand_order))},
                                 {0: "ok"}, spans=spans)
    svc.set_finished(path, "mt")


def test_campaign_results_travel_and_judgements_stay_home(standin, tmp_path, monkeypatch):
    src = tmp_path / "operator.duckdb"
    _judged_campaign(src)
    _env(monkeypatch, standin, src, tmp_path / "home-a")
    state: dict = {"fingerprint": None}
    status = hub_sync.push_changes(state)
    assert status is not None and status.ok, status and status.message
    files = standin.files(REPO)
    assert any(f.startswith("campaign_results/") for f in files)
    assert not any(f.split("/")[0] in STAY for f in files)

    dst = tmp_path / "space.duckdb"
    db.connect(dst).close()
    _env(monkeypatch, standin, dst, tmp_path / "home-b")
    assert hub_sync.pull({}).ok
    a, b = db.connect(src), db.connect(dst)
    try:
        for table in TRAVEL:
            assert checksum(b, table) == checksum(a, table) and checksum(a, table)[0] > 0, table
        for table in STAY:
            assert b.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table
            assert a.execute(f"SELECT count(*) FROM {table}").fetchone()[0] > 0, table
        assert stale_campaigns(b) == []  # recomputed from this store's own (no) judgements, final results kept
        assert checksum(b, "campaign_results") == checksum(a, "campaign_results")
    finally:
        a.close()
        b.close()


def test_parquet_export_holds_every_judgement(tmp_path):
    path = tmp_path / "h.duckdb"
    _judged_campaign(path)
    out = tmp_path / "mt.parquet"
    assert main(["campaign", "export", "--id", "mt", "--format", "parquet", "--out", str(out), "--db", str(path)]) == 0
    got = pd.read_parquet(out)
    con = db.connect(path)
    n = con.execute("SELECT count(*) FROM judgements WHERE campaign_id = 'mt'").fetchone()[0]
    con.close()
    assert len(got) == n and set(got["criterion"]) >= {"correct", "esa", "spans", "comment"}
    assert "token" not in " ".join(got.columns)
