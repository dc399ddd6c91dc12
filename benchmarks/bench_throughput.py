"""Request throughput against one stand-in server: achieved requests/s versus the limit C/L, Tanaw beside lm-eval.

With a fixed server latency L and at most C requests in flight, no client can exceed C/L requests per second. For
each C, in ONE run against ONE stand-in (tests/helpers/standin_server.py in its own process), this times
  * `tanaw run`      the whole runner end to end (`evaluator.run.run` into a fresh DuckDB store through
                     `services.live.StoreSink`): planning, prompts, requests, scoring, every group commit and the
                     aggregate refresh of every cell; 1,000 requests = sentiment in id/vi/th/ta, English prompt,
                     50 items, 5 runs (20 cells);
  * `tanaw no store` the same runner, plan and warm-up into a sink that keeps nothing (`DiscardSink`): the
                     difference to `tanaw run` is what the store costs (commits, the last cell's refresh);
  * `tanaw client`   the client loop alone: `evaluator.run.bounded` with C workers on `ModelClient.chat`;
  * `client cold`    (--cold) the same loop on a new client, so that it opens its C connections inside the clock as
                     `tanaw run` does (its warm-up, on another client, loads only the code): what a run would reach
                     if it did nothing but ask (at C = 128 the stand-in accepts the C connections before it reads the
                     first request, a cost the warmed `tanaw client` row does not pay);
  * `openai SDK`     (--sdk) the same loop on the openai SDK's AsyncOpenAI (httpx pool of C connections, no retries);
  * `aiohttp`        (--aiohttp) the same loop on one bare aiohttp ClientSession (TCPConnector(limit=C), orjson
                     bodies, no retries, no rate limiter, no replica choice): the library `ModelClient` sends through
                     (`evaluator.clients.Endpoint`), so `tanaw client` minus this is what the client adds to it;
  * `lm-eval loop`   lm-evaluation-harness's `local-chat-completions` (`lmeval_chat_driver.py`, run by the Python of
                     a separate venv given as --lmeval-venv): num_concurrent=C, max_retries=3, no tokenizer, one
                     chat completion per request; `generate_until` ONLY, on Instances built before the clock: its
                     aiohttp request loop, no request building, scoring or aggregation (the peer of `tanaw client`);
  * `lm-eval evaluate` the same model under the harness's own runner (`lmeval_chat_driver.py --mode evaluate`):
                     `lm_eval.evaluator.evaluate` as `lm_eval --include_path DIR --tasks ... --apply_chat_template`
                     runs it, on a local sentiment-style task (four languages, N/4 documents each, zero-shot,
                     exact_match with its mean and stderr, every sample kept in memory): requests built, sent,
                     filtered, scored and aggregated (the peer of `tanaw run`; the line below the table gives its
                     time inside generate_until and the metric it computed). Its prompt is a Python function in the
                     task YAML (`!function`), as Tanaw's is a Python format string;
  * `lm-eval jinja`  (--lmeval-jinja) the same with the prompt as a Jinja template string in the YAML, the other
                     common way to write a task (lm-eval 0.4.13 compiles the template again for every document).
Each is timed after a warm-up (C requests; for the full run, one item per cell into another store), the full run
from planning to the last refresh; `start s` is its time to the first request ("already stored" lookup, the
first task and language's items and prompts: the rest is planned later, `evaluator/run_feed.py`) and `tail s`
its time after the last answer arrived (the last group's commit with the last cell's aggregate refresh and the
roll-ups, in one transaction: `StoreSink.save_refresh`). For the lm-eval evaluate rows
`start s` is the time before `generate_until` is called (building every request) and `tail s` the time after it
returns with every answer (filters, metrics, aggregation with stderr, samples). Each line carries the load
average; the machine line names CPU and cores.

    python benchmarks/bench_throughput.py --lmeval-venv /tmp/lmeval-venv [--latency 0.2] [--requests 1000]
        [--concurrency 8,32,128] [--cold] [--sdk] [--aiohttp] [--lmeval-jinja] [--rounds N]

`--rounds N` repeats every row N times, alternating, then prints the median ratios and `tanaw run` minus each
lm-eval row round by round: the verdict "above lm-eval" is read from those paired differences. With `--cold`, at the
C of the target lines (0.95 of C/L at C = 32, 0.90 at 128) it also prints the time the line allows, the part of it
a client that only asks takes (`client cold`, range over the rounds) and the run's time after its last answer.

Preparing the venv (torch first from the local wheel: an unpinned torch would download gigabytes):
    python3 -m venv /tmp/lmeval-venv && /tmp/lmeval-venv/bin/pip install torch==2.13.0 \\
        && /tmp/lmeval-venv/bin/pip install "lm-eval[api]==0.4.13"
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from evaluator.clients import ModelClient  # noqa: E402
from evaluator.run import bounded, run  # noqa: E402
from evaluator.runspec import RunSpec  # noqa: E402

RUN_JOBS = dict(tasks="sentiment", langs="id,vi,th,ta", prompt_langs=("en",), runs=5)
"""The full run's cells: 4 languages x 5 runs; `limit` = requests / 20 items each."""
RUN_CELLS = 20

