"""The leaderboard's "human" column: present only for FINISHED campaigns, with n and interval, read from
the results stored when `campaign finish` ran (computed once by evaluator.human.results)."""
from __future__ import annotations

import json

import pytest
from scipy import stats

from cli.main import main
from services import campaigns as svc
from store import campaigns, db
from tests.helpers.fixtures_store import app_test, fixture_db, pages_on

SYSTEMS = [("SeaLion-9B-it", "native"), ("Closed-XL", "native")]
NAMES = ["ann", "bo", "cy"]
N_ITEMS = 4


def _add_translations(path) -> None:
    """Thai en→xx items answered by two fixture models with the native prompt (made-up text)."""
    con = db.connect(path)
    for n in range(N_ITEMS):
        con.execute("INSERT INTO items (task, lang, item_id, inputs, gold) VALUES ('translation-en-xx', 'th', ?, ?, ?)",
                    [f"t{n}", json.dumps({"text": f"sentence {n}"}), json.dumps(f"ประโยค {n}", ensure_ascii=False)])
    for m, _ in SYSTEMS:
        run = f"human-{m}"
        con.execute("INSERT INTO runs (run_id, model_id, task, lang, prompt_lang, source) "
                    "VALUES (?, ?, 'translation-en-xx', 'th', 'native', 'evaluated')", [run, m])
        for n in range(N_ITEMS):
            con.execute("INSERT INTO predictions (run_id, item_id, output, answer) VALUES (?, ?, 'raw', ?)",
                        [run, f"t{n}", f"คำแปล {m} {n}"])
    con.close()


def _verdict(system: str, item: str, annotator: str) -> tuple[int, float]:
    """(correct, ESA) by a fixed rule: SeaLion always right (ESA 80/90/70), Closed-XL right on t0 and t1 only."""
    esa = {"ann": 80.0, "bo": 90.0, "cy": 70.0}[annotator]
    if system.startswith("Closed-XL"):
        return int(item in ("t0", "t1")), esa - 40
    return 1, esa


def _judge_all(path, tokens) -> None:
    con = db.connect(path)
    systems = dict(con.execute("SELECT cand_id, system FROM campaign_candidates").fetchall())
    mine = {a: campaigns.assignments(con, "mt-th", a) for a in NAMES}
    con.close()
    for name in NAMES:
        for a in mine[name]:
            values = {}
            for pos, cid in enumerate(a.cand_order):
                ok, esa = _verdict(systems[cid], a.item_id, name)
                values[pos] = {"correct": ok, "esa": esa}
            svc.submit_judgement(path, tokens[name], a.seq, values)


@pytest.fixture(scope="module")
def board_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("human_board") / "board.duckdb"
    path.write_bytes(fixture_db().read_bytes())
    _add_translations(path)
    tokens = svc.create_campaign(path, campaign_id="mt-th", task="translation-en-xx", lang="th", systems=SYSTEMS,
                                 annotators=NAMES, n_items=N_ITEMS, k=3, seed=5, n_repeats=0)
    _judge_all(path, tokens)
    return path


def _board(path):
    with pages_on(path):
        at = app_test("leaderboard", bench="BHASA", prompt="Native")
    assert not at.exception
    return next(d.value for d in at.dataframe if "rank range" in d.value.columns)


def test_human_column_only_after_finish(board_db):
    board = _board(board_db)  # judged but not finished: no column
    assert "human" not in board.columns
    assert main(["campaign", "finish", "--id", "mt-th", "--db", str(board_db)]) == 0
    board = _board(board_db)
    cols = list(board.columns)
    assert cols[cols.index("model") + 1] == "human"
    human = board.set_index("model")["human"]
    # SeaLion: 4 of 4 items, 12 of 12 judgements correct (Wilson 12/12), ESA mean 80 (80, 90, 70 per item)
    ci = stats.binomtest(12, 12).proportion_ci(0.95, method="wilson")
    assert human["SeaLion-9B-it"].startswith(f"th translation-en-xx: 4 of 4 correct, 100% [{ci.low * 100:.0f}–100] "
                                             "of n=12, ESA 80.0 [")
    esa = stats.t.interval(0.95, 11, loc=80, scale=stats.sem([80, 90, 70] * 4))
    assert f"ESA 80.0 [{esa[0]:.1f}–{esa[1]:.1f}] n=12" in human["SeaLion-9B-it"]
    # Closed-XL: 2 of 4 items, 6 of 12 judgements; the board's third model has no campaign
    ci = stats.binomtest(6, 12).proportion_ci(0.95, method="wilson")
    assert human["Closed-XL"].startswith(f"th translation-en-xx: 2 of 4 correct, 50% [{ci.low * 100:.0f}–"
                                         f"{ci.high * 100:.0f}] of n=12, ESA 40.0")
    assert human["Gemma-2B"] == "—"
    con = db.connect(board_db)
    stored = con.execute("SELECT count(*) FROM campaign_results WHERE campaign_id = 'mt-th' AND kind = 'mean'"
                         ).fetchone()[0]
    con.close()
    assert stored > 0


def test_human_page_shows_the_mean_esa_score_with_its_interval(board_db):
    assert main(["campaign", "finish", "--id", "mt-th", "--db", str(board_db)]) == 0
    with pages_on(board_db):
        at = app_test("human", campaign="mt-th")
    assert not at.exception and "ESA score" in [h.value for h in at.subheader]
    esa = next(d.value for d in at.dataframe if list(d.value.columns)[:4] == ["system", "mean", "low", "high"])
    row = esa.set_index("system").loc["SeaLion-9B-it|native"]
    low, high = stats.t.interval(0.95, 11, loc=80, scale=stats.sem([80, 90, 70] * 4))
    assert (row["mean"], row["n"]) == (pytest.approx(80.0), 12)
    assert (row["low"], row["high"]) == (pytest.approx(low), pytest.approx(high))


def test_reopened_campaign_leaves_the_board(board_db):
    assert main(["campaign", "finish", "--id", "mt-th", "--db", str(board_db)]) == 0
    assert main(["campaign", "finish", "--id", "mt-th", "--reopen", "--db", str(board_db)]) == 0
    assert "human" not in _board(board_db).columns
    con = db.connect(board_db)
    assert con.execute("SELECT count(*) FROM campaign_results").fetchone()[0] == 0
    con.close()


def test_summarisation_cell_shows_criterion_means_with_intervals():
    import pandas as pd

    from pages._board_human import _cell

    rows = pd.DataFrame([
        {"lang": "ta", "task": "abssum", "protocol": "summarisation", "criterion": c, "value": v, "low": lo,
         "high": hi, "n": 9, "items": 3, "correct": None}
        for c, v, lo, hi in [("coherence", 3.5, 3.0, 4.0), ("faithfulness", 2 / 3, 0.35, 0.88),
                             ("fluency", 4.0, 4.0, 4.0), ("relevance", 3.25, float("nan"), float("nan"))]])
    assert _cell(rows) == ("ta abssum: coherence 3.5 [3.0–4.0], faithful 66.7% [35.0–88.0], fluency 4.0 [4.0–4.0], "
                           "relevance 3.2, n=9")
