"""The LLM judge against a stand-in judge with scripted answers: pairwise in both orders with a tie when they
disagree, single-answer ratings, the cache (a second pass sends nothing), what is stored with every judgement, the
endpoint policy, and the judge-human Kendall's tau of a finished campaign (equal to scipy's on the same pairs)."""
from __future__ import annotations

import json

import pytest
from scipy import stats

from evaluator.endpoints import EndpointRefused
from evaluator.judge import verdicts
from evaluator.judge.client import JudgeClient, JudgeConfig
from evaluator.judge.templates import pick, templates
from services.judge import judge_cell, judge_view
from store.db import connect
from tests.helpers.chat_store import LANG, MODELS, TASK, answer, chat_store
from tests.helpers.standin_server import StandinServer

LOCAL = {"TANAW_ALLOW_PRIVATE_ENDPOINTS": "1"}


def _cfg(url: str, **kw) -> JudgeConfig:
    return JudgeConfig(model="standin-judge", base_url=url, temperature=0.0, max_tokens=64, price_in=2.0,
                       price_out=8.0, **kw)


@pytest.fixture()
def con(tmp_path):
    chat_store(tmp_path / "chat.duckdb")
    con = connect(tmp_path / "chat.duckdb")
    yield con
    con.close()


def test_pairwise_asks_both_orders_and_a_disagreement_is_a_tie(con):
    with StandinServer(reply=lambda prompt: "Assistant A is better. [[A]]") as server:
        summary = judge_cell(con, _cfg(server.base_url), TASK, LANG, "pairwise", models=[MODELS[0]],
                             client=JudgeClient(_cfg(server.base_url), env=LOCAL))
        first = server.requests
    # 3 conversations x 2 turns x 2 orders
    assert first == 12 and summary.sent == 12 and summary.turns == 6 and summary.cached == 0
    # each turn was shown once with the model as assistant A and once as assistant B
    users = [b["messages"][1]["content"] for b in server.bodies]
    mine, ref = answer(MODELS[0], "1", 1), "Ref satu."
    a_first = [u for u in users if u.startswith("[User Question]\nTulis pantun") and
               u.index(mine) < u.index(ref)]
    b_first = [u for u in users if u.startswith("[User Question]\nTulis pantun") and
               u.index(ref) < u.index(mine)]
    assert len(a_first) == len(b_first) == 1
    # "[[A]]" in both orders: a win, then a loss -> a tie (0.5) on every turn
    rows = con.execute("SELECT item_id, ord, judge_model, template, kind, value, verdict, origin, len(call_keys) "
                       "FROM judge_scores ORDER BY item_id, ord").fetchall()
    assert len(rows) == 6
    assert {r[5] for r in rows} == {0.5} and {r[6] for r in rows} == {"win,loss -> tie"}
    assert rows[0][2] == "standin-judge" and rows[0][3] == pick("pairwise", 1, False).label
    assert rows[1][3] == pick("pairwise", 2, False).label
    assert {r[3] for r in rows if r[0] == "2"} == {pick("pairwise", 1, True).label, pick("pairwise", 2, True).label}
    assert {r[4] for r in rows} == {"pairwise"} and {r[7] for r in rows} == {"judged"} and {r[8] for r in rows} == {2}
    # every call is recorded with its judge, template, sampling settings, tokens and cost
    calls = con.execute("SELECT judge_model, template, sampling, tokens_in, tokens_out, cost_usd FROM judge_calls"
                        ).fetchall()
    assert len(calls) == 12
    j, t, sampling, t_in, t_out, cost = calls[0]
    assert j == "standin-judge" and "@" in t and json.loads(sampling) == {"temperature": 0.0, "max_tokens": 64}
    assert t_out == 5 and cost == pytest.approx((t_in * 2.0 + t_out * 8.0) / 1e6)
    assert summary.tokens_out == 60

    with StandinServer(reply=lambda prompt: "[[B]]") as again:
        second = judge_cell(con, _cfg(again.base_url), TASK, LANG, "pairwise", models=[MODELS[0]],
                            client=JudgeClient(_cfg(again.base_url), env=LOCAL))
        assert again.requests == 0  # everything from the cache
    assert second.sent == 0 and second.cached == 12 and second.turns == 6
    assert con.execute("SELECT count(*) FROM judge_calls").fetchone()[0] == 12