LINES = {32: 0.95, 128: 0.90}
"""The target lines for `tanaw run`: at least this share of C/L at these C."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_standin(latency: float) -> tuple[subprocess.Popen, str]:
    """The stand-in server in a child process; returns (process, base URL) once it answers."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "helpers" / "standin_server.py"), "--port", str(port),
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


async def timed_loop(one, concurrency: int, n: int, warm: bool = True) -> tuple[int, float, float]:
    """(n, seconds, CPU seconds) of `one(i)` for n requests, C at a time, after a warm-up round of C (the
    connections opened, lazy imports loaded) unless `warm` is off."""
    if warm:
        await bounded(range(concurrency), one, concurrency)
    t0, c0 = time.perf_counter(), time.process_time()
    await bounded(range(n), one, concurrency)
    return n, time.perf_counter() - t0, time.process_time() - c0


async def client_loop(url: str, concurrency: int, n: int) -> tuple[int, float, float]:
    """(answers, seconds, CPU seconds) for n chat requests through the runner's bounded loop."""
    async with ModelClient(url, "standin", concurrency=concurrency) as client:
        async def one(i: int) -> None:
            await client.chat([{"role": "user", "content": f"question {i}"}], max_tokens=8)

        return await timed_loop(one, concurrency, n)


async def cold_client_loop(url: str, concurrency: int, n: int) -> tuple[int, float, float]:
    """(answers, seconds, CPU seconds) for n chat requests through the runner's bounded loop on a new client, its
    connections opened inside the clock (a warm-up round on another client first: the code loaded, as for the
    full run)."""
    async with ModelClient(url, "standin", concurrency=concurrency) as warm:
        await bounded(range(concurrency), lambda i: warm.chat([{"role": "user", "content": f"warm {i}"}],
                                                              max_tokens=8), concurrency)
    async with ModelClient(url, "standin", concurrency=concurrency) as client:
        async def one(i: int) -> None:
            await client.chat([{"role": "user", "content": f"question {i}"}], max_tokens=8)

        return await timed_loop(one, concurrency, n, warm=False)


async def sdk_loop(url: str, concurrency: int, n: int) -> tuple[int, float, float]:
    """(answers, seconds, CPU seconds) for n chat requests through the bounded loop on the openai SDK."""
    import httpx
    from openai import AsyncOpenAI

    pool = httpx.AsyncClient(limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
                             timeout=120, follow_redirects=False)
    async with AsyncOpenAI(base_url=url, api_key="EMPTY", max_retries=0, http_client=pool) as client:
        async def one(i: int) -> None:
            await client.chat.completions.create(model="standin", max_tokens=8,
                                                 messages=[{"role": "user", "content": f"question {i}"}])

        return await timed_loop(one, concurrency, n)


async def aiohttp_loop(url: str, concurrency: int, n: int) -> tuple[int, float, float]:
    """(answers, seconds, CPU seconds) for n chat requests through the bounded loop on one bare aiohttp session (a
    connector of C connections, orjson bodies): the library under `ModelClient`, without the client around it."""
    import aiohttp
    import orjson

    connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=0, ttl_dns_cache=None)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=120), trust_env=False,
                                     headers={"Authorization": "Bearer EMPTY", "Content-Type": "application/json"},
                                     skip_auto_headers=("Accept-Encoding",)) as session:
        async def one(i: int) -> None:
            body = orjson.dumps({"model": "standin", "max_tokens": 8,
                                 "messages": [{"role": "user", "content": f"question {i}"}]})
            async with session.post(url + "/chat/completions", data=body, allow_redirects=False) as resp:
                orjson.loads(await resp.read())

        return await timed_loop(one, concurrency, n)


