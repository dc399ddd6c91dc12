"""The runner's rhythm: the lull predicted from requests in flight, and store work placed in it."""
from __future__ import annotations

import asyncio
import math

import pytest

from evaluator import run_writer
from evaluator.run_writer import AnswerWriter, Pace


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_lull_is_the_oldest_request_in_flight_plus_the_shortest_recent_latency_minus_now():
    clock = Clock()
    pace = Pace(clock, window=3)
    assert pace.lull() == math.inf  # nothing in flight: no answer can come
    first = pace.sent()
    assert pace.lull() == 0.0  # no latency seen yet: an answer may come at any moment
    clock.now += 0.25
    pace.answered(first)  # latency 0.25
    a = pace.sent()  # burst 2, sent at 100.25 and 100.27
    clock.now += 0.02
    b = pace.sent()
    clock.now += 0.03  # 100.30: the oldest (100.25) is not expected before 100.50
    assert math.isclose(pace.lull(), 0.20)
    clock.now = 100.45
    pace.answered(a)  # latency 0.20: the shortest now
    assert math.isclose(pace.lull(), 100.27 + 0.20 - 100.45)
    clock.now = 100.60  # b is overdue: an answer may come at any moment
    assert pace.lull() == 0.0
    pace.answered(b, ok=False)  # a failure teaches no latency
    assert pace.lull() == math.inf and math.isclose(min(pace._latencies), 0.20)
    for _ in range(3):  # the window keeps only the last 3 latencies
        t = pace.sent()
        clock.now += 0.5
        pace.answered(t)
    assert math.isclose(min(pace._latencies), 0.5)


class FakePace:
    def __init__(self, lull: float, in_flight: int = 0):
        self.value, self.in_flight = lull, in_flight

    def lull(self) -> float:
        return self.value


class TimedWriter(AnswerWriter):
    """Commits recorded with the loop time they began, nothing scored or stored."""

    def __init__(self, pace, lull_group=1):
        super().__init__(sink=None, settings={}, size=100, on_commit=lambda done: None, pace=pace,
                         lull_group=lull_group)
        self.commits: list[tuple[float, int]] = []
        self.loop = asyncio.get_running_loop()

    def _commit(self, batch):
        self.commits.append((self.loop.time(), len(batch)))


@pytest.fixture(autouse=True)
def slow_clock(monkeypatch):
    """A 600 ms group clock (200 ms in a run): "at once" and "by the clock" stay apart by 450 ms, so a busy CI
    machine's scheduling stalls cannot blur them."""
    monkeypatch.setattr(run_writer, "GROUP_WAIT_S", 0.6)


def _group_times(lull: float, *, lull_group: int = 1, answers: int = 4, last_round: bool = False,
                 in_flight: int = 0) -> tuple[float, list[tuple[float, int]]]:
    async def main():
        writer = TimedWriter(FakePace(lull, in_flight), lull_group)
        try:
            writer.start(lambda: None)
            t0 = writer.loop.time()
            for i in range(answers):
                await writer.put(f"job{i}", None, {})
            if last_round:
                writer.last_round()
            await asyncio.sleep(run_writer.GROUP_WAIT_S * 1.5)
            await writer.drain()
            return t0, writer.commits
        finally:
            writer.close()

    return asyncio.run(main())


def test_a_quiet_group_is_committed_at_once_in_a_gap_longer_than_a_commit_else_by_the_clock():
    t0, commits = _group_times(lull=0.15)  # answers stopped and the next is 150 ms away: commit now
    assert [n for _, n in commits] == [4] and commits[0][0] - t0 < run_writer.GROUP_WAIT_S * 0.75
    t0, commits = _group_times(lull=0.0)  # an answer may come any moment: the 200 ms clock closes the group
    assert [n for _, n in commits] == [4] and commits[0][0] - t0 >= run_writer.GROUP_WAIT_S * 0.95


def test_a_gap_commit_waits_for_enough_answers_unless_every_request_is_sent():
    t0, commits = _group_times(lull=0.15, lull_group=8)  # 4 answers, 8 wanted for a gap commit: the clock
    assert [n for _, n in commits] == [4] and commits[0][0] - t0 >= run_writer.GROUP_WAIT_S * 0.95
    t0, commits = _group_times(lull=0.0, lull_group=8, last_round=True)  # nothing left to send or answer: at once
    assert [n for _, n in commits] == [4] and commits[0][0] - t0 < run_writer.GROUP_WAIT_S * 0.75


def test_the_last_answers_are_committed_together_once_all_are_in():
    t0, commits = _group_times(lull=0.0, last_round=True, in_flight=3)  # 3 still coming any moment: no piecemeal
    assert [n for _, n in commits] == [4] and commits[0][0] - t0 >= run_writer.GROUP_WAIT_S * 0.95  # (the clock)
    t0, commits = _group_times(lull=0.15, last_round=True, in_flight=3)  # the rest far off: commit in the gap
    assert [n for _, n in commits] == [4] and commits[0][0] - t0 < run_writer.GROUP_WAIT_S * 0.75
