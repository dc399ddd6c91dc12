"""Request throughput against the stand-in server: achieved requests/s versus the physical limit (in flight / L).

With a fixed server latency L and at most C requests in flight, no client can exceed C/L requests per second.
For C in {1, 8, 32, 128} this prints Tanaw's achieved rate and its ratio to that limit, for
  * `tanaw`        — the runner's request loop (`evaluator.run.bounded`: C workers, one request each, via ModelClient)
  * `tanaw+store`  — with --full: the whole runner, each answer scored and committed to DuckDB before its slot frees
  * `pacute-bench` — a re-implementation of pacute-bench's MCQ loop as documented in its vLLM evaluator:
                     an asyncio.Semaphore(C) per item, and inside it one echo+logprobs completion request per
                     option (4 options) gathered at once, on a default AsyncOpenAI client; its in-flight cap is 4C.
The stand-in runs in its own process so the client's CPU time is measured on its own. Both request loops are timed
after a warm-up round that opens their connections; `tanaw+store` is timed end to end (planning, every commit and
the final aggregate refresh included).

    python benchmarks/bench_throughput.py [--latency 0.5] [--per-slot 20] [--full]
"""
from __future__ import annotations

import argparse
import asyncio
import math
import socket
import tempfile
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from openai import AsyncOpenAI  # noqa: E402

from evaluator.clients import ModelClient  # noqa: E402
from evaluator.run import bounded  # noqa: E402

OPTIONS = 4


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_standin(latency: float) -> tuple[subprocess.Popen, str]:
    """The stand-in server in a child process; returns (process, base URL) once it answers."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "standin_server.py"), "--port", str(port),
                             "--latency", str(latency)])
    url = f"http://127.0.0.1:{port}/v1"
    for _ in range(100):
        try:
            urllib.request.urlopen(url + "/models", timeout=1).read()
            return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("stand-in server did not start")


async def tanaw_loop(url: str, concurrency: int, n: int) -> float:
    """Seconds for n chat requests through the runner's bounded loop."""
    async with ModelClient(url, "standin", concurrency=concurrency) as client:
        async def one(i: int) -> None:
            await client.chat([{"role": "user", "content": f"question {i}"}], max_tokens=8)

        await bounded(range(concurrency), one, concurrency)  # warm-up: open the connections, load lazy imports
        t0 = time.perf_counter()
        await bounded(range(n), one, concurrency)
        return time.perf_counter() - t0


async def tanaw_run(url: str, concurrency: int, n: int, db: Path) -> tuple[int, float]:
    """(answers, seconds) for the full runner: render, ask, score and store each answer in DuckDB as it lands."""
    from evaluator.run import run
    from evaluator.runspec import RunSpec
    from services.run import StoreSink
    from store.db import connect

    limit = max(1, math.ceil(n / 16))  # sentiment + NLI: 8 (lang, prompt language) cells each
    con = connect(db)
    try:
        async with ModelClient(url, "standin", concurrency=concurrency) as client:
            t0 = time.perf_counter()
            statuses = await run(client, StoreSink(con, f"bench-c{concurrency}"),
                                 RunSpec(tasks="sentiment,nli", limit=limit, concurrency=concurrency),
                                 progress=False)
            elapsed = time.perf_counter() - t0
    finally:
        con.close()
    return sum(s.asked for s in statuses), elapsed


async def pacute_bench_loop(url: str, concurrency: int, n_items: int) -> float:
    """Seconds for n_items MCQ items scored the pacute-bench way (semaphore per item, one request per option)."""
    client = AsyncOpenAI(base_url=url, api_key="EMPTY")
    sem = asyncio.Semaphore(concurrency)

    async def logprob(prefix: str, option: str) -> float:
        r = await client.completions.create(model="standin", prompt=prefix + " " + option, max_tokens=1,
                                            echo=True, logprobs=1, temperature=0.0)
        return sum(lp for lp in r.choices[0].logprobs.token_logprobs if lp is not None)

    async def item(i: int) -> int:
        async with sem:
            scores = await asyncio.gather(*[logprob(f"Question {i}:", f"option{k}") for k in range(OPTIONS)])
        return max(range(OPTIONS), key=scores.__getitem__)

    await asyncio.gather(*[item(-i) for i in range(1, concurrency + 1)])  # warm-up, as for tanaw
    t0 = time.perf_counter()
    await asyncio.gather(*[item(i) for i in range(n_items)])
    elapsed = time.perf_counter() - t0
    await client.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5, help="server latency L in seconds")
    parser.add_argument("--per-slot", type=int, default=20, help="requests per concurrency slot (run length)")
    parser.add_argument("--concurrency", default="1,8,32,128")
    parser.add_argument("--full", action="store_true",
                        help="also time the whole runner (render, score, one DuckDB transaction per answer)")
    args = parser.parse_args()
    proc, url = start_standin(args.latency)
    try:
        print(f"stand-in latency L = {args.latency:.3f} s; limit = (requests in flight) / L")
        print(f"{'loop':<13}{'C':>5}{'in flight':>10}{'requests':>9}{'seconds':>9}{'req/s':>9}{'limit':>9}"
              f"{'ratio':>7}")
        for c in [int(x) for x in args.concurrency.split(",")]:
            n = c * args.per_slot
            secs = asyncio.run(tanaw_loop(url, c, n))
            limit = c / args.latency
            print(f"{'tanaw':<13}{c:>5}{c:>10}{n:>9}{secs:>9.2f}{n / secs:>9.1f}{limit:>9.1f}"
                  f"{n / secs / limit:>7.0%}")
            if args.full:
                with tempfile.TemporaryDirectory() as tmp:
                    done, secs = asyncio.run(tanaw_run(url, c, n, Path(tmp) / "bench.duckdb"))
                print(f"{'tanaw+store':<13}{c:>5}{c:>10}{done:>9}{secs:>9.2f}{done / secs:>9.1f}{limit:>9.1f}"
                      f"{done / secs / limit:>7.0%}")
            items = max(c * args.per_slot // OPTIONS, 1)
            secs = asyncio.run(pacute_bench_loop(url, c, items))
            limit = OPTIONS * c / args.latency
            print(f"{'pacute-bench':<13}{c:>5}{OPTIONS * c:>10}{items * OPTIONS:>9}{secs:>9.2f}"
                  f"{items * OPTIONS / secs:>9.1f}{limit:>9.1f}{items * OPTIONS / secs / limit:>7.0%}")
    finally:
        proc.kill()
        proc.wait()


if __name__ == "__main__":
    main()
