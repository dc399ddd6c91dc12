"""Campaign results (evaluator.human.results) on hand-made judgements, and the Human evaluation page (AppTest)."""
from __future__ import annotations

import json

import duckdb
import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evaluator.human import results
from services import campaigns as svc
from store import campaigns, db
from store.queries import human as human_queries
from tests.helpers.fixtures_store import app_test, pages_on
from tests.helpers.human_fixture import MODELS, human_store, human_tables, schema_before_v7


def _j(rows):
    """Judgement frame from (annotator, item, system, value[, is_repeat]) for criterion `correct`."""
    out = [{"annotator": a, "seq": 0, "item_id": i, "cand_id": f"{i}-{s}", "system": s, "criterion": "correct",
            "value": float(v), "is_repeat": rep[0] if rep else False, "note": None} for a, i, s, v, *rep in rows]
    return pd.DataFrame(out)


# three annotators, two systems, three items; two repeats (x changes its mind, y not) and a corrupted candidate
ROWS = [(a, i, s, v) for a, marks in {"x": "110101", "y": "110100", "z": "100111"}.items()
        for (i, s), v in zip([(i, s) for i in ("i1", "i2", "i3") for s in ("A", "B")], marks)]
ROWS += [("x", "i1", "A", 0, True), ("y", "i1", "A", 1, True), ("x", "i2", "corrupted", 0), ("y", "i2", "corrupted", 1)]


def test_system_means_correct_out_of_n_and_intervals():
    # by hand, marks in order i1A i1B i2A i2B i3A i3B: A = x 1,0,0  y 1,0,0  z 1,0,1 -> 4 of 9, majority 1 of 3 items;
    # B = x 1,1,1  y 1,1,0  z 0,1,1 -> 7 of 9, majority 3 of 3; repeats and the corrupted candidate do not count
    m = results.system_means(_j(ROWS), "mt").set_index("system")
    assert m.loc["A", "mean"] == pytest.approx(4 / 9) and m.loc["A", "n"] == 9 and "corrupted" not in m.index
    ci = stats.binomtest(4, 9).proportion_ci(0.95, method="wilson")
    assert (m.loc["A", "low"], m.loc["A", "high"]) == (pytest.approx(ci.low), pytest.approx(ci.high))
    assert m.loc["A", "correct_of_n"] == "1 of 3"
    assert m.loc["B", "mean"] == pytest.approx(7 / 9) and m.loc["B", "correct_of_n"] == "3 of 3"


def test_alpha_matches_krippendorff_and_quality_checks():
    j = _j(ROWS)
    got = results.alphas(j, "mt").set_index("criterion").loc["correct"]
    units = sorted({(i, s) for _, i, s, *_ in ROWS if s != "corrupted"})
    first = [r for r in ROWS if len(r) == 4 and r[2] != "corrupted"]
    data = np.array([[next((v for a2, i, s, v in first if a2 == a and (i, s) == u), np.nan) for u in units]
                     for a in "xyz"], dtype=float)
    assert got["alpha"] == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    assert got["units"] == 6
    qc = results.quality(j, "mt").set_index("annotator")
    assert qc.loc["x", "repeat_agreement"] == 0.0 and qc.loc["y", "repeat_agreement"] == 1.0
    assert qc.loc["x", "caught_corrupted"] is True and qc.loc["y", "caught_corrupted"] is False
    assert qc.loc["z", "caught_corrupted"] is None


def test_complete_disagreement_gives_negative_alpha_from_the_package():
    rows = [(a, f"i{n}", "A", (n + (a == "y")) % 2) for a in "xy" for n in range(6)]
    got = results.alphas(_j(rows), "mt")["alpha"].item()
    data = np.array([[(n + (a == "y")) % 2 for n in range(6)] for a in "xy"], dtype=float)
    assert got == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    assert got < 0


