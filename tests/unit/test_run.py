"""The runner on the stand-in server with an in-memory sink: cells, orders, log-prob choices, resume, truncation."""
from __future__ import annotations

import asyncio
import dataclasses

import pytest

from evaluator.aggregate import aggregate_cell
from evaluator.clients import ModelClient, RetryPolicy
from evaluator.registry import get_task
from evaluator.run import APPROX_TOKENIZER, approx_tokens, run, summary_table, trim_item, truncate
from evaluator.runspec import RunSpec
from evaluator.spec import Item
from tests.helpers.standin_server import TOKEN_RE, Faults, StandinServer, token_logprob

FAST = RetryPolicy(max_retries=8, base_delay=0.01, max_delay=0.05)


class ListSink:
    """Results kept in a dict keyed like the store's primary key."""

    def __init__(self):
        self.rows: dict[tuple, tuple] = {}
        self.refreshed: list[tuple] = []

    def prepare(self, items=()):
        self.prepared = True

    def stored_many(self, cells):
        keys = {c.key for c in cells}
        out = {}
        for k in self.rows:
            if k[:4] in keys:
                out.setdefault(k[:4], set()).add((k[4], k[5]))
        return out

    def save_many(self, rows):
        for cell, settings, item, result in rows:
            self.rows[(*cell.key, item.item_id, result.prediction.order)] = (settings, item, result)

    def refresh(self, cells):
        return [self.refresh_one(cell) for cell in cells]

    def refresh_one(self, cell):
        self.refreshed.append(cell.key[:3])
        pairs = [(i, r) for k, (_, i, r) in self.rows.items() if k[:3] == cell.key[:3]]
        head = [c for c in aggregate_cell(cell.task, cell.lang, pairs) if c.is_headline]
        return head[0].value if head else None


def go(url, sink, **kw):
    async def main():
        async with ModelClient(url, "standin", retry=FAST, timeout=5, concurrency=kw.get("concurrency", 8)) as client:
            return await run(client, sink, RunSpec(**kw), progress=False)
    return asyncio.run(main())


def test_every_family_in_both_prompt_languages_and_both_orders():
    sink = ListSink()
    with StandinServer() as server:
        statuses = go(server.base_url, sink, tasks="causal,lindsea-mp,pacute-affixation-mcq,cultural,pacute-mda-gen",
                      langs="id,tl", limit=2, concurrency=4)
        by = {s.cell.key[:3]: s for s in statuses}
    # causal/id: 2 items x 2 orders in each prompt language; lindsea-mp/id likewise
    assert by[("causal", "id", "en")].asked == 4 and by[("causal", "id", "native")].asked == 4
    assert by[("lindsea-mp", "id", "native")].asked == 4
    assert {k[5] for k in sink.rows if k[0] == "causal"} == {"ab", "ba"}
    # cultural is native-only, the MDA control English-only: the other prompt language is reported, not asked
    assert by[("cultural-representation", "id", "en")].asked == 0
    assert "no prompt" in by[("cultural-representation", "id", "en")].error
    assert by[("cultural-representation", "id", "native")].asked == 2
    assert "no prompt" in by[("pacute-mda-gen", "tl", "native")].error
    # LINDSEA's system prompt travels as a system message
    settings, item, result = sink.rows[("lindsea-mp", "id", "en", 1, sink_first(sink, "lindsea-mp"), "ab")]
    assert result.prediction.prompt.startswith("[system]\nYou are an Indonesian linguist")
    assert settings["temperature"] == 0.0 and settings["top_p"] == 1.0 and settings["max_tokens"] == 32
    assert settings["prompt_lang"] == "en" and settings["run_no"] == 1
    # every refreshed cell was refreshed once, after its last answer
    assert len(sink.refreshed) == len(set(sink.refreshed)) == sum(1 for s in statuses if s.asked)
    assert "causal" in summary_table(statuses)


def sink_first(sink, task):
    return sorted(k[4] for k in sink.rows if k[0] == task)[0]


def test_pacute_mcq_is_scored_by_option_logprobs_with_every_normalisation():
    sink = ListSink()
    with StandinServer() as server:
        go(server.base_url, sink, tasks="pacute-affixation-mcq", limit=2, prompt_langs=("native",))
    (settings, item, result), = [v for k, v in sink.rows.items() if k[4] == "affixation_mcq_00000"]
    prompt = item.inputs.get("text_tl") or result.prediction.prompt
    expected = []
    for option in item.options:  # stand-in: whitespace-led tokens with hashed log-probabilities
        text = prompt + " " + option
        n_prompt = len(TOKEN_RE.findall(prompt))
        expected.append(sum(token_logprob(t) for t in TOKEN_RE.findall(text)[n_prompt:]))
    assert result.prediction.option_logprobs == pytest.approx(tuple(expected))
    assert set(result.extras["choice_by_norm"]) == {"none", "chars", "bytes", "tokens"}
    best = max(range(4), key=lambda i: (expected[i], -i))
    assert result.answer == item.options[best] and result.prediction.output == item.options[best]
    assert settings["mode"] == "choice_logprob"


def test_letter_tasks_can_be_scored_by_letter_logprobs():
    sink = ListSink()
    with StandinServer() as server:
        go(server.base_url, sink, tasks="causal", langs="id", limit=1, prompt_langs=("en",), logprob_choices=True)
    assert len(server.counts) == 4  # 2 orders x letters A and B, one echo request each
    for settings, item, result in sink.rows.values():
        assert set(result.extras["letter_logprobs"]) == {"A", "B"}
        assert result.answer in ("A", "B") and settings["mode"] == "choice_logprob"


