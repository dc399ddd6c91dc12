"""The live runner's per-cell refresh against one DuckDB GROUP BY over the same rows.

Builds the store the throughput benchmark's full run leaves (one model in a fresh store; sentiment in id, vi, th and
ta with the English prompt, `--items` items x `--runs` runs per cell, answers scored by the evaluator and written
through `services.live.StoreSink` in groups, as the runner writes them), refreshes the first three cells as the run
does, then times, median of `--repeat` (warm, the first round dropped):
- `StoreSink.refresh` of the last cell with the pairs the sink holds (`refresh_aggregates(written=...)` in one
  transaction on its own cursor) and its reads taken ahead (`StoreSink.read_ahead`, as the runner takes them in
  its last round): what the run's tail pays after its last commit, each round on a new cell as the run's is
  (untimed before each round: the cell's derived rows deleted, its pairs handed back to the sink, the reads taken);
  and the same refresh reading for itself (a refresh during the run);
- the same, alternated round by round with the same refresh made to read its state (`StoreSink._clean_state`
  switched off: what every live refresh did before a clean cell's state came from the sink's read at the run's
  start), both medians from the alternated rounds;
- the run's last refresh alternated round by round with the same refresh computing its aggregates on its own
  thread (`services.ingest.AGGREGATOR` replaced by an inline executor: the path before 321ccce), both medians and
  the median of the paired differences;
- `refresh_aggregates` of the same cell read back from the store (a resumed or partly stored cell);
- the peer: one DuckDB GROUP BY (count and mean per metric) over the cell's score rows.
`--statements` adds the run's last refresh (reads taken ahead) statement by statement (median ms per round, through
a cursor that times every call into DuckDB) and its split into reads, writes, BEGIN/COMMIT and the rest (Python:
computing the aggregates, drill-down and roll-ups, merging the reads taken ahead, building parameters).
Conditions (machine, cores, load average before and after, versions) are printed with the figures.

    python benchmarks/bench_cell_refresh.py [--repeat 20] [--items 50] [--runs 5] [--statements]
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

if not os.environ.get("TANAW_DATA_DIR") and (ROOT.parent / "shared" / "data").is_dir():
    os.environ["TANAW_DATA_DIR"] = str(ROOT.parent / "shared" / "data")

from evaluator.datasets import load_items  # noqa: E402
from evaluator.registry import TASKS  # noqa: E402
from evaluator.run import Cell  # noqa: E402
from evaluator.scoring import score_prediction  # noqa: E402
from evaluator.spec import Prediction  # noqa: E402
from services.ingest import refresh_aggregates  # noqa: E402
from services.live import StoreSink  # noqa: E402
from store.db import connect, transaction  # noqa: E402

LANGS = ("id", "vi", "th", "ta")
MODEL = "bench-cell"
GROUP = 128
"""Answers per commit (the runner's group at C = 32)."""


def conditions() -> str:
    import duckdb

    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else "?"
    return (f"machine: {cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, DuckDB "
            f"{duckdb.__version__}; load average {os.getloadavg()[0]:.2f}")


def answers(cell: Cell, items: list) -> list:
    """(cell, settings, item, result) rows of one run: the gold label, or another label for every fourth item, with
    token counts and latency as an endpoint reports them."""
    labels = sorted({str(it.gold) for it in items})
    rows = []
    for i, it in enumerate(items):
        said = str(it.gold) if (i + cell.run_no) % 4 else labels[(i * 7 + cell.run_no) % len(labels)]
        pred = Prediction(task=cell.task.name, lang=cell.lang, item_id=it.item_id, prompt_lang=cell.prompt_lang,
                          output=f"Answer: {said}", run=cell.run_no, tokens_in=120 + i % 7, tokens_out=3,
                          latency_s=0.2 + (i % 5) / 100, finish_reason="stop")
        rows.append((cell, {"temperature": 0.0}, it, score_prediction(cell.task, it, pred)))
    return rows


def build(con, n_items: int, n_runs: int) -> tuple[StoreSink, list[list[Cell]]]:
    """The full run's store: every cell's answers saved in groups, the first cells refreshed; the sink and each
    cell's runs."""
    task = TASKS["sentiment"]
    by_cell = [[Cell(task, lang, "en", r) for r in range(1, n_runs + 1)] for lang in LANGS]
    sink = StoreSink(con, MODEL, {"family": "bench"})
    sink.stored_many([c for runs in by_cell for c in runs])
    items = {lang: load_items("sentiment", lang)[:n_items] for lang in LANGS}
    sink.prepare([it for lang in LANGS for it in items[lang]])
    for runs in by_cell:
        rows = [row for cell in runs for row in answers(cell, items[cell.lang])]
        for k in range(0, len(rows), GROUP):
            sink.save_many(rows[k:k + GROUP])
        if runs is not by_cell[-1]:
            sink.refresh(runs)
    return sink, by_cell


def timed(fn, repeat: int, reset=None) -> tuple[float, float]:
    """Median (wall s, process CPU s: DuckDB's threads included) of `fn()` over `repeat` rounds after one warm-up
    round; `reset()` runs untimed before each round."""
    walls, cpus = [], []
    for _ in range(repeat + 1):
        if reset is not None:
            reset()
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls[1:]), statistics.median(cpus[1:])


