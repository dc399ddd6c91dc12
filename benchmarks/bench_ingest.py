"""Ingest speed against the floor of reading the file, and the recompute against one DuckDB GROUP BY.

    python benchmarks/bench_ingest.py [--items 100000] [--repeat 3] [--cli] [--formats native,pacute-bench,...]

Native part (always): a generated native JSONL of `--items` causal rows (the four languages' items of the data
folder, repeated as runs 1..k; answers A/B by a fixed rule) is written to a temporary file, then timed:
- the floor: read the file and `json.loads` every line;
- `python -m evaluator ingest`'s work in this process (`read_upload` then `ingest_upload` into a fresh store, as
  `cli.ingest.run` does), and with `--cli` the command itself as a subprocess (interpreter start and
  imports included). After one untimed round of each (imports, the file's pages), the floor and the ingest
  alternate, `--repeat` rounds: the medians of each, and each round's ratio (its ingest over the floor read just
  before it) with their median, which holds on a machine whose speed drifts between minutes;
- `refresh_aggregates` of the ingested cells from the stored rows, against one DuckDB `GROUP BY` over the same
  score rows (count and mean per cell and metric), both warm, alternating, median of `--repeat` and each round's
  ratio; each round starts from a
  checkpointed store (untimed CHECKPOINT), as the refresh after an ingest does: DuckDB's write-ahead log grows by
  every earlier round's deleted item-outcome lists until a checkpoint, which would charge round k for k-1 earlier
  rounds;
- the store statements one ingest issues and the rows it writes per scored row (each scored row once).
- `refresh_aggregates` of one small cell (sentiment, 50 items x 5 runs) in a store of 20 such cells: the fixed
  cost the live runner pays once per finished cell;
`--formats` adds the per-format table (read and ingest items/s) for upload formats built from the samples.
Conditions (machine, cores, load average before and after, versions) are printed with the figures, and beside the
wall times the process CPU times (DuckDB's threads included): on a shared machine the CPU ratios hold steadier.
"""
from __future__ import annotations

import argparse
import io
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

if not os.environ.get("TANAW_DATA_DIR") and (ROOT.parent / "shared" / "data").is_dir():
    os.environ["TANAW_DATA_DIR"] = str(ROOT.parent / "shared" / "data")

from evaluator.datasets import default_data_dir, load_items  # noqa: E402
from evaluator.formats.limits import Limits  # noqa: E402
from evaluator.formats.read import read_upload  # noqa: E402
from services.upload import ingest_upload  # noqa: E402

WORDS = {"positive": "Positive", "negative": "Negative", "neutral": "Neutral"}


def _jsonl(rows) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


def native(n: int) -> tuple[str, bytes]:
    items = [it for lang in ("id", "vi", "th", "ta") for it in load_items("causal", lang)]
    runs = math.ceil(n / len(items))
    rows = [{"task": "causal", "lang": it.lang, "item_id": it.item_id, "prompt_lang": "en", "run": r,
             "prediction": "A" if (i + r) % 3 else "B"} for r in range(1, runs + 1) for i, it in enumerate(items)]
    return "bench.jsonl", _jsonl(rows[:n])


def pacute_bench(n: int) -> tuple[str, bytes]:
    src = default_data_dir() / "pacute" / "results-sample" / "gpt-4.1-nano" / "inference" / "cute-gen.jsonl"
    data = src.read_bytes()
    per = data.count(b"\n")
    runs = math.ceil(n / per)
    return "bench.zip", _zip({f"run_{r}/inference/cute-gen.jsonl": data for r in range(1, runs + 1)})


def seahelm(n: int) -> tuple[str, bytes]:
    files = {}
    cells = {lang: load_items("sentiment", lang) for lang in ("id", "vi", "th", "ta")}
    per = sum(len(v) for v in cells.values())
    for r in range(1, math.ceil(n / per) + 1):
        for lang, items in cells.items():
            rows = [{"id": it.item_id, "label": it.gold, "metadata": {}, "prompts": [{"text": it.inputs["text"]}],
                     "responses": [WORDS[it.gold] if i % 4 else "Neutral"], "cleaned_responses": [it.gold],
                     "individual_scores": {"accuracy": 1.0}, "finish_reasons": ["stop"],
                     "token_usages": [{"prompt_tokens": 100, "completion_tokens": 3}], "reasoning_contents": [None],
                     "cumulative_logprobs": [None]} for i, it in enumerate(items)]
            files[f"run_{r}/inferences/{lang}/sentiment/bench_sentiment_{lang}.jsonl"] = _jsonl(rows)
    return "bench.zip", _zip(files)