def test_resume_asks_nothing_twice_and_rerun_asks_again():
    sink = ListSink()
    with StandinServer() as server:
        go(server.base_url, sink, tasks="nli", langs="id,th", limit=3, concurrency=3)
        first = server.requests
        sink.refreshed.clear()
        statuses = go(server.base_url, sink, tasks="nli", langs="id,th", limit=3)
        assert server.requests == first == 12
        assert sum(s.resumed for s in statuses) == 12 and sum(s.asked for s in statuses) == 0
        assert len(sink.refreshed) == 4 and all(s.score is not None for s in statuses)  # recomputed, not re-asked
        go(server.base_url, sink, tasks="nli", langs="id", limit=3, rerun=True)
        assert server.requests == 18
    assert len(sink.rows) == 12


def test_what_is_stored_is_looked_up_once_for_the_whole_plan():
    class CountingSink(ListSink):
        lookups: list = []

        def stored_many(self, cells):
            self.lookups.append(len(cells))
            return super().stored_many(cells)

    sink = CountingSink()
    with StandinServer() as server:
        jobs = dict(tasks="nli,sentiment", langs="id,th", prompt_langs=("en",), runs=2)
        go(server.base_url, sink, limit=2, **jobs)
        go(server.base_url, sink, limit=3, **jobs)
        assert server.requests == 16 + 8  # the second run asks only the third item of each cell and run
        go(server.base_url, sink, tasks="nli", langs="id", prompt_langs=("en",), limit=2, rerun=True)
        assert server.requests == 24 + 2  # the rerun (one run, two items) asks everything again
    assert sink.lookups == [8, 8, 1]  # 2 tasks x 2 languages x 2 runs, then 1 cell: one query per run


def test_each_cell_is_refreshed_once_its_runs_are_stored_while_later_cells_are_still_asked():
    class TimedSink(ListSink):
        def __init__(self):
            super().__init__()
            self.commits, self.at_refresh = 0, {}

        def save_many(self, rows):
            super().save_many(rows)
            self.commits += 1

        def refresh_one(self, cell):
            self.at_refresh[cell.lang] = self.commits
            return super().refresh_one(cell)

    sink = TimedSink()
    with StandinServer(latency=0.03) as server:
        go(server.base_url, sink, tasks="sentiment", langs="id,vi,th", prompt_langs=("en",), limit=16, runs=2,
           concurrency=4)
    assert [key[1] for key in sink.refreshed] == ["id", "vi", "th"]  # plan order, one refresh each
    assert sink.at_refresh["id"] < sink.at_refresh["vi"] < sink.at_refresh["th"] == sink.commits


def test_bursts_of_429_and_500_and_random_faults_are_retried_to_completion():
    sink = ListSink()
    faults = Faults(burst_429=6, burst_500=6, p_429=0.1, p_500=0.1, p_drop=0.05, seed=7)
    with StandinServer(faults=faults) as server:
        statuses = go(server.base_url, sink, tasks="sentiment", langs="id,vi", limit=5, concurrency=6)
    assert sum(s.failed for s in statuses) == 0
    assert len(sink.rows) == 20 and server.statuses[200] == 20
    assert server.statuses[429] >= 6 and server.statuses[500] >= 6


def test_chat_only_server_fails_logprob_cells_clearly_and_runs_the_rest():
    sink = ListSink()
    with StandinServer(chat_only=True) as server:
        statuses = go(server.base_url, sink, tasks="pacute-affixation-mcq,causal", langs="tl,id", limit=2,
                      prompt_langs=("en",))
    by = {(s.cell.task.name, s.cell.lang): s for s in statuses}
    mcq = by[("pacute-affixation-mcq", "tl")]
    assert mcq.asked == 0 and mcq.failed == 2 and "log-probabilities unavailable" in mcq.error
    assert by[("causal", "id")].asked == 4 and by[("causal", "id")].error is None
    assert "file not found" in by[("causal", "tl")].error  # the fixture data has no Filipino causal items


def test_long_documents_are_cut_to_the_paper_budget_and_flagged():
    qa = get_task("qa")  # Tamil budget 3,500 tokens (paper Table 12)
    doc = "த" * 5000  # one Tamil letter = 3 UTF-8 bytes = 1 approximate token
    item = Item(task="qa", lang="ta", item_id="x", inputs={"context": doc, "text": doc, "question": "q"}, gold=["த"])
    cut, info = trim_item(qa, item, None)
    assert len(cut.inputs["context"]) == 3500 and cut.inputs["question"] == "q"
    assert info == {"budget": 3500, "fields": {f: {"tokens": 5000, "kept_chars": 3500, "chars": 5000}
                                                for f in ("context", "text")}}
    assert trim_item(qa, dataclasses.replace(item, lang="id"), None) == (dataclasses.replace(item, lang="id"), None)
    assert approx_tokens("abcdef") == 2 and truncate("abcdefgh", 2, approx_tokens) == "abcdef"
    assert "3 UTF-8 bytes" in APPROX_TOKENIZER


def test_jobs_go_cell_by_cell_and_take_turns_between_a_cells_runs_so_its_first_commit_writes_every_run():
    from evaluator.run import Ledger, plan

    statuses, jobs = plan(RunSpec(tasks="sentiment", langs="id,th", prompt_langs=("en",), limit=3, runs=2))
    first_stored = {("sentiment", "th", "en", 2): {(jobs[("sentiment", "th", "en", 2)][0].item.item_id, "ab")}}
    todo = Ledger().track(statuses, jobs, first_stored)
    assert [(j.cell.lang, j.cell.run_no) for j in todo] == [("id", 1), ("id", 2)] * 3 + [("th", 1), ("th", 2)] * 2 + [
        ("th", 1)]
    assert [j.item.item_id for j in todo[:2]] == [jobs[("sentiment", "id", "en", 1)][0].item.item_id] * 2
    assert [s.resumed for s in statuses] == [0, 0, 0, 1]