async def full_run(url: str, concurrency: int, n: int, db: Path) -> tuple[int, float, float, float, float]:
    """(answers stored, seconds, CPU seconds, seconds after the last answer, seconds to the first request) for the
    whole runner into a fresh store, timed after a warm-up run of one item per cell into another store (as the client
    loops' warm-up round: imports, first connections). The tail is the last commit with the final aggregate refresh,
    and closing; the start is the "already stored" lookup and the first part of the plan
    (`evaluator.run.plan_parts`)."""
    from services.live import StoreSink
    from store.db import connect

    marks = {"last_answer": 0.0, "first_request": 0.0}

    class TimedClient(ModelClient):
        async def chat(self, *args, **kwargs):
            marks["first_request"] = marks["first_request"] or time.perf_counter()
            try:
                return await super().chat(*args, **kwargs)
            finally:
                marks["last_answer"] = time.perf_counter()

    async def once(path: Path, limit: int) -> tuple[list, float, float, int]:
        con = connect(path)
        try:
            async with TimedClient(url, "standin", concurrency=concurrency) as client:
                marks["first_request"] = 0.0
                t0, c0 = time.perf_counter(), time.process_time()
                statuses = await run(client, StoreSink(con, f"bench-c{concurrency}"),
                                     RunSpec(limit=limit, concurrency=concurrency, **RUN_JOBS), progress=False)
                end, cpu = time.perf_counter(), time.process_time() - c0
            return statuses, end - t0, cpu, con.execute("SELECT count(*) FROM predictions").fetchone()[0], end, t0
        finally:
            con.close()

    await once(db.with_name("warm-up.duckdb"), 1)
    statuses, elapsed, cpu, stored, end, t0 = await once(db, max(1, n // RUN_CELLS))
    asked = sum(s.asked for s in statuses)
    if stored != asked:
        raise RuntimeError(f"{asked} answers reported but {stored} stored")
    return asked, elapsed, cpu, end - marks["last_answer"], marks["first_request"] - t0


class DiscardSink:
    """A sink that keeps nothing: the runner without its store (answers are still scored by its writer)."""

    def prepare(self, items) -> None:
        pass

    def stored_many(self, cells) -> dict:
        return {}

    def save_many(self, rows) -> None:
        pass

    def refresh(self, cells) -> list:
        return [None] * len(cells)


async def storeless_run(url: str, concurrency: int, n: int) -> tuple[int, float, float]:
    """(answers, seconds, CPU seconds) of the whole runner as `full_run` times it (the same plan, a new client, a
    warm-up run first) into `DiscardSink`: what the store adds to a run is `full_run` minus this."""
    async def once(limit: int) -> tuple[int, float, float]:
        async with ModelClient(url, "standin", concurrency=concurrency) as client:
            t0, c0 = time.perf_counter(), time.process_time()
            statuses = await run(client, DiscardSink(), RunSpec(limit=limit, concurrency=concurrency, **RUN_JOBS),
                                 progress=False)
            return sum(s.asked for s in statuses), time.perf_counter() - t0, time.process_time() - c0

    await once(1)
    return await once(max(1, n // RUN_CELLS))


def lmeval_driver(venv: Path, url: str, concurrency: int, n: int, mode: str, prompts: str = "function") -> dict:
    """The JSON line of `lmeval_chat_driver.py --mode MODE --prompts PROMPTS` (answers, seconds, cpu_s; for
    `evaluate` also generate_s and the metric) run by the lm-eval venv's Python."""
    out = subprocess.run([str(venv / "bin" / "python"), str(REPO / "benchmarks" / "lmeval_chat_driver.py"),
                          "--base-url", url, "--concurrency", str(concurrency), "--requests", str(n),
                          "--mode", mode, "--prompts", prompts], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"lm-eval driver ({mode}) failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def lmeval_loop(venv: Path, url: str, concurrency: int, n: int) -> tuple[int, float, float]:
    """(answers, seconds, CPU seconds) of lm-eval's local-chat-completions `generate_until` alone."""
    res = lmeval_driver(venv, url, concurrency, n, "loop")
    return res["answers"], res["seconds"], res["cpu_s"]


def lmeval_evaluate(venv: Path, url: str, concurrency: int, n: int,
                    prompts: str = "function") -> tuple[tuple[int, float, float, float, float], str]:
    """((answers, seconds, CPU seconds, seconds after generate_until, seconds before it), note) of lm-eval's
    `evaluate` on its local task; the note gives the time inside generate_until and the exact_match it computed."""
    res = lmeval_driver(venv, url, concurrency, n, "evaluate", prompts)
    if res["answers"] != n:
        raise RuntimeError(f"lm-eval evaluate answered {res['answers']} of {n} requests")
    note = (f"lm-eval evaluate ({prompts} prompt), C = {concurrency}: {res['before_s']:.3f} s building requests, "
            f"{res['generate_s']:.3f} s in generate_until, {res['after_s']:.3f} s filtering, scoring, aggregating; "
            f"exact_match {res['exact_match']:.4f} (stderr per task "
            f"{', '.join(f'{x:.4f}' for x in res['exact_match_stderr'])}; from its samples "
            f"{res['exact_match_from_samples']:.4f})")
    return (res["answers"], res["seconds"], res["cpu_s"], res["after_s"], res["before_s"]), note


def machine() -> str:
    """CPU model and core count."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}"


def lmeval_version(venv: Path) -> str:
    out = subprocess.run([str(venv / "bin" / "python"), "-c",
                          "import importlib.metadata as m; print(m.version('lm_eval'))"], capture_output=True, text=True)
    return out.stdout.strip() or "?"


def measure(args: argparse.Namespace, venv: Path | None, url: str, c: int) -> dict[str, tuple[float, float | None]]:
    """One round at concurrency `c`: every row timed once, in order, and printed; returns each row's ratio to C/L
    and its time after its last answer (`tail s`; None for the loops, which have none)."""
    limit = c / args.latency
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        rows.append(("tanaw run", asyncio.run(full_run(url, c, args.requests, Path(tmp) / "b.duckdb"))))
    rows.append(("tanaw no store", asyncio.run(storeless_run(url, c, args.requests))))
    rows.append(("tanaw client", asyncio.run(client_loop(url, c, args.requests))))
    if args.cold:
        rows.append(("client cold", asyncio.run(cold_client_loop(url, c, args.requests))))
    if args.sdk:
        rows.append(("openai SDK", asyncio.run(sdk_loop(url, c, args.requests))))
    if args.aiohttp:
        rows.append(("aiohttp", asyncio.run(aiohttp_loop(url, c, args.requests))))
    notes = []
    if venv:
        rows.append(("lm-eval loop", lmeval_loop(venv, url, c, args.requests)))
        row, note = lmeval_evaluate(venv, url, c, args.requests)
        rows.append(("lm-eval evaluate", row))
        notes.append(note)
    if venv and args.lmeval_jinja:
        row, note = lmeval_evaluate(venv, url, c, args.requests, "jinja")
        rows.append(("lm-eval jinja", row))
        notes.append(note)
    for name, (n, secs, cpu, *ends) in rows:
        load = os.getloadavg()
        tail_s, start_s = (f"{ends[0]:.3f}", f"{ends[1]:.3f}") if ends else ("-", "-")
        print(f"{name:<18}{c:>5}{n:>9}{secs:>9.2f}{n / secs:>8.1f}{limit:>7.0f}{n / secs / limit:>7.3f}"
              f"{cpu / n * 1000:>11.2f}{start_s:>8}{tail_s:>8}  {load[0]:.2f}, {load[1]:.2f}", flush=True)
    for note in notes:
        print(f"  {note}", flush=True)
    return {name: (n / secs / limit, ends[0] if ends else None) for name, (n, secs, cpu, *ends) in rows}


def print_rounds(c: int, ratios: dict[str, list[float]], tails: list[float], requests: int, latency: float) -> None:
    """Each row's median ratio over the rounds, and `tanaw run` minus each lm-eval row round by round (the rows of
    one round ran within a minute of each other, so a slow spell of the machine moves both sides of a difference);
    at a C with a target line and with `client cold` timed, the time the line allows, what asking alone took of
    it and the run's time after its last answer (`tails`, round by round)."""
    print(f"C = {c}, {len(ratios['tanaw run'])} rounds, median ratio: "
          + "; ".join(f"{name} {statistics.median(r):.3f}" for name, r in ratios.items()), flush=True)
    for peer in [name for name in ratios if name.startswith("lm-eval")]:
        leads = [run - other for run, other in zip(ratios["tanaw run"], ratios[peer])]
        print(f"  tanaw run - {peer}, round by round: {' '.join(f'{d:+.3f}' for d in leads)}; median "
              f"{statistics.median(leads):+.3f}; ahead in {sum(d > 0 for d in leads)} of {len(leads)}", flush=True)
    if c in LINES and "client cold" in ratios:
        def seconds(ratio: float) -> float:
            return requests / (ratio * c / latency)
        line = seconds(LINES[c])
        cold = [seconds(r) for r in ratios["client cold"]]
        run = [seconds(r) for r in ratios["tanaw run"]]
        print(f"  the line {LINES[c]:.2f} of C/L: {line:.3f} s for {requests} requests; client cold (asking only) "
              f"{min(cold):.3f}-{max(cold):.3f} s leaves {(line - max(cold)) * 1000:.0f} to {(line - min(cold)) * 1000:.0f}"
              f" ms for everything else a run does; tanaw run {min(run):.3f}-{max(run):.3f} s, of it after its last "
              f"answer {min(tails) * 1000:.0f}-{max(tails) * 1000:.0f} ms", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="stand-in latency L in seconds (default 0.2)")
    parser.add_argument("--requests", type=int, default=1000, help="requests per loop and C (default 1000)")
    parser.add_argument("--concurrency", default="8,32,128")
    parser.add_argument("--lmeval-venv", type=Path, help="venv holding lm-eval 0.4.13 (see the docstring)")
    parser.add_argument("--cold", action="store_true",
                        help="also time the client loop on a new client (its connections opened inside the clock)")
    parser.add_argument("--sdk", action="store_true", help="also time the loop on the openai SDK")
    parser.add_argument("--aiohttp", action="store_true", help="also time the loop on aiohttp")
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure every row this many times, alternating, and print each row's median ratio "
                             "and the run's lead over each lm-eval row round by round (default 1)")
    parser.add_argument("--lmeval-jinja", action="store_true",
                        help="also time lm-eval's evaluate with the task's prompt as a Jinja template")
    args = parser.parse_args()
    venv = args.lmeval_venv
    if venv is None or not (venv / "bin" / "python").exists():
        print(f"lm-eval venv {'not given' if venv is None else f'{venv} missing'}: the lm-eval rows are skipped. "
              "Prepare it with: python3 -m venv /tmp/lmeval-venv && /tmp/lmeval-venv/bin/pip install torch==2.13.0 "
              "&& /tmp/lmeval-venv/bin/pip install 'lm-eval[api]==0.4.13'; then pass --lmeval-venv /tmp/lmeval-venv",
              file=sys.stderr)
        venv = None
    proc, url = start_standin(args.latency)
    try:
        print(f"machine: {machine()}; stand-in in its own process, L = {args.latency:.3f} s; limit = C / L")
        if venv:
            print(f"lm-eval {lmeval_version(venv)} local-chat-completions from {venv}")
        print(f"{'loop':<18}{'C':>5}{'requests':>9}{'seconds':>9}{'req/s':>8}{'C/L':>7}{'ratio':>7}"
              f"{'CPU ms/req':>11}{'start s':>8}{'tail s':>8}  load avg (1, 5 min)")
        for c in [int(x) for x in args.concurrency.split(",")]:
            ratios: dict[str, list[float]] = {}
            tails: list[float] = []
            for _ in range(max(1, args.rounds)):
                for name, (ratio, tail) in measure(args, venv, url, c).items():
                    ratios.setdefault(name, []).append(ratio)
                    if name == "tanaw run":
                        tails.append(tail)
            if args.rounds > 1:
                print_rounds(c, ratios, tails, args.requests, args.latency)
    finally:
        proc.kill()
        proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