def test_orders_that_agree_give_a_win_or_a_loss():
    assert verdicts.combined(verdicts.outcome("A", "ab"), verdicts.outcome("B", "ba")) == "win"
    assert verdicts.combined(verdicts.outcome("B", "ab"), verdicts.outcome("A", "ba")) == "loss"
    assert verdicts.combined(verdicts.outcome("tie", "ab"), verdicts.outcome("A", "ba")) == "tie"
    assert verdicts.combined(verdicts.outcome(None, "ab"), verdicts.outcome("A", "ba")) is None
    assert verdicts.preference("[[A]] but also [[B]]") is None and verdicts.preference("[[C]]") == "tie"
    assert verdicts.rating("Rating: [[7]]") == 7.0 and verdicts.rating("[8.5]") == 8.5
    assert verdicts.rating("Rating: [[11]]") is None and verdicts.rating("no verdict") is None


def test_single_grading_stores_the_rating_and_a_new_template_version_asks_again(con):
    scripted = {"1": "Rating: [[8]]", "2": "Rating: [[3]]", "3": "no rating here"}

    def reply(prompt: str) -> str:
        return next(v for k, v in scripted.items() if f"menjawab {k}." in prompt)

    with StandinServer(reply=reply) as server:
        summary = judge_cell(con, _cfg(server.base_url), TASK, LANG, "single", models=[MODELS[1]],
                             client=JudgeClient(_cfg(server.base_url), env=LOCAL))
    assert server.requests == 6 and summary.sent == 6
    got = dict(((r[0], r[1]), r[2]) for r in con.execute(
        "SELECT item_id, ord, value FROM judge_scores WHERE kind = 'single'").fetchall())
    assert got == {("1", "t1"): 8.0, ("1", "t2"): 8.0, ("2", "t1"): 3.0, ("2", "t2"): 3.0,
                   ("3", "t1"): None, ("3", "t2"): None}
    system = {m["role"]: m["content"] for m in server.bodies[1]["messages"]}
    assert system["system"].startswith("Please act as an impartial judge") and "second user question" in \
        system["system"]
    # the template's version is the hash of its text: a changed prompt is a new version, never a cache hit
    t = pick("single", 1, False)
    assert t.version != type(t)(**{**t.__dict__, "user": t.user + " "}).version
    assert len({t.label for t in templates().values()}) == len(templates()) == 8


def test_the_judge_endpoint_follows_the_endpoint_policy():
    with pytest.raises(EndpointRefused):
        JudgeClient(_cfg("http://127.0.0.1:9/v1"), env={})  # a private address, not allowed here
    with pytest.raises(EndpointRefused):
        JudgeClient(_cfg("http://127.0.0.1:9/v1", api_key_env="OPENAI_API_KEY"),
                    env={**LOCAL, "OPENAI_API_KEY": "sk-secret", "TANAW_ENDPOINT_KEYS": "openai:OPENAI_API_KEY"})
    with pytest.raises(EndpointRefused):
        JudgeClient(_cfg("http://127.0.0.1:9/v1", api_key_env="HF_TOKEN"), env={**LOCAL, "HF_TOKEN": "hf_x"})