def alternated(sink: StoreSink, last: list, new_cell, repeat: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """Median (wall s, process CPU s) of the last refresh as the sink does it and with its state read, alternating
    the two round by round (`repeat` rounds each, after one warm-up round of each)."""
    runs: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for k in range(2 * (repeat + 1)):
        clean = k % 2 == 0
        if not clean:
            sink._clean_state = lambda cells, written: None  # the instance's: the refresh reads its state
        new_cell()
        try:
            c0, t0 = time.process_time(), time.perf_counter()
            sink.refresh(last)
            runs[clean].append((time.perf_counter() - t0, time.process_time() - c0))
        finally:
            sink.__dict__.pop("_clean_state", None)
    return tuple((statistics.median(w for w, _ in runs[c][1:]), statistics.median(p for _, p in runs[c][1:]))
                 for c in (True, False))


class _Inline:
    """An executor that runs what it is given at once, on the caller's thread."""

    def submit(self, fn, *args):
        done = concurrent.futures.Future()
        done.set_result(fn(*args))
        return done


def aggregator_ab(sink: StoreSink, last: list, new_cell, repeat: int) -> tuple[float, float, float]:
    """Median wall s of the last refresh with its aggregates on `services.ingest.AGGREGATOR` and on the refresh's
    own thread, alternating round by round (`repeat` each after one warm-up round of each), and the median of the
    paired differences (thread minus inline)."""
    import services.ingest

    real = services.ingest.AGGREGATOR
    runs: dict[bool, list[float]] = {True: [], False: []}
    try:
        for k in range(2 * (repeat + 1)):
            threaded = k % 2 == 1
            services.ingest.AGGREGATOR = real if threaded else _Inline()
            new_cell()
            t0 = time.perf_counter()
            sink.refresh(last)
            runs[threaded].append(time.perf_counter() - t0)
    finally:
        services.ingest.AGGREGATOR = real
    diffs = [a - b for a, b in zip(runs[True][1:], runs[False][1:])]
    return statistics.median(runs[True][1:]), statistics.median(runs[False][1:]), statistics.median(diffs)


class TimedCursor:
    """A connection whose calls into DuckDB are timed (wall s per (kind, caller, statement head)); `cursor()` gives
    another such proxy sharing the log, so a refresh on its own cursor is timed too."""

    CALLS = frozenset({"execute", "executemany", "sql", "register", "unregister", "from_arrow", "append"})

    def __init__(self, con, log: dict | None = None):
        self._con, self.log = con, log if log is not None else collections.defaultdict(list)

    def cursor(self) -> "TimedCursor":
        return TimedCursor(self._con.cursor(), self.log)

    def __getattr__(self, name: str):
        attr = getattr(self._con, name)
        if name not in self.CALLS:
            return attr

        def timed_call(*args, **kwargs):
            caller = sys._getframe(1).f_code.co_name
            head = " ".join(args[0].split())[:48] if args and isinstance(args[0], str) else name
            t0 = time.perf_counter()
            try:
                out = attr(*args, **kwargs)
            finally:
                self.log[(caller, head)].append(time.perf_counter() - t0)
            return TimedRelation(out, self.log[(caller, head)]) if name in ("sql", "from_arrow") else out
        return timed_call


class TimedRelation:
    """A relation whose calls (the insert or fetch that runs it) add to its statement's time."""

    def __init__(self, rel, times: list):
        self._rel, self._times = rel, times

    def __getattr__(self, name: str):
        attr = getattr(self._rel, name)
        if not callable(attr):
            return attr

        def timed_call(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return attr(*args, **kwargs)
            finally:
                self._times[-1] += time.perf_counter() - t0
        return timed_call


def kind_of(head: str) -> str:
    """read | write | transaction of a statement head."""
    word = head.split(" ", 1)[0].upper()
    if word in ("BEGIN", "COMMIT", "ROLLBACK"):
        return "transaction"
    return "read" if word in ("SELECT", "WITH") else "write"


def statement_split(sink: StoreSink, last: list, new_cell, repeat: int) -> list[str]:
    """The last refresh statement by statement, and its split into reads, writes, transaction and the rest, as
    lines to print (`new_cell` runs untimed before each round, on the sink's own connection)."""
    real = sink.con
    proxy = TimedCursor(real)
    try:
        totals = []
        for k in range(repeat + 1):
            sink.con = real
            new_cell()
            sink.con = proxy
            if k == 1:  # the first round warms up
                proxy.log.clear()
                totals.clear()
            t0 = time.perf_counter()
            sink.refresh(last)
            totals.append(time.perf_counter() - t0)
    finally:
        sink.con = real
    per = {key: statistics.median(v) * len(v) / len(totals) for key, v in proxy.log.items()}
    lines = [f"the last refresh statement by statement (median ms per round of {len(totals)}):"]
    lines += [f"  {ms * 1000:6.2f}  {kind_of(head):<11} {caller:<24} {head}"
              for (caller, head), ms in sorted(per.items(), key=lambda kv: -kv[1])]
    split = collections.Counter()
    for (_, head), ms in per.items():
        split[kind_of(head)] += ms
    whole = statistics.median(totals)
    rest = whole - sum(split.values())
    return lines + [f"  refresh {whole * 1000:.1f} ms = reads {split['read'] * 1000:.1f} + writes "
                    f"{split['write'] * 1000:.1f} + BEGIN/COMMIT {split['transaction'] * 1000:.1f} + the rest (Python) "
                    f"{rest * 1000:.1f}; {len(per)} statements; without its reads: "
                    f"{(whole - split['read']) * 1000:.1f} ms"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--items", type=int, default=50)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--statements", action="store_true", help="the last refresh statement by statement")
    args = ap.parse_args()
    print(conditions())
    with tempfile.TemporaryDirectory() as tmp:
        con = connect(Path(tmp) / "cell.duckdb")
        sink, by_cell = build(con, args.items, args.runs)
        last = by_cell[-1]
        key = (last[0].task.name, last[0].lang, last[0].prompt_lang)
        held, runs = dict(sink._fresh[key]), set(sink._fresh_runs[key])

        def new_cell() -> None:  # as before the run's last refresh: the cell has no derived rows yet, and the sink
            # holds its pairs (it gives them away on refresh)
            with transaction(con):
                for table in ("aggregates", "drill_cells", "drill_nodes", "cell_field"):
                    con.execute(f"DELETE FROM {table} WHERE model_id = ? AND task = ? AND lang = ? "
                                "AND prompt_lang = ?", [MODEL, *key])
            con.execute("DELETE FROM item_outcomes WHERE cell_no NOT IN (SELECT cell_no FROM drill_cells)")
            con.execute("DELETE FROM run_counts WHERE list_contains(?, run_id)", [sorted(runs)])
            sink._fresh[key], sink._fresh_runs[key] = dict(held), set(runs)

        def new_cell_ahead() -> None:  # and its reads taken, as the runner takes them in its last round
            new_cell()
            sink.read_ahead([key])

        def stored() -> None:
            with transaction(con):
                refresh_aggregates(con, MODEL, [key])

        group_by = ("SELECT s.metric, count(*) AS n, avg(s.value) AS mean FROM scores s JOIN runs r "
                    "ON r.run_id = s.run_id WHERE r.model_id = ? AND r.task = ? AND r.lang = ? "
                    "AND r.prompt_lang = ? AND NOT r.superseded GROUP BY ALL")
        n_rows = con.execute("SELECT count(*) FROM predictions").fetchone()[0]
        ours = timed(lambda: sink.refresh(last), args.repeat, new_cell_ahead)
        reading = timed(lambda: sink.refresh(last), args.repeat, new_cell)
        clean, with_read = alternated(sink, last, new_cell, args.repeat)
        on_thread, inline, paired = aggregator_ab(sink, last, new_cell_ahead, args.repeat)
        back = timed(stored, args.repeat)
        peer = timed(lambda: con.execute(group_by, [MODEL, *key]).fetchall(), args.repeat)
        split = statement_split(sink, last, new_cell_ahead, args.repeat) if args.statements else []
        con.close()
    print(f"store: {len(by_cell)} cells x {args.runs} runs x {args.items} items = {n_rows:,} answers; "
          f"median of {args.repeat} (warm); wall ms (process CPU ms)")
    for label, (wall, cpu) in ((f"StoreSink.refresh of a new cell ({len(held)} pairs held), reads taken ahead: the run's "
                                "last refresh", ours),
                               ("the same refresh reading for itself (a refresh during the run)", reading),
                               ("  alternated: the same, its state from the sink's plan read (as the sink does it)",
                                clean),
                               ("  alternated: the same, reading its state too (the path before)", with_read),
                               ("refresh_aggregates of the same cell read back from the store", back),
                               ("one DuckDB GROUP BY over the cell's score rows (the peer)", peer)):
        ratio = f" = {wall / peer[0]:5.1f}x the GROUP BY" if label[0] != "o" else ""
        print(f"  {label:<78} {wall * 1000:6.1f} ({cpu * 1000:5.1f}){ratio}")
    print(f"  alternated: the run's last refresh, aggregates on their own thread {on_thread * 1000:.1f} ms, on the "
          f"refresh's thread {inline * 1000:.1f} ms; paired difference median {paired * 1000:+.1f} ms")
    print("  aim: the runner's refresh <= 20 ms")
    print("\n".join(split))
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
