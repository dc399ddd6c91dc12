"""The Cultural page's ratings CSV is one kind of campaign result: a 'ratings' campaign per task and
language, raters as annotators, scores as judgements written by services.campaigns.import_ratings (locked, audited),
its results stored and shown on the Human evaluation page; migration V8 copies ratings stored before it."""
from __future__ import annotations

import duckdb
import krippendorff
import numpy as np
import pytest

from services import campaigns as svc
from services.ratings import save_ratings
from store import campaigns, db
from store.schema import ensure_schema
from tests.helpers.fixtures_store import app_test, fixture_db, pages_on
from tests.helpers.human_fixture import human_tables, schema_before_v7

CSV = ("item,model,rater,lang,accuracy,sensitivity\n"
       "0,Gemma-2B,r1,ta,2,3\n0,Gemma-2B,r2,ta,4,\n0,Closed-XL,r1,ta,5,5\n0,Closed-XL,r2,ta,3,4\n1,Closed-XL,r2,ta,3,4\n")


@pytest.fixture(scope="module")
def rated(tmp_path_factory):
    path = tmp_path_factory.mktemp("ratings_campaign") / "r.duckdb"
    path.write_bytes(fixture_db().read_bytes())
    summary = save_ratings(path, CSV, "ratings.csv", actor="rater:any")
    assert summary.campaigns == ("ratings-cultural-representation-ta",)
    return path


def test_ratings_are_a_finished_campaign_with_stored_results(rated):
    con = db.connect(rated)
    try:
        c = campaigns.campaign(con, "ratings-cultural-representation-ta")
        assert (c.protocol, c.status, c.task, c.lang, c.n_items) == ("ratings", "finished", "cultural-representation",
                                                                    "ta", 2)
        assert sorted(c.systems) == ["Closed-XL", "Gemma-2B"]
        j = campaigns.judgements(con, c.campaign_id)
        assert len(j) == 9 and set(j["annotator"]) == {"r1", "r2"}
        means = con.execute("SELECT system, criterion, value, n FROM campaign_results WHERE kind = 'mean' "
                            "ORDER BY ALL").fetchall()
        alpha = con.execute("SELECT value FROM campaign_results WHERE kind = 'alpha' AND criterion = 'accuracy'"
                            ).fetchone()[0]
        actions = [r[0] for r in con.execute("SELECT action FROM audit ORDER BY happened_at").fetchall()]
    finally:
        con.close()
    assert ("Closed-XL", "accuracy", pytest.approx(11 / 3), 3) in means and ("Gemma-2B", "accuracy", 3.0, 2) in means
    # units: item 0 × Gemma (2, 4) and item 0 × Closed (5, 3) are paired; item 1 × Closed has one rater
    data = np.array([[2, 5, np.nan], [4, 3, 3]], dtype=float)
    assert alpha == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="interval"))
    assert actions == ["ratings"]  # one audit row for the upload


def test_reupload_replaces_and_other_raters_rows_stay(rated):
    save_ratings(rated, "item,model,rater,lang,accuracy\n0,Gemma-2B,r1,ta,5\n1,Gemma-2B,r1,ta,1\n", "again.csv",
                 actor="rater:r1", rater="r1")
    con = db.connect(rated)
    try:
        j = campaigns.judgements(con, "ratings-cultural-representation-ta")
        assigned = campaigns.assignments(con, "ratings-cultural-representation-ta", "r1")
    finally:
        con.close()
    mine = j[(j["annotator"] == "r1") & (j["criterion"] == "accuracy") & (j["system"] == "Gemma-2B")]
    assert sorted(mine["value"]) == [1.0, 5.0] and len(j) == 10
    assert j[j["annotator"] == "r2"]["value"].tolist() == [4.0, 3.0, 4.0, 3.0, 4.0]
    assert [(a.seq, a.item_id, len(a.cand_order)) for a in assigned] == [(0, "0", 2), (1, "1", 1)]


def test_human_page_lists_the_ratings_campaign(rated):
    with pages_on(rated):
        at = app_test("human", campaign="ratings-cultural-representation-ta")
    assert not at.exception
    tables = human_tables(at)
    assert set(tables["systems"]["system"]) == {"Gemma-2B", "Closed-XL"}
    assert "accuracy" in set(tables["alpha"]["criterion"])


def test_campaign_ids_starting_with_ratings_are_reserved(rated):
    with pytest.raises(svc.CampaignRefused, match="ratings- names"):
        svc.create_campaign(rated, campaign_id="ratings-cultural-representation-ta", task="translation-en-xx",
                            lang="th", systems=[("Gemma-2B", "native")], annotators=["a"], n_items=2, k=1, seed=0)


def test_migration_v8_copies_ratings_stored_before_it():
    con = duckdb.connect(":memory:")
    schema_before_v7(con)
    con.executemany("INSERT INTO ratings (task, lang, item_id, model_id, rater, criterion, value) VALUES "
                    "('cultural-representation', 'ta', ?, ?, ?, ?, ?)",
                    [("0", "m/a", "r1", "acc", 2), ("0", "m/b", "r1", "acc", 4), ("1", "m/a", "r1", "acc", 5),
                     ("0", "m/a", "r2", "acc", 3)])
    assert ensure_schema(con) >= 8
    got = con.execute(f"SELECT item_id, model_id, rater, criterion, value FROM ({campaigns.RATINGS_SQL}) "
                      "ORDER BY ALL").fetchall()
    assert got == [("0", "m/a", "r1", "acc", 2), ("0", "m/a", "r2", "acc", 3), ("0", "m/b", "r1", "acc", 4),
                   ("1", "m/a", "r1", "acc", 5)]
    c = campaigns.campaign(con, "ratings-cultural-representation-ta")
    assert (c.protocol, c.status, c.n_items, sorted(c.systems)) == ("ratings", "finished", 2, ["m/a", "m/b"])
    assert [(a.seq, a.item_id) for a in campaigns.assignments(con, c.campaign_id, "r1")] == [(0, "0"), (1, "1")]
    assert campaigns.rated_cand_id("m/a") in campaigns.assignments(con, c.campaign_id, "r1")[0].cand_order