def _finished_ratings_campaign(con, values: dict[tuple[str, str], list[float]]) -> None:
    """A finished ratings campaign on the cell: (item, model) -> each rater's 'overall' score."""
    cid = f"ratings-{TASK}-{LANG}"
    con.execute("INSERT INTO campaigns (campaign_id, task, lang, protocol, status, seed) "
                "VALUES (?, ?, ?, 'ratings', 'finished', 0)", [cid, TASK, LANG])
    raters: dict[str, int] = {}
    for (item_id, model), scores in values.items():
        cand = f"c-{model[-1]}"
        con.execute("INSERT OR IGNORE INTO campaign_candidates VALUES (?, ?, ?, ?, NULL)", [cid, item_id, cand, model])
        for r, v in enumerate(scores):
            rater = f"rater{r}"
            seq = raters.setdefault(f"{rater}/{item_id}", len([k for k in raters if k.startswith(rater + "/")]))
            con.execute("INSERT OR IGNORE INTO campaign_assignments (campaign_id, annotator, seq, item_id, cand_order) "
                        "VALUES (?, ?, ?, ?, ['c-a', 'c-b'])", [cid, rater, seq, item_id])
            con.execute("INSERT INTO judgements (campaign_id, annotator, seq, item_id, cand_id, criterion, value) "
                        "VALUES (?, ?, ?, ?, ?, 'overall', ?)", [cid, rater, seq, item_id, cand, v])


def test_a_finished_campaign_gives_the_judge_human_tau_of_scipy_and_none_leaves_it_unvalidated(con):
    ratings = {"1": 9, "2": 4, "3": 6}
    for kind_model, item_scores in ((MODELS[0], ratings), (MODELS[1], {"1": 5, "2": 7, "3": 2})):
        with StandinServer(reply=lambda p, s=item_scores: next(f"[[{v}]]" for k, v in s.items()
                                                               if f"menjawab {k}." in p)) as server:
            judge_cell(con, _cfg(server.base_url), TASK, LANG, "single", models=[kind_model],
                       client=JudgeClient(_cfg(server.base_url), env=LOCAL))
    view = judge_view(con, TASK, LANG, n_boot=200)
    assert set(view["agreement"]) == {"unvalidated"} and set(view["system"]) == {f"{m}|native" for m in MODELS}
    assert view.set_index("system").loc[f"{MODELS[0]}|native", "judge score"] == pytest.approx((9 + 4 + 6) / 3)

    human = {("1", MODELS[0]): [5, 4], ("2", MODELS[0]): [2, 1], ("3", MODELS[0]): [3, 3],
             ("1", MODELS[1]): [3, 2], ("2", MODELS[1]): [4, 4], ("3", MODELS[1]): [1, 2]}
    _finished_ratings_campaign(con, human)
    view = judge_view(con, TASK, LANG, n_boot=200)
    judge_scores = {("1", MODELS[0]): 9, ("2", MODELS[0]): 4, ("3", MODELS[0]): 6,
                    ("1", MODELS[1]): 5, ("2", MODELS[1]): 7, ("3", MODELS[1]): 2}
    keys = sorted(human)
    expected = stats.kendalltau([sum(human[k]) / len(human[k]) for k in keys], [judge_scores[k] for k in keys])
    row = view.iloc[0]
    assert row["tau"] == pytest.approx(expected.statistic) and row["n"] == 6
    assert row["low"] <= row["tau"] <= row["high"]
    assert row["agreement"].startswith("overall: tau ") and row["campaign"] == f"ratings-{TASK}-{LANG}"


def test_the_judge_command_reports_requests_then_cache_hits(tmp_path, monkeypatch, capsys):
    from cli.main import main

    db = tmp_path / "cli.duckdb"
    chat_store(db)
    monkeypatch.setenv("TANAW_ALLOW_PRIVATE_ENDPOINTS", "1")
    with StandinServer(reply=lambda prompt: "Rating: [[6]]") as server:
        args = ["judge", "--task", "sea-mt-bench", "--langs", "id", "--judge-model", "standin-judge",
                "--judge-base-url", server.base_url, "--db", str(db)]
        assert main(args) == 0
        first = capsys.readouterr().out.splitlines()[-1].split()
        assert main(args) == 0
        second = capsys.readouterr().out.splitlines()[-1].split()
        assert server.requests == 12
    # task, lang, turns scored, requests sent, from cache
    assert first[:5] == ["sea-mt-bench", "id", "12", "12", "0"] and second[:5] == ["sea-mt-bench", "id", "12", "0", "12"]
    assert main([*args[:-2], "--judge-key-env", "HF_TOKEN", "--db", str(db)]) == 2
    assert "judge endpoint" in capsys.readouterr().err