def lm_eval(n: int) -> tuple[str, bytes]:
    items = load_items("pacute-composition-mcq", "tl")
    rows = []
    for i, it in enumerate(items):
        lps = [-1.0 - ((k + i) % 4) for k in range(len(it.options))]
        rows.append({"doc_id": i, "doc": {"id": it.item_id, "text_en": it.inputs["text_en"]}, "target": 0,
                     "arguments": {f"gen_args_{k}": {"arg_0": it.inputs["text_en"], "arg_1": " " + o}
                                   for k, o in enumerate(it.options)},
                     "resps": [[[lp, False]] for lp in lps], "filtered_resps": [[lp, False] for lp in lps],
                     "filter": "none", "metrics": ["acc"], "acc": 1.0})
    data = _jsonl(rows)
    runs = math.ceil(n / len(rows))
    return "bench.zip", _zip({f"run_{r}/samples_composition_mcq_2026-01-01T00-00-00.jsonl": data
                              for r in range(1, runs + 1)})


BUILDERS = {"native": native, "pacute-bench": pacute_bench, "seahelm": seahelm, "lm-eval": lm_eval}


def conditions() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else "?"
    import duckdb

    return (f"machine: {cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, DuckDB "
            f"{duckdb.__version__}; load average {os.getloadavg()[0]:.1f}")


class Counter:
    """Counts the statements the pipeline sends through the upload's joined connection (execute and register)."""

    def __init__(self):
        from store.writer_lock import Joined

        self.n = 0
        self._joined, self._execute = Joined, Joined.execute
        counter = self

        def execute(self, sql, *args, **kwargs):
            counter.n += 1
            return counter._execute(self, sql, *args, **kwargs)

        Joined.execute = execute

    def close(self) -> None:
        self._joined.execute = self._execute


def floor(path: Path) -> tuple[float, float]:
    """(wall s, CPU s) of reading the file and `json.loads` of every line."""
    c0, t0 = time.process_time(), time.perf_counter()
    for line in path.read_bytes().splitlines():
        json.loads(line)
    return time.perf_counter() - t0, time.process_time() - c0


def ingest_once(path: Path, db: Path) -> tuple[float, float, int, float]:
    """(read s, ingest s, statements, CPU s of both) of the CLI's work in this process."""
    counter = Counter()
    try:
        c0, t0 = time.process_time(), time.perf_counter()
        up = read_upload(path, fmt="native")
        t1 = time.perf_counter()
        out = ingest_upload(db, up, model={"model_id": "bench"}, actor="bench")
        t2, c2 = time.perf_counter(), time.process_time()
    finally:
        counter.close()
    assert out.status == "imported", out.message
    return t1 - t0, t2 - t1, counter.n, c2 - c0


def recompute(db: Path, repeat: int) -> tuple[float, float, int, int, tuple[float, float], list[float]]:
    """Median seconds of refresh_aggregates of every cell from the stored rows and of one GROUP BY over the same
    score rows; the cells and score rows; median CPU seconds of both; each round's ratio (the two alternate)."""
    from services.ingest import refresh_aggregates
    from store.db import transaction
    from store.writer_lock import writer

    group_by = ("SELECT r.task, r.lang, r.prompt_lang, s.metric, count(*) AS n, avg(s.value) AS mean "
                "FROM scores s JOIN runs r ON r.run_id = s.run_id WHERE r.model_id = ? AND NOT r.superseded "
                "GROUP BY ALL")
    with writer(db) as con:
        cells = [tuple(c) for c in con.execute("SELECT DISTINCT task, lang, prompt_lang FROM runs "
                                               "WHERE model_id = 'bench'").fetchall()]
        n_scores = con.execute("SELECT count(*) FROM scores").fetchone()[0]
        ours, peer, cpu = [], [], []
        for _ in range(repeat + 1):  # the first round warms both up
            con.execute("CHECKPOINT")  # untimed: each round refreshes a checkpointed store, as after an ingest
            c0, t0 = time.process_time(), time.perf_counter()
            with transaction(con):
                refresh_aggregates(con, "bench", cells)
            t1, c1 = time.perf_counter(), time.process_time()
            con.execute(group_by, ["bench"]).fetchall()
            t2, c2 = time.perf_counter(), time.process_time()
            ours.append(t1 - t0)
            peer.append(t2 - t1)
            cpu.append((c1 - c0, c2 - c1))
    return (statistics.median(ours[1:]), statistics.median(peer[1:]), len(cells), n_scores,
            tuple(statistics.median(c[i] for c in cpu[1:]) for i in (0, 1)),
            [a / b for a, b in zip(ours[1:], peer[1:])])