def test_metric_agreement_item_and_system_tau_equal_scipy():
    j = _j([(a, f"i{n}", s, int(s == "A" or n % 2)) for a in "xy" for n in range(4) for s in "AB"])
    metrics = pd.DataFrame([{"item_id": f"i{n}", "system": s, "metric": "chrf", "value": 50 + n + 10 * (s == "A")}
                            for n in range(4) for s in "AB"])
    got = results.metric_agreement(j, metrics, "mt", n_boot=100).set_index("level")
    keys = [(f"i{n}", s) for n in range(4) for s in "AB"]
    human = {k: float(k[1] == "A" or int(k[0][1]) % 2) for k in keys}
    metric = {k: 50 + int(k[0][1]) + 10 * (k[1] == "A") for k in keys}
    ks = sorted(keys)
    assert got.loc["item", "tau"] == pytest.approx(stats.kendalltau([human[k] for k in ks],
                                                                    [metric[k] for k in ks]).statistic)
    assert got.loc["system", "tau"] == pytest.approx(1.0) and got.loc["system", "n"] == 2


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    path = tmp_path_factory.mktemp("human") / "h.duckdb"
    human_store(path)
    tokens = svc.create_campaign(path, campaign_id="mt", task="translation-en-xx", lang="th",
                                 systems=[(m, "native") for m in MODELS], annotators=["ann", "bo", "cy"],
                                 n_items=3, k=3, seed=1, n_repeats=1)
    con = db.connect(path)
    for name, token in tokens.items():
        for a in campaigns.assignments(con, "mt", name):
            svc.submit_judgement(path, token, a.seq, {p: {"correct": float(p % 2)} for p in range(len(a.cand_order))})
    con.close()  # the store holds the papers' reported rows, the human ones among them (services.reported)
    svc.set_finished(path, "mt")
    with pages_on(path):
        yield path


def test_human_page_shows_results_beside_reported_rows(finished):
    at = app_test("human", campaign="mt")
    assert not at.exception
    tables = human_tables(at)
    systems = tables["systems"]
    assert set(systems["system"]) == {f"{m}|native" for m in MODELS} | {"reference"}
    assert "alpha" in tables["alpha"].columns and "tau" in tables["tau"].columns
    reported = tables["reported"]
    assert "mean" not in reported.columns  # its own table, not ranked
    thai = reported[(reported["task"] == "translation-en-xx") & (reported["lang"] == "th")]
    assert sorted(zip(thai["system"], thai["prompt_lang"], thai["value"])) == [  # data/reported_results.csv
        ("gpt-3.5-turbo-0301", "en", 7.3), ("gpt-3.5-turbo-0301", "native", 6.3), ("gpt-4-0314", "en", 6.7),
        ("gpt-4-0314", "native", 8.3), ("reference", "n/a", 14.3)]


