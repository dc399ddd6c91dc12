"""A crowd on the public board: N visitors at once, each its own Streamlit session opening the leaderboard, then the
PACUTE page; server time per view, errors, timeouts, server CPU per view and memory; and one Chromium visitor.

    python benchmarks/bench_load.py [--levels 1,5,10,20,40,80] [--serve single,multi] [--stores demo,real]
                                    [--soak 500] [--chromium 5] [--timeout 60]

Browserless: each visitor speaks Streamlit's own websocket protocol (aiohttp's client, the protobufs that come with
streamlit: `streamlit.proto`): it connects to `/_stcore/stream`, asks for a run of the default page (the
leaderboard) as a browser's first message does, waits for the run's `script_finished`, then asks for the PACUTE page
(its page hash from the run's navigation message) and waits again. A view's time is from the request to its
`script_finished`, on the same machine as the server: server time, queueing included. A view fails ("error") when
the run finishes with anything but success, draws an exception or the app's error box, or the connection drops;
it times out when no `script_finished` came within `--timeout` seconds.

Servers, each started fresh for every (store, serving) pair, with a warm-up visit before the levels:
- single: the README's command, `streamlit run app.py` (one process; .streamlit/config.toml);
- multi: the Space image's `deploy/serve.sh` (the store prepared once, one Streamlit process per core behind nginx,
  sticky per visitor address; needs nginx on PATH).
Stores: "demo", the demo store a first start builds; "real", the demo store plus the real tool outputs in the
public samples (`TANAW_SAMPLES_DIR`): pacute-bench's gpt-4.1-nano results (pacute/results-sample) and
lm-evaluation-harness's XCOPA/XNLI samples (real-results/lm-eval), imported with `python -m evaluator ingest`.

Printed per level (N = 1: `--one-visitor` visits one after another): views, p50/p95/max per page, errors, timeouts, the servers' CPU-seconds per view (utime + stime of
every server process, from /proc, over the level) and their total RSS after it. `--soak N`: N visits more, five at a
time, and the RSS after the first 10 and after all N. `--chromium K`: K fresh Chromium visitors one after another
(Playwright, /usr/bin/chromium): the time from navigation to the leaderboard's table and heatmap drawn, and the
bytes transferred (compressed, as on the wire). Machine, load average and every setting are printed.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.helpers.browser import (CHROMIUM, CHROMIUM_ARGS, free_port, free_ports, stop_group,  # noqa: E402
                                  wait_healthy)
from tests.helpers.st_client import visitor  # noqa: E402

TARGETS = ("one visitor: leaderboard and PACUTE <= 0.15 s p50; 20 at once: leaderboard p95 <= 3 s; 80 at once: no "
           "timeout, p95 <= 15 s; Chromium: leaderboard drawn <= 2 s p50; RSS after the soak within 50 MB of after 10")


def samples_dir() -> Path:
    return Path(os.environ.get("TANAW_SAMPLES_DIR") or REPO.parent / "shared" / "data")


def build_stores(root: Path, names: list[str]) -> dict[str, Path]:
    """The demo store (what a first start builds) and, from it, the store with the samples' real tool outputs."""
    from services.demo import ensure_default_db
    from store.db import connect

    demo = root / "demo" / "tanaw.duckdb"
    demo.parent.mkdir(parents=True)
    con = connect(demo)
    ensure_default_db(con)
    con.close()
    out = {"demo": demo}
    if "real" in names:
        real = root / "real" / "tanaw.duckdb"
        real.parent.mkdir(parents=True)
        shutil.copy(demo, real)
        data = samples_dir()
        env = {**os.environ, "TANAW_DB": str(real), "TANAW_DATA_DIR": str(data)}
        for path, model in ((data / "pacute" / "results-sample" / "gpt-4.1-nano", "gpt-4.1-nano"),
                            (data / "real-results" / "lm-eval", "lm-eval stand-in (XCOPA, XNLI)")):
            subprocess.run([sys.executable, "-m", "evaluator", "ingest", str(path), "--model", model], env=env,
                           check=True, cwd=REPO, stdout=subprocess.DEVNULL)
        out["real"] = real
    return {k: v for k, v in out.items() if k in names}