SMALL_CELLS = ([("sentiment", lang, pl) for lang in ("id", "vi", "th", "ta") for pl in ("en", "native")]
               + [("nli", lang, pl) for lang in ("id", "vi", "th", "ta") for pl in ("en", "native")]
               + [("causal", lang, pl) for lang in ("id", "vi") for pl in ("en", "native")])
"""The small store's 20 cells (task, lang, prompt_lang)."""


def small_store(items: int, runs: int) -> tuple[str, bytes]:
    """A native JSONL of `items` items x `runs` runs in each of SMALL_CELLS, answers the gold label or another of
    the cell's labels by a fixed rule (as a live run of a small model would leave them)."""
    rows = []
    for task, lang, pl in SMALL_CELLS:
        cell_items = load_items(task, lang)[:items]
        labels = sorted({str(it.gold) for it in cell_items})
        for r in range(1, runs + 1):
            rows += [{"task": task, "lang": lang, "item_id": it.item_id, "prompt_lang": pl, "run": r,
                      "prediction": str(it.gold) if (i + r) % 4 else labels[(i * 7 + r) % len(labels)]}
                     for i, it in enumerate(cell_items)]
    return "small.jsonl", _jsonl(rows)


def small_refresh(tmp: Path, repeat: int, items: int = 50, runs: int = 5) -> tuple[float, float, int]:
    """Median (wall s, CPU s) of refresh_aggregates of one sentiment cell of `items` x `runs` rows in a store of 20
    such cells (what the live runner pays once per finished cell), and the store's rows."""
    from services.ingest import refresh_aggregates
    from store.db import transaction
    from store.writer_lock import writer

    name, data = small_store(items, runs)
    path = tmp / name
    path.write_bytes(data)
    db = tmp / "small.duckdb"
    out = ingest_upload(db, read_upload(path, fmt="native"), model={"model_id": "small"}, actor="bench")
    assert out.status == "imported", out.message
    walls, cpus = [], []
    with writer(db) as con:
        n_rows = con.execute("SELECT count(*) FROM predictions").fetchone()[0]
        for _ in range(repeat + 1):  # the first round warms up
            con.execute("CHECKPOINT")
            c0, t0 = time.process_time(), time.perf_counter()
            with transaction(con):
                refresh_aggregates(con, "small", [("sentiment", "id", "en")])
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
    return statistics.median(walls[1:]), statistics.median(cpus[1:]), n_rows


