"""The runner's job feed: the first (task, language) is asked while the rest of the plan is built."""
from __future__ import annotations

import asyncio

from evaluator import run as run_module
from evaluator.clients import ModelClient
from evaluator.run_feed import JobFeed, drain_feed, plan_rest
from evaluator.runspec import RunSpec
from tests.helpers.standin_server import StandinServer
from tests.unit.test_run import FAST, ListSink


def test_workers_wait_for_jobs_added_later_and_the_last_job_is_reported_once():
    async def main():
        lasts, done = [], []
        feed = JobFeed(lambda: lasts.append(len(done)))

        async def ask(job):
            await asyncio.sleep(0.001)
            done.append(job)

        feed.add([1, 2])
        rest = [lambda: [3, 4, 5], lambda: [], lambda: [6]]
        await asyncio.gather(drain_feed(feed, ask, 4), plan_rest(feed, lambda: False, rest))
        return lasts, done

    lasts, done = asyncio.run(main())
    assert sorted(done) == [1, 2, 3, 4, 5, 6]
    assert len(lasts) == 1 and lasts[0] < 6  # when the last job was handed out, before it was answered


def test_an_empty_feed_reports_its_end_when_closed_and_a_failed_plan_still_closes_it():
    async def main():
        lasts = []
        feed = JobFeed(lambda: lasts.append(True))

        def broken():
            raise RuntimeError("planning failed")

        workers = asyncio.ensure_future(drain_feed(feed, lambda job: asyncio.sleep(0), 2))
        try:
            await plan_rest(feed, lambda: True, [broken])
        except RuntimeError as exc:
            error = str(exc)
        await workers  # the workers end: the feed was closed
        return lasts, error

    assert asyncio.run(main()) == ([True], "planning failed")


def test_the_first_language_is_asked_before_the_others_are_planned(monkeypatch):
    planned, sent_at = [], []
    part = run_module._plan_part

    def recording_part(cells, opts, count):
        planned.append(cells[0].lang)
        return part(cells, opts, count)

    class Recording(ModelClient):
        async def chat(self, *args, **kwargs):
            sent_at.append(list(planned))
            return await super().chat(*args, **kwargs)

    async def main(url):
        async with Recording(url, "standin", retry=FAST, timeout=5, concurrency=4) as client:
            return await run_module.run(client, sink, RunSpec(tasks="sentiment", langs="id,vi,th",
                                                              prompt_langs=("en",), limit=4, runs=2, concurrency=4),
                                        progress=False)

    monkeypatch.setattr(run_module, "_plan_part", recording_part)
    sink = ListSink()
    with StandinServer(latency=0.05) as server:
        statuses = asyncio.run(main(server.base_url))
        assert server.requests == 3 * 4 * 2
    assert [s.cell.lang for s in statuses] == ["id", "id", "vi", "vi", "th", "th"]  # plan order, every cell
    assert all(s.asked == 4 and s.score is not None for s in statuses)
    assert planned == ["id", "vi", "th"] and len(sink.rows) == 24
    assert sent_at[:4] == [["id"]] * 4  # the first C requests went out with one part planned
    assert sent_at[-1] == ["id", "vi", "th"]  # the rest was built while they were answered