class Server:
    """The app served on a free port, in its own process group, on a copy of `store`."""

    def __init__(self, mode: str, store: Path, work: Path, processes: int, app: Path = REPO):
        self.mode, self.port = mode, free_port()
        self.backends = [self.url]
        home = work / f"{mode}-{store.parent.name}"
        home.mkdir(parents=True)
        db = home / "tanaw.duckdb"
        shutil.copy(store, db)
        env = {**os.environ, "TANAW_HOME": str(home), "TANAW_DB": str(db), "PYTHONUNBUFFERED": "1"}
        for key in ("TANAW_RESULTS_REPO", "TANAW_QUEUE_REPO", "TANAW_PARQUET", "TANAW_SERVE_SHARED"):
            env.pop(key, None)
        if mode == "single":  # the README's command, as typed in a clone
            cmd = ["streamlit", "run", "app.py", "--server.port", str(self.port), "--server.headless", "true"]
        else:
            first = free_ports(processes)
            ports = range(first, first + processes)
            self.backends = [f"http://127.0.0.1:{p}" for p in ports]
            env |= {"PORT": str(self.port), "TANAW_RUN_DIR": str(home / "run"), "TANAW_SERVERS": str(processes),
                    "TANAW_SERVER_PORT": str(ports[0])}
            if os.geteuid() == 0:
                env["TANAW_NGINX_GLOBAL"] = "user root;"
            cmd = ["sh", "deploy/serve.sh"]
        self.log = open(home / "server.log", "wb")
        self.proc = subprocess.Popen(cmd, cwd=app, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def pids(self) -> list[int]:
        """Every process of the server's group (Streamlit processes, nginx and its worker)."""
        out = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    if os.getpgid(int(entry)) == self.proc.pid:
                        out.append(int(entry))
                except ProcessLookupError:
                    pass
        return out

    def cpu_seconds(self) -> float:
        tick = os.sysconf("SC_CLK_TCK")
        total = 0
        for pid in self.pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            total += int(fields[11]) + int(fields[12])  # utime, stime
        return total / tick

    def rss_mb(self) -> float:
        """RSS of the Streamlit processes (nginx's few MB left out)."""
        total = 0
        for pid in self.pids():
            try:
                status = Path(f"/proc/{pid}/status").read_text()
                if "streamlit" not in Path(f"/proc/{pid}/cmdline").read_text():
                    continue
            except (FileNotFoundError, ProcessLookupError):
                continue
            total += next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
        return total / 1024

    def wait_idle(self, limit: float = 180) -> None:
        """Until the servers use under 0.1 s of CPU in a second (runs left by visitors who timed out finish)."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            before = self.cpu_seconds()
            time.sleep(1)
            if self.cpu_seconds() - before < 0.1:
                return

    def wait_healthy(self, timeout: float = 180) -> None:
        for url in {self.url, *self.backends}:
            wait_healthy(url, timeout=timeout)

    def stop(self) -> None:
        stop_group(self.proc)
        self.log.close()


async def crowd(url: str, n: int, timeout: float) -> list[tuple[str, float, str]]:
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        results = await asyncio.gather(*(visitor(session, url, timeout, address=f"10.0.{i // 250}.{i % 250 + 1}")
                                         for i in range(n)))
    return [v for one in results for v in one]


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))]


def level(server: Server, n: int, timeout: float, rounds: int = 1) -> dict:
    """`n` visitors at once, `rounds` times one after another (one visitor: several visits for a p50)."""
    cpu0 = server.cpu_seconds()
    wall = time.perf_counter()
    views = [v for _ in range(rounds) for v in asyncio.run(crowd(server.url, n, timeout))]
    wall = time.perf_counter() - wall
    cpu = server.cpu_seconds() - cpu0
    row = {"n": n, "rounds": rounds, "wall": wall, "cpu_per_view": cpu / max(len(views), 1), "rss": server.rss_mb()}
    for page in ("leaderboard", "pacute"):
        ok = [s for p, s, o in views if p == page and o == "ok"]
        row[page] = (pct(ok, 0.5), pct(ok, 0.95), max(ok, default=float("nan")))
        row[f"{page}_err"] = sum(1 for p, _, o in views if p == page and o == "error")
        row[f"{page}_timeout"] = sum(1 for p, _, o in views if p == page and o == "timeout")
    return row


def print_level(row: dict) -> None:
    cells = [f"N={row['n']:>3}" + (f" x{row['rounds']}" if row["rounds"] > 1 else "")]
    for page in ("leaderboard", "pacute"):
        p50, p95, top = row[page]
        cells.append(f"{page} p50 {p50:6.3f} p95 {p95:6.3f} max {top:6.3f} s, {row[page + '_err']} errors, "
                     f"{row[page + '_timeout']} timeouts")
    cells.append(f"CPU {row['cpu_per_view']:.3f} s/view, RSS {row['rss']:.0f} MB, wall {row['wall']:.1f} s")
    print(" | ".join(cells), flush=True)


def soak(server: Server, visits: int, timeout: float) -> tuple[float, float]:
    """RSS after the first 10 visits and after `visits`, five visitors at a time."""
    after_10 = None
    done = 0
    while done < visits:
        asyncio.run(crowd(server.url, min(5, visits - done), timeout))
        done += min(5, visits - done)
        if after_10 is None and done >= 10:
            after_10 = server.rss_mb()
    return after_10, server.rss_mb()


def chromium(server: Server, visits: int) -> list[tuple[float, int, float]]:
    """(seconds to the leaderboard's table and heatmap drawn, bytes transferred, seconds to the table drawn) per
    fresh Chromium visitor."""
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(visits):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("Network.enable")
            received = []
            cdp.on("Network.loadingFinished", lambda e: received.append(e["encodedDataLength"]))
            cdp.on("Network.webSocketFrameReceived", lambda e: received.append(len(e["response"]["payloadData"])))
            start = time.perf_counter()
            page.goto(server.url + "/", wait_until="commit")
            page.wait_for_selector("[data-testid=stDataFrame] canvas, [data-testid=stDataFrameResizable]",
                                   timeout=120000)
            table = time.perf_counter() - start
            page.wait_for_selector(".js-plotly-plot .main-svg", timeout=120000)
            out.append((time.perf_counter() - start, sum(received), table))
            context.close()
        browser.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--levels", default="1,5,10,20,40,80")
    ap.add_argument("--serve", default="single,multi", help="single (the README's command), multi (the image's)")
    ap.add_argument("--stores", default="demo,real")
    ap.add_argument("--app", type=Path, default=REPO, help="the checkout to serve (default: this one; another "
                    "checkout, e.g. of main, gives the figures before a change under the same conditions)")
    ap.add_argument("--processes", type=int, default=os.cpu_count(), help="Streamlit processes for multi (default: "
                    "one per core, as the image)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds a view may take before it counts as timed out")
    ap.add_argument("--one-visitor", type=int, default=10, help="visits one after another at N = 1")
    ap.add_argument("--soak", type=int, default=0, help="visits for the memory check (0: none)")
    ap.add_argument("--chromium", type=int, default=0, help="fresh Chromium visitors (0: none)")
    args = ap.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    print(f"machine: {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}; python {platform.python_version()}")
    print(f"app: {args.app}; levels {levels}, timeout {args.timeout:.0f} s; each visitor: leaderboard, then PACUTE; targets: {TARGETS}")
    with tempfile.TemporaryDirectory(prefix="tanaw-load-") as tmp:
        stores = build_stores(Path(tmp) / "stores", args.stores.split(","))
        for name, store in stores.items():
            for mode in args.serve.split(","):
                server = Server(mode, store, Path(tmp) / "serve", args.processes, args.app)
                try:
                    server.wait_healthy()
                    # the first visit of each process builds its shared caches
                    warm = [v for url in server.backends for v in asyncio.run(crowd(url, 1, 180))]
                    print(f"\n[{name} store, {mode}, {len(server.backends)} process(es)] warm-up, one visit per "
                          "process: " + ", ".join(f"{p} {s:.2f} s {o}" for p, s, o in warm), flush=True)
                    for n in levels:
                        server.wait_idle()
                        print_level(level(server, n, args.timeout, args.one_visitor if n == 1 else 1))
                    if args.soak:
                        first, last = soak(server, args.soak, args.timeout)
                        print(f"soak: RSS after 10 visits {first:.0f} MB, after {args.soak} {last:.0f} MB "
                              f"({last - first:+.0f} MB)", flush=True)
                    if args.chromium:
                        server.wait_idle()
                        try:
                            runs = chromium(server, args.chromium)
                        except Exception as e:  # a server still busy with a backlog: say so, go on
                            print(f"chromium: failed ({type(e).__name__}: {str(e).splitlines()[0]})", flush=True)
                            continue
                        times = [t for t, _, _ in runs]
                        print(f"chromium: leaderboard drawn (table and heatmap) p50 {statistics.median(times):.2f} s"
                              f" (runs {', '.join(f'{t:.2f}' for t in times)}; the table alone p50 "
                              f"{statistics.median(t for _, _, t in runs):.2f} s); transferred "
                              + ", ".join(f"{b / 1e6:.2f}" for _, b, _ in runs) + " MB", flush=True)
                finally:
                    server.stop()
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
