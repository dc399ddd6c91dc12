"""The runner's one writer: slots freed on arrival, groups by size or time, back-pressure, failures surfaced."""
from __future__ import annotations

import asyncio
import threading
import time

import pytest

from evaluator.clients import ModelClient, RetryPolicy
from evaluator.run import group_size, run
from evaluator.runspec import RunSpec
from evaluator.run_writer import GROUP_WAIT_S
from tests.helpers.standin_server import StandinServer
from tests.unit.test_run import ListSink

FAST = RetryPolicy(max_retries=2, base_delay=0.01, max_delay=0.05)
C = 4
JOBS = dict(tasks="sentiment", langs="id,vi,th", limit=20, prompt_langs=("en",))  # 60 requests


class GatedSink(ListSink):
    """A store whose commits wait for `gate` and record their group sizes."""

    def __init__(self):
        super().__init__()
        self.gate = threading.Event()
        self.groups: list[int] = []

    def save_many(self, rows):
        self.groups.append(len(rows))
        self.gate.wait(30)
        super().save_many(rows)


def _run_in_thread(url: str, sink, result: dict, **kw) -> threading.Thread:
    async def main():
        async with ModelClient(url, "standin", retry=FAST, timeout=5, concurrency=C) as client:
            return await run(client, sink, RunSpec(concurrency=C, **JOBS), progress=False, **kw)

    def target():
        try:
            result["statuses"] = asyncio.run(main())
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            result["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def _settled(server: StandinServer, quiet_s: float = 0.6, limit_s: float = 20) -> int:
    """The server's request count once it has stopped growing for `quiet_s`."""
    deadline, last, since = time.monotonic() + limit_s, -1, time.monotonic()
    while time.monotonic() < deadline:
        if server.requests != last:
            last, since = server.requests, time.monotonic()
        elif time.monotonic() - since >= quiet_s:
            return last
        time.sleep(0.02)
    return last


class EventSink(ListSink):
    """A `ListSink` whose subclasses record their calls in `events`."""

    def __init__(self):
        super().__init__()
        self.events: list[tuple] = []


def _served(sink, latency: float = 0.02) -> list:
    """The statuses of a run of JOBS at C into `sink`, against a stand-in answering after `latency` seconds."""
    async def main():
        async with ModelClient(server.base_url, "standin", retry=FAST, timeout=5, concurrency=C) as client:
            return await run(client, sink, RunSpec(concurrency=C, **JOBS), progress=False)

    with StandinServer(latency=latency) as server:
        return asyncio.run(main())


def test_a_stalled_store_stops_requests_after_c_plus_one_group_then_everything_lands_once():
    sink, result = GatedSink(), {}
    with StandinServer(latency=0.02) as server:
        thread = _run_in_thread(server.base_url, sink, result)
        # the first commit hangs: requests go on until one group waits for the store and C more hold answers
        assert _settled(server) == C + group_size(C) == 20
        assert server.peak_in_flight == C
        assert len(sink.groups) == 1 and sink.rows == {}
        sink.gate.set()
        thread.join(60)
    assert "error" not in result, result.get("error")
    assert len(sink.rows) == 60 and server.requests == 60  # each asked once, each stored once
    assert sum(sink.groups) == 60 and max(sink.groups) <= group_size(C)
    assert sum(s.asked for s in result["statuses"]) == 60


def test_slots_are_freed_before_the_commit_so_a_slow_store_keeps_c_requests_in_flight():
    class SlowSink(ListSink):
        commits = 0

        def save_many(self, rows):
            SlowSink.commits += 1
            time.sleep(0.15)  # slower than the server: a slot held until commit would halve the rate
            super().save_many(rows)

    sink, result = SlowSink(), {}
    with StandinServer(latency=0.05) as server:
        _run_in_thread(server.base_url, sink, result, group=64).join(60)
    assert "error" not in result, result.get("error")
    assert len(sink.rows) == 60 and server.peak_in_flight == C
    # 60 answers arriving at about C / 50 ms are committed in a few groups (each closed by the 200 ms clock),
    # not one commit per answer
    assert SlowSink.commits <= 60 * 0.05 / C / GROUP_WAIT_S * 2 + 2


def test_a_failing_commit_fails_the_run_with_its_error():
    class BrokenSink(ListSink):
        def save_many(self, rows):
            raise OSError("disk full")

    result = {}
    with StandinServer() as server:
        _run_in_thread(server.base_url, BrokenSink(), result).join(60)
    assert isinstance(result.get("error"), OSError) and "disk full" in str(result["error"])


def test_a_failing_prepare_fails_the_run_without_storing_anything():
    class NoRegistry(ListSink):
        def prepare(self, items=()):
            raise OSError("read-only store")

    sink, result = NoRegistry(), {}
    with StandinServer() as server:
        _run_in_thread(server.base_url, sink, result).join(60)
    assert isinstance(result.get("error"), OSError) and "read-only" in str(result["error"])
    assert sink.rows == {}


@pytest.mark.parametrize("concurrency, size", [(1, 8), (2, 8), (4, 16), (32, 128), (128, 512)])
def test_group_size_is_four_times_c_and_at_least_eight(concurrency, size):
    assert group_size(concurrency) == size


def test_a_finished_cell_is_refreshed_at_once_cells_finished_meanwhile_share_the_next_call_and_closing_waits_for_none(
        monkeypatch):
    import evaluator.run_writer
    from evaluator.registry import get_task
    from evaluator.run import Cell, CellStatus
    from evaluator.run_writer import AnswerWriter

    calls, entered, gate = [], threading.Event(), threading.Event()

    class Sink:
        def refresh(self, cells):
            entered.set()
            gate.wait(30)
            calls.append([c.lang for c in cells])
            return [50.0] * len(cells)

    task = get_task("sentiment")
    a, b, c, e = (CellStatus(Cell(task, lang, prompt)) for lang, prompt in (("id", "en"), ("vi", "en"), ("th", "en"),
                                                                              ("id", "native")))

    async def until(event: threading.Event) -> None:
        for _ in range(1000):
            if event.is_set():
                return
            await asyncio.sleep(0.01)
        raise AssertionError("the refresh did not start")

    async def main():
        monkeypatch.setattr(evaluator.run_writer, "REFRESH_PAUSE", 1e6)  # after a refresh, only closing starts one
        writer = AnswerWriter(Sink(), {}, 8, lambda done: None)
        try:
            writer.refresh_later([a])  # nothing refreshed before: at once
            await until(entered)
            writer.refresh_later([b])  # a's refresh is running: b and c wait for the next call, together
            writer.refresh_later([c])
            gate.set()
            await asyncio.sleep(0.2)
            assert calls == [["id"]] and b.score is None  # resting after a's refresh
            writer.refresh_later([e])
            await asyncio.wait_for(writer.refreshed(), 10)  # the run's end: what waits is refreshed at once
        finally:
            writer.close()

    asyncio.run(main())
    assert calls == [["id"], ["vi", "th", "id"]] and a.score == b.score == c.score == e.score == 50.0

    calls.clear()  # queued and closed at once (the wake-up the closing sets must not be lost)
    d = CellStatus(Cell(task, "ta", "en"))

    async def at_once():
        writer = AnswerWriter(Sink(), {}, 8, lambda done: None)
        try:
            writer.refresh_later([d])
            await asyncio.wait_for(writer.refreshed(), 10)
        finally:
            writer.close()

    asyncio.run(at_once())
    assert calls == [["ta"]] and d.score == 50.0


def test_each_commit_prepares_the_items_planned_since_the_last_and_nothing_twice():
    """The rest of a plan may be built after the first commit (`run_feed.plan_rest` waits for a quiet stretch): its
    items are prepared by the next commit in one call, and a commit with nothing newly planned prepares nothing."""
    from types import SimpleNamespace

    from evaluator.run import preparer

    class Recorder:
        def __init__(self):
            self.calls = []

        def prepare(self, items=()):
            self.calls.append([i.item_id for i in items])

    def job(item_id):
        return SimpleNamespace(item=SimpleNamespace(task="sentiment", lang="id", item_id=item_id))

    sink, planned = Recorder(), SimpleNamespace(jobs=[])
    prepare = preparer(sink, planned)
    prepare()  # nothing planned yet: the registry's rows still come first
    planned.jobs += [job("a"), job("a"), job("b")]  # both orders of "a"
    prepare()
    prepare()
    planned.jobs += [job("c")]
    prepare()
    assert sink.calls == [[], ["a", "b"], ["c"]]


def test_in_the_last_round_the_refresher_reads_ahead_for_the_unfinished_cells_before_their_refresh():
    """Once every request is sent, the writer hands the sink the cells still unfinished (`read_ahead`, on the
    refresher's thread, after the refreshes before it); the run's last refresh, of those cells, comes after it. A
    sink whose read ahead fails still finishes the run (the refresh reads for itself)."""
    for failing in (False, True):
        class Sink(EventSink):
            def read_ahead(self, cells):
                self.events.append(("ahead", list(cells), threading.current_thread().name))
                if failing:
                    raise RuntimeError("no read ahead")

            def refresh(self, cells):
                self.events.append(("refresh", [c.key[:3] for c in cells], threading.current_thread().name))
                return super().refresh(cells)

        sink = Sink()
        statuses = _served(sink)
        assert sum(s.asked for s in statuses) == 60 and all(s.score is not None for s in statuses)
        aheads = [i for i, e in enumerate(sink.events) if e[0] == "ahead"]
        assert len(aheads) == 1
        _, cells, thread = sink.events[aheads[0]]
        assert cells == [("sentiment", "th", "en")] and thread.startswith("tanaw-refresh")
        assert [e[:2] for e in sink.events[aheads[0] + 1:]] == [("refresh", [("sentiment", "th", "en")])]
        assert [e[1] for e in sink.events[:aheads[0]]] == [[("sentiment", "id", "en")], [("sentiment", "vi", "en")]]


def test_the_last_group_is_committed_with_the_refresh_of_the_cells_it_finishes_and_apart_if_that_fails():
    """A sink with `save_refresh` gets the run's last group (every request sent and answered) in one call with the
    cells it finishes, on the refresher's thread; those cells get its values and no refresh of their own. When the
    call raises, the group is committed alone (`save_many`) and its cells refreshed the usual way: every answer is
    stored once and every cell refreshed once either way."""
    for failing in (False, True):
        class Sink(EventSink):
            def save_many(self, rows):
                self.events.append(("save", len(rows)))
                super().save_many(rows)

            def refresh(self, cells):
                self.events.append(("refresh", [c.key[:3] for c in cells]))
                return super().refresh(cells)

            def save_refresh(self, rows, cells):
                self.events.append(("save+refresh", len(rows), [c.key[:3] for c in cells],
                                    threading.current_thread().name))
                if failing:
                    raise RuntimeError("the refresh failed: nothing of the call is written")
                super().save_many(rows)
                return [self.refresh_one(c) for c in cells]

        sink = Sink()
        statuses = _served(sink)
        assert len(sink.rows) == 60 and sum(s.asked for s in statuses) == 60
        assert all(s.score is not None for s in statuses)
        last = [e for e in sink.events if e[0] == "save+refresh"]
        assert len(last) == 1 and last[0][2] == [("sentiment", "th", "en")] and last[0][3].startswith("tanaw-refresh")
        assert sink.events[-1 - failing * 2] == last[0]  # the run's last store call (then the two steps, apart)
        assert sorted(sink.refreshed) == [("sentiment", "id", "en"), ("sentiment", "th", "en"), ("sentiment", "vi", "en")]
        saved = sum(e[1] for e in sink.events if e[0] == "save") + (0 if failing else last[0][1])
        assert saved == 60
        if failing:
            assert sink.events[-2:] == [("save", last[0][1]), ("refresh", [("sentiment", "th", "en")])]


def test_the_last_rounds_answers_are_scored_as_they_arrive_on_the_event_loop_and_once(monkeypatch):
    """Once every request is sent, each answer is scored when it is handed over (on the event loop: no request is
    left to delay), so the run's last commit scores only what came before; every answer is scored exactly once."""
    import evaluator.run_writer

    scored: dict[tuple, list[str]] = {}
    real = evaluator.run_writer.score_prediction

    def spy(task, item, pred):
        scored.setdefault((pred.lang, pred.run, pred.item_id, pred.order), []).append(threading.current_thread().name)
        return real(task, item, pred)
    monkeypatch.setattr(evaluator.run_writer, "score_prediction", spy)

    class Sink(ListSink):
        def save_refresh(self, rows, cells):
            self.last = [(r.prediction.lang, r.prediction.run, r.prediction.item_id, r.prediction.order)
                         for _, _, _, r in rows]
            super().save_many(rows)
            return [self.refresh_one(c) for c in cells]

    sink = Sink()
    statuses = _served(sink)
    assert sum(s.asked for s in statuses) == 60 and len(scored) == 60
    assert all(len(threads) == 1 for threads in scored.values())
    on_loop = {key for key, threads in scored.items() if threads == [threading.main_thread().name]}
    assert on_loop and on_loop <= set(sink.last)  # the last round's answers, all in the last group
    assert all(threads[0].startswith(("tanaw-writer", "tanaw-refresh")) for key, threads in scored.items()
               if key not in on_loop)  # the rest by their commits (the last one's on the refresher's thread)
