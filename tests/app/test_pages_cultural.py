"""Cultural page and ratings ingest on the fixture store: responses side by side as text, rating summaries."""
from __future__ import annotations

import pytest

from services.campaigns import import_ratings
from store import db as store_db, ratings
from store.schema import row_counts
from tests.helpers.fixtures_store import UNSAFE_OUTPUT, app_test, fixture_db, pages_on


@pytest.fixture(scope="module")
def rated_db(tmp_path_factory):
    """A copy of the fixture store with two raters' scores for two Tamil probes."""
    path = tmp_path_factory.mktemp("cultural") / "rated.duckdb"
    path.write_bytes(fixture_db().read_bytes())
    csv = ("item,model,rater,lang,accuracy,sensitivity\n"
           "0,Gemma-2B,r1,ta,2,3\n0,Gemma-2B,r2,ta,4,\n0,Closed-XL,r1,ta,5,5\n1,Closed-XL,r2,ta,3,4\n")
    summary = import_ratings(path, csv, "ratings.csv", actor="test")  # the app's write path: figures stored too
    assert (summary.n_rows, summary.n_items, summary.n_models, summary.n_raters) == (7, 2, 2, 2)
    with pages_on(path):
        yield path


def test_responses_side_by_side_as_text(rated_db):
    at = app_test("cultural", lang="ta", item="0", models=["SeaLion-9B-it", "Gemma-2B", "Closed-XL"])
    assert not at.exception
    codes = [c.value for c in at.code]
    assert UNSAFE_OUTPUT in codes  # shown verbatim in a code block, never rendered
    assert not any("<script>" in m.value for m in at.markdown)
    assert any(c.startswith("ஒற்றுமையே பலம்") for c in codes)  # the Tamil probe as asked
    assert sum(c.startswith("Closed-XL explains:") for c in codes) == 1


def test_probe_from_the_url(rated_db):
    at = app_test("cultural", lang="ta", item="2", models=["Closed-XL"])
    assert not at.exception
    assert at.markdown[0].value.startswith("**Probe 2** · proverbs")
    assert any(c.startswith("Closed-XL explains: சிறு துளி பெரு வெள்ளம்") for c in (c.value for c in at.code))


def test_ratings_summary(rated_db):
    at = app_test("cultural", lang="ta", item="0", models=["Gemma-2B"])
    summary = next(d.value for d in at.dataframe if "criterion" in d.value.columns and "mean" in d.value.columns)
    s = summary.set_index(["model_id", "criterion"])
    assert s.loc[("Gemma-2B", "accuracy"), "mean"] == pytest.approx(3.0)
    assert s.loc[("Gemma-2B", "accuracy"), "ratings"] == 2
    assert s.loc[("Gemma-2B", "sensitivity"), "ratings"] == 1
    assert s.loc[("Closed-XL", "accuracy"), "mean"] == pytest.approx(4.0)
    assert s.loc[("Closed-XL", "accuracy"), "items"] == 2
    per_item = next(d.value for d in at.dataframe
                    if list(d.value.columns) == ["model_id", "rater", "criterion", "value"])
    assert len(per_item) == 5


def test_ratings_summary_is_the_evaluators(rated_db):
    # the stored results of the ratings campaign, as evaluator.human.results computes them from its judgements
    from evaluator.human import results
    from store import campaigns

    con = store_db.connect(rated_db)
    want = results.system_means(campaigns.judgements(con, "ratings-cultural-representation-ta"), "ratings")
    con.close()
    at = app_test("cultural", lang="ta", item="0", models=["Gemma-2B"])
    got = next(d.value for d in at.dataframe if "criterion" in d.value.columns and "mean" in d.value.columns)
    got = got.replace(float("-inf"), float("nan")).set_index(["model_id", "criterion"]).sort_index()
    want = want.set_index(["system", "criterion"]).sort_index()
    assert list(got.index) == list(want.index)
    for col, theirs in (("mean", "mean"), ("low", "low"), ("high", "high"), ("ratings", "n"), ("items", "items")):
        assert got[col].tolist() == pytest.approx(want[theirs].tolist(), nan_ok=True), col


@pytest.mark.parametrize("csv, where", [
    ("item,model,rater\n0,Gemma-2B,r1\n", "bad.csv:1: scores: no score column"),
    ("item,model,rater,lang,acc\n0,Gemma-2B,r1,ta,3\n0,Nope,r1,ta,2\n",
     "bad.csv:3: model: unknown model 'Nope'"),
    ("item,model,rater,lang,acc\n0,Gemma-2B,r1,ta,good\n", "bad.csv:2: acc: not a number: 'good'"),
    ("item,model,rater,acc\n0,Gemma-2B,r1,3\n", "bad.csv:2: item: item '0' is ambiguous in id, ta"),
    ("item,model,rater,lang,acc\n99,Gemma-2B,r1,ta,3\n", "bad.csv:2: item: no item '99' in cultural-representation/ta"),
    ("model,rater,acc\nGemma-2B,r1,3\n", "bad.csv:1: item: missing column"),
])
def test_bad_ratings_name_file_line_field_and_write_nothing(rated_db, csv, where):
    con = store_db.connect(rated_db)
    try:
        before = (row_counts(con), con.execute("SELECT count(*) FROM judgements").fetchone()[0])
        with pytest.raises(ratings.RatingsError) as err:
            ratings.ingest_ratings(con, csv, "bad.csv")
        assert str(err.value).startswith(where)
        assert (row_counts(con), con.execute("SELECT count(*) FROM judgements").fetchone()[0]) == before
    finally:
        con.close()


def test_reupload_replaces_scores(tmp_path):
    path = tmp_path / "again.duckdb"
    path.write_bytes(fixture_db().read_bytes())
    con = store_db.connect(path)
    try:
        ratings.ingest_ratings(con, "item,model,rater,lang,acc\n0,Gemma-2B,r1,ta,2\n", "a.csv")
        ratings.ingest_ratings(con, "item,model,rater,lang,acc\n0,Gemma-2B,r1,ta,4\n", "a.csv")
        assert con.execute("SELECT count(*), max(value) FROM judgements").fetchone() == (1, 4.0)
    finally:
        con.close()