def test_alpha_per_language_across_campaigns_matches_krippendorff():
    # two Thai MT campaigns and one Tamil one; units of different campaigns never merge even with equal ids
    def rows(cid, lang, marks):
        return [{"campaign_id": cid, "lang": lang, "protocol": "mt", "annotator": a, "seq": 0, "item_id": f"i{n}",
                 "cand_id": "c", "system": "A", "criterion": "correct", "value": float(v), "is_repeat": False,
                 "note": None} for a, ms in marks.items() for n, v in enumerate(ms)]
    j = pd.DataFrame(rows("c1", "th", {"x": "1100", "y": "1101"}) + rows("c2", "th", {"x": "10", "z": "01"})
                     + rows("c3", "ta", {"x": "0101", "y": "1010"}))
    got = results.alphas_by_language(j).set_index(["lang", "criterion"])
    nan = np.nan
    th = np.array([[1, 1, 0, 0, 1, 0], [1, 1, 0, 1, nan, nan], [nan, nan, nan, nan, 0, 1]], dtype=float)
    assert got.loc[("th", "correct"), "alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=th, level_of_measurement="nominal"))
    assert got.loc[("th", "correct"), "campaigns"] == 2 and got.loc[("th", "correct"), "units"] == 6
    ta = np.array([[0, 1, 0, 1], [1, 0, 1, 0]], dtype=float)  # complete disagreement
    assert got.loc[("ta", "correct"), "alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=ta, level_of_measurement="nominal"))
    assert got.loc[("ta", "correct"), "alpha"] < 0


def test_finished_campaign_page_reads_stored_results(finished):
    con = db.connect(finished)
    stored = con.execute("SELECT kind, count(*) FROM campaign_results WHERE campaign_id = 'mt' GROUP BY kind "
                         "ORDER BY kind").fetchall()
    con.close()
    assert dict(stored).keys() >= {"mean", "alpha", "tau"}
    at = app_test("human", campaign="mt")
    assert not at.exception and not any("provisional" in w.value for w in at.warning)
    by_lang = human_tables(at)["by_language"]
    assert by_lang[["protocol", "lang"]].drop_duplicates().values.tolist() == [["mt", "th"]]


RATED = ("item,model,rater,task,lang,adequacy\n"
         + "".join(f"translation-en-xx-{n},{m},{r},translation-en-xx,th,{(n * 3 + len(r) * 2 + k) % 5 + 1}\n"
                   for n in range(3) for k, m in enumerate(MODELS) for r in ("ra", "rbb")))


def _judge(path, cid: str, tokens: dict[str, str], upto: int | None = None) -> None:
    """Every annotator judges their items (the first `upto` of them), values varying by annotator and position."""
    con = db.connect(path)
    mine = {name: campaigns.assignments(con, cid, name) for name in tokens}
    con.close()
    for a_no, (name, token) in enumerate(tokens.items()):
        for a in mine[name][:upto]:
            n = len(a.cand_order)
            if cid != "sum":
                values = {p: {"correct": float((a.seq + p + a_no) % 3 > 0), "esa": float(10 * p + 7 * a_no + a.seq)}
                          for p in range(n)}
            else:
                values = {p: {"relevance": 1 + (p + a_no + a.seq) % 5, "fluency": 1 + (2 * p + a_no) % 5,
                              "coherence": 1 + (p * a.seq) % 5, "faithfulness": float((p + a_no) % 2)}
                          for p in range(n)}
            svc.submit_judgement(path, token, a.seq, values)


@pytest.fixture(scope="module")
def three_kinds(tmp_path_factory):
    """A finished MT campaign, an open summarisation campaign judged half-way, an imported ratings campaign, and a
    second (open) Thai MT campaign, so that alpha per language spans two campaigns."""
    path = tmp_path_factory.mktemp("human_numbers") / "h.duckdb"
    human_store(path)
    systems = [(m, "native") for m in MODELS]
    mt = svc.create_campaign(path, campaign_id="mt2", task="translation-en-xx", lang="th", systems=systems,
                             annotators=["ann", "bo", "cy"], n_items=4, k=3, seed=5, n_repeats=1)
    _judge(path, "mt2", mt)
    svc.set_finished(path, "mt2")
    summ = svc.create_campaign(path, campaign_id="sum", task="abssum", lang="ta", systems=systems,
                               annotators=["dee", "eli"], n_items=4, k=2, seed=3, n_repeats=1)
    _judge(path, "sum", summ, upto=3)
    mt3 = svc.create_campaign(path, campaign_id="mt3", task="translation-en-xx", lang="th", systems=systems,
                              annotators=["ann", "fay"], n_items=3, k=2, seed=9, n_repeats=0)
    _judge(path, "mt3", mt3, upto=2)
    svc.import_ratings(path, RATED, "rated.csv", actor="test")
    with pages_on(path):
        yield path


def _same(shown: pd.DataFrame, want: pd.DataFrame, keys: list[str]) -> None:
    """The page's table equals the evaluator's frame (same columns, rows in key order, NaN where NaN: the page
    draws a missing figure as "—", which its grid holds as -inf so that the column still sorts as numbers)."""
    got = shown[list(want.columns)].replace(-np.inf, np.nan).sort_values(keys).reset_index(drop=True)
    want = want.sort_values(keys).reset_index(drop=True)
    assert len(got) == len(want) and len(got)
    pd.testing.assert_frame_equal(got.astype(object).where(got.notna(), None),
                                  want.astype(object).where(want.notna(), None), check_dtype=False, atol=1e-12)


@pytest.mark.parametrize("cid", ["mt2", "sum", "ratings-translation-en-xx-th"])
def test_human_page_numbers_are_the_evaluators(three_kinds, cid):
    con = db.connect(three_kinds)
    c = campaigns.campaign(con, cid)
    j = campaigns.judgements(con, cid)
    everything = campaigns.judgements(con, None)
    metrics = human_queries.campaign_metric_scores(con, campaign_id=cid)
    con.close()
    at = app_test("human", campaign=cid)
    assert not at.exception
    assert any("provisional" in w.value for w in at.warning) == (c.status == "open")
    tables = human_tables(at)
    means = results.system_means(j, c.protocol)
    _same(tables["systems"], means.assign(correct_of_n=means["correct_of_n"].fillna("—")), ["system", "criterion"])
    points = [t for chart in at.get("plotly_chart") for t in json.loads(chart.proto.spec)["data"]
              if t.get("type") == "scatter" and t.get("error_x")]
    assert points and all("95% CI %{customdata[0]:.3g}-%{customdata[1]:.3g}" in t["hovertemplate"] for t in points)
    _same(tables["alpha"], results.alphas(j, c.protocol)[["criterion", "level", "alpha", "units"]], ["criterion"])
    _same(tables["quality"], results.quality(j, c.protocol), ["annotator"])
    _same(tables["by_language"], results.alphas_by_language(everything), ["protocol", "lang", "criterion"])
    if c.protocol == "ratings":
        assert "tau" not in tables and metrics.empty
        return
    final = results.metric_agreement(j, metrics, c.protocol, seed=c.seed, n_boot=1000)
    if c.status == "finished":
        _same(tables["tau"], final, ["metric", "level"])
    else:  # provisional: the same tau, its interval waits for `campaign finish`
        _same(tables["tau"], final.assign(low=float("nan"), high=float("nan")), ["metric", "level"])
        assert tables["tau"]["low"].eq(-np.inf).all()  # drawn as "—"


def test_ratings_copied_by_v8_get_their_figures_at_start(tmp_path):
    from services.startup import prepare_store

    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    schema_before_v7(con)
    con.execute("INSERT INTO models (model_id, origin) VALUES ('m/a', 'evaluated')")
    con.executemany("INSERT INTO ratings (task, lang, item_id, model_id, rater, criterion, value) VALUES "
                    "('cultural-representation', 'ta', ?, ?, ?, 'acc', ?)",
                    [("0", "m/a", "r1", 2), ("0", "m/b", "r1", 4), ("1", "m/a", "r1", 5), ("0", "m/a", "r2", 3),
                     ("0", "m/b", "r2", 5)])
    con.close()
    con = db.connect(path)  # V7-V9 applied: V8 copies the ratings as a campaign, V9 has no figures for it yet
    assert con.execute("SELECT count(*) FROM campaign_results").fetchone()[0] == 0
    prepare_store(con, path, drain=False)
    j = campaigns.judgements(con, "ratings-cultural-representation-ta")
    con.close()
    with pages_on(path):
        at = app_test("human", campaign="ratings-cultural-representation-ta")
    assert not at.exception
    tables = human_tables(at)
    _same(tables["systems"], results.system_means(j, "ratings").assign(correct_of_n="—"), ["system", "criterion"])
    _same(tables["alpha"], results.alphas(j, "ratings")[["criterion", "level", "alpha", "units"]], ["criterion"])
