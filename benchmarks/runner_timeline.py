"""Where a run's time goes, round by round: the runner's requests, the stand-in's view of them, the store's work.

One full run (`bench_throughput.full_run`: 1,000 requests, sentiment in four languages, 5 runs, into a fresh store)
against the stand-in started in its own process with a trace: for every request the stand-in records when it had
read it and when it wrote the answer; the runner records when each request was sent and answered (`Pace`) and when
each group commit and cell refresh ran. Printed per round of C requests: the spread of the sends, the time the
requests spent in the stand-in, the latency the runner saw (the difference is the two event loops' share), the
store work that overlapped the round; then the tail after the last answer, with the last commit's and the last
refresh's transaction split out (BEGIN, each table's append, COMMIT; the rest is scoring, the refresh's other
statements and building the rows): the run's last group and its cell's refresh are one transaction
(`commit+refresh`, `services.live.StoreSink.save_refresh`) when the store takes them together.

With `--no-store` the same run goes into `bench_throughput.DiscardSink` (`bench_throughput.storeless_run`: the
answers are still scored in groups by the writer, shown as "score", but nothing is stored or refreshed): set beside
a full run's timeline, it shows which part of the run the store costs (on the 2-core machine: the tail alone, the
last commit and the last cell's refresh; the rounds and the last answer come at the same times).

    python benchmarks/runner_timeline.py [--concurrency 128] [--latency 0.2] [--requests 1000] [--no-store]
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))


def serve_traced(port: int, latency: float, trace: Path) -> None:
    """The stand-in, recording (read, answered) times per request; written to `trace` on SIGTERM."""
    sys.path.insert(0, str(REPO / "tests" / "helpers"))
    import standin_server as standin

    log: list[tuple[float, float]] = []
    respond = standin.StandinServer._respond

    async def traced(self, writer, method, path, body):
        read = time.perf_counter()
        try:
            return await respond(self, writer, method, path, body)
        finally:
            if path.endswith("/chat/completions"):
                log.append((read, time.perf_counter()))

    def dump(*_: object) -> None:
        trace.write_text(json.dumps(log))
        os._exit(0)

    standin.StandinServer._respond = traced
    signal.signal(signal.SIGTERM, dump)
    asyncio.run(standin.StandinServer(latency, port=port).serve())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--no-store", action="store_true", help="the run into a sink that keeps nothing")
    parser.add_argument("--serve", nargs=2, metavar=("PORT", "TRACE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve_traced(int(args.serve[0]), args.latency, Path(args.serve[1]))
        return 0

    import bench_throughput as bt
    from evaluator import run_writer
    from services import live
    from store import live as store_live

    sent: dict[tuple[int, int], list[float]] = {}
    work: list[tuple[str, float, float]] = []
    pace_sent, pace_answered = run_writer.Pace.sent, run_writer.Pace.answered

    def on_sent(self):
        token = pace_sent(self)
        sent[(id(self), token)] = [time.perf_counter(), 0.0]
        return token

    def on_answered(self, token, ok=True):
        sent[(id(self), token)][1] = time.perf_counter()
        return pace_answered(self, token, ok)

    def timed(kind, fn):
        def wrapper(self, *a):
            began = time.perf_counter()
            try:
                return fn(self, *a)
            finally:
                work.append((kind, began, time.perf_counter()))
        return wrapper

    parts: list[tuple[str, float, float]] = []  # the transactions' pieces: BEGIN, appends, COMMIT
    append, transaction = store_live.append, live.transaction

    def timed_append(con, table, rows, **kwargs):
        began = time.perf_counter()
        try:
            return append(con, table, rows, **kwargs)
        finally:
            if rows:
                parts.append((f"{table} {len(rows)} rows", began, time.perf_counter()))

    @contextlib.contextmanager
    def timed_transaction(con):
        began = time.perf_counter()
        with transaction(con) as cur:
            parts.append(("BEGIN", began, time.perf_counter()))
            yield cur
            committing = time.perf_counter()
        parts.append(("COMMIT", committing, time.perf_counter()))

    store_live.append, live.transaction = timed_append, timed_transaction
    run_writer.Pace.sent, run_writer.Pace.answered = on_sent, on_answered
    run_writer.AnswerWriter._commit = timed("score" if args.no_store else "commit", run_writer.AnswerWriter._commit)
    run_writer.AnswerWriter._commit_refresh = timed("commit+refresh", run_writer.AnswerWriter._commit_refresh)
    live.StoreSink.refresh = timed("refresh", live.StoreSink.refresh)

    c, port = args.concurrency, bt._free_port()
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.json"
        proc = subprocess.Popen([sys.executable, __file__, "--latency", str(args.latency), "--serve", str(port),
                                 str(trace)])
        url = f"http://127.0.0.1:{port}/v1"
        try:
            for _ in range(100):
                try:
                    urllib.request.urlopen(url + "/models", timeout=1).read()
                    break
                except OSError:
                    time.sleep(0.1)
            if args.no_store:
                n, seconds, _ = asyncio.run(bt.storeless_run(url, c, args.requests))
            else:
                n, seconds, _, tail, start = asyncio.run(bt.full_run(url, c, args.requests, Path(tmp) / "b.duckdb"))
        finally:
            proc.terminate()
            proc.wait(10)
        served = json.loads(trace.read_text())[-n:]
    asked = list(sent.values())[-n:]
    t0 = asked[0][0]
    work = [w for w in work if w[2] >= t0]
    store = ("no store (DiscardSink)" if args.no_store else
             f"start {start * 1000:.1f} ms, tail after the last answer {tail * 1000:.1f} ms")
    print(f"C = {c}, L = {args.latency:.3f} s, {n} requests: {seconds:.3f} s = {n / seconds / (c / args.latency):.3f} "
          f"of C/L; {store}; load average {os.getloadavg()[0]:.2f}")
    print("ms from the first request; 'in stand-in' = read to answered there; 'seen' = sent to answered here")
    for first in range(0, n, c):
        mine, theirs = asked[first:first + c], served[first:first + c]
        begin, end = (mine[0][0] - t0) * 1000, (max(a for _, a in mine) - t0) * 1000
        overlap = [f"{k} {(b - t0) * 1000:.0f}-{(e - t0) * 1000:.0f}" for k, b, e in work
                   if (b - t0) * 1000 < end and (e - t0) * 1000 > begin]
        print(f"round {first // c}: sends {begin:7.1f}-{(mine[-1][0] - t0) * 1000:7.1f}, in stand-in median "
              f"{statistics.median((e - r) * 1000 for r, e in theirs):5.1f}, seen median "
              f"{statistics.median((a - s) * 1000 for s, a in mine):5.1f} max {max((a - s) * 1000 for s, a in mine):5.1f}"
              f"; store work: {', '.join(overlap) or '-'}")
    last = max(a for _, a in asked)
    after = [f"{k} {(b - t0) * 1000:.0f}-{(e - t0) * 1000:.0f}" for k, b, e in work if e > last]
    print(f"last answer {(last - t0) * 1000:.1f}; after it: {', '.join(after) or '-'}")
    for kind in ("commit", "refresh", "commit+refresh"):
        done = [w for w in work if w[0] == kind and w[2] > last]
        if done:
            _, began, ended = done[-1]
            inside = [(k, b, e) for k, b, e in parts if b >= began and e <= ended]
            rest = (ended - began) - sum(e - b for _, b, e in inside)
            print(f"  the last {kind}, {(ended - began) * 1000:.1f} ms: "
                  + ", ".join(f"{k} {(e - b) * 1000:.1f}" for k, b, e in inside) + f", the rest {rest * 1000:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