def native_figures(n: int, repeat: int, cli: bool) -> None:
    import duckdb

    print(conditions())
    with tempfile.TemporaryDirectory() as tmp:
        name, data = native(n)
        path = Path(tmp) / name
        path.write_bytes(data)
        ingest_once(path, Path(tmp) / "warm-up.duckdb")  # untimed: imports and first-use caches, as floor's first
        floor(path)                                        # read warms the file's pages
        floors, rounds = [], []
        for i in range(repeat):  # floor and ingest alternate: each round's ratio compares neighbours in time
            floors.append(floor(path))
            rounds.append(ingest_once(path, Path(tmp) / f"r{i}.duckdb"))
        loads, loads_cpu = (statistics.median(f[i] for f in floors) for i in (0, 1))
        read_s, ingest_s, cpu_s = (statistics.median(r[i] for r in rounds) for i in (0, 1, 3))
        paired = [(r[0] + r[1]) / f[0] for f, r in zip(floors, rounds)]
        statements = rounds[0][2]
        con = duckdb.connect(str(Path(tmp) / "r0.duckdb"), read_only=True)
        preds, scores = (con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("predictions", "scores"))
        con.close()
        total = read_s + ingest_s
        print(f"native rows: {n:,} ({len(data) / 1e6:.1f} MB), {repeat} rounds, medians")
        print(f"  read + json.loads every line      {loads:7.2f} s (CPU {loads_cpu:.2f} s)")
        print(f"  ingest: read_upload (parse, map)   {read_s:7.2f} s")
        print(f"  ingest: ingest_upload (score, write, aggregate) {ingest_s:7.2f} s")
        print(f"  ingest total                       {total:7.2f} s = {total / loads:5.1f}x the read + json.loads "
              f"(target <= 10x); {n / total:,.0f} rows/s; CPU {cpu_s:.2f} s = {cpu_s / loads_cpu:.1f}x the floor's CPU")
        print(f"  round by round (each ingest / the read just before it): {' '.join(f'{x:.1f}x' for x in paired)}; "
              f"median {statistics.median(paired):.1f}x")
        print(f"  one ingest: {statements} store statements; {preds:,} prediction rows and {scores:,} score rows "
              f"for {n:,} scored rows ({preds / n:.2f} and {scores / n:.2f} per row)")
        if cli:
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "evaluator", "ingest", str(path), "--model", "bench-cli",
                            "--db", str(Path(tmp) / "cli.duckdb")], check=True, cwd=ROOT, capture_output=True)
            wall = time.perf_counter() - t0
            print(f"  `python -m evaluator ingest` subprocess (interpreter start and imports included) {wall:7.2f} s "
                  f"= {wall / loads:5.1f}x")
        ours, peer, cells, n_scores, cpu, per_round = recompute(Path(tmp) / "r0.duckdb", repeat)
        print(f"refresh_aggregates of {cells} cells from {n_scores:,} stored score rows: {ours * 1000:8.1f} ms "
              f"(CPU {cpu[0] * 1000:.0f} ms); one DuckDB GROUP BY over the same rows: {peer * 1000:6.1f} ms (CPU "
              f"{cpu[1] * 1000:.1f} ms); ratio {ours / peer:5.1f}x (target <= 20x), CPU {cpu[0] / cpu[1]:.0f}x")
        print(f"  round by round: {' '.join(f'{x:.1f}x' for x in per_round)}; median {statistics.median(per_round):.1f}x")
        wall, cpu_s, n_small = small_refresh(Path(tmp), max(repeat, 5))
        print(f"refresh_aggregates of one sentiment cell (50 items x 5 runs) in a store of {len(SMALL_CELLS)} such "
              f"cells ({n_small:,} rows; the live runner's per-cell refresh): {wall * 1000:6.1f} ms (CPU "
              f"{cpu_s * 1000:.1f} ms), median of {max(repeat, 5)}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


def format_table(formats: list[str], n: int) -> None:
    limits = Limits(max_members=5000)
    print(f"{'format':<13} {'items':>8} {'MB':>6} {'read s':>7} {'read it/s':>10} {'ingest s':>8} "
          f"{'ingest it/s':>11} {'total it/s':>10}")
    for fmt in formats:
        name, data = BUILDERS[fmt](n)
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            up = read_upload(data, name, fmt=fmt, limits=limits)
            t1 = time.perf_counter()
            if not up.ok:
                print(f"{fmt}: refused: {up.errors[:3]}")
                continue
            out = ingest_upload(Path(tmp) / "bench.duckdb", up, model={"model_id": f"bench-{fmt}"}, actor="bench")
            t2 = time.perf_counter()
        k = len(up.predictions)
        assert out.status == "imported", out.message
        print(f"{fmt:<13} {k:>8} {len(data) / 1e6:>6.1f} {t1 - t0:>7.1f} {k / (t1 - t0):>10.0f} {t2 - t1:>8.1f} "
              f"{k / (t2 - t1):>11.0f} {k / (t2 - t0):>10.0f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cli", action="store_true", help="also time `python -m evaluator ingest` as a subprocess")
    ap.add_argument("--formats", default="", help=f"per-format table for these ({','.join(BUILDERS)})")
    args = ap.parse_args()
    native_figures(args.items, args.repeat, args.cli)
    if args.formats:
        format_table(args.formats.split(","), args.items)


if __name__ == "__main__":
    main()
