"""First start of the app on an empty home directory: seconds until the leaderboard is drawn in a real browser.

    python benchmarks/bench_first_start.py [--repeat 3]

Each round makes a new empty HOME (no ~/.tanaw, no TANAW_DB, no TANAW_DATA_DIR), starts `streamlit run app.py`
headless on a free loopback port and opens it in Debian's headless Chromium (Playwright). The clock starts when the
server process is launched and stops when the leaderboard table is on screen: server start-up, the embedded default
store's build (reported results, the demo model run and the baselines scored from data/demo) and the first render.
Prints each round and the median, with the server's own CPU seconds (a figure other load on the machine does not
inflate) and the load average; the target is under 10 s on the 2-core machine. Needs /usr/bin/chromium.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.helpers.browser import CHROMIUM, CHROMIUM_ARGS, free_port, wait_healthy  # noqa: E402

TABLE = '[data-testid="stDataFrame"]'
KEEP_ENV = ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "SSL_CERT_FILE", "SSL_CERT_DIR", "OPENBLAS_CORETYPE",
            "OPENBLAS_L2_SIZE", "PYENV_ROOT")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used so far (Linux /proc), independent of other load."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_round(browser) -> dict[str, float]:
    """Seconds from launching the server to: health check answered, leaderboard table visible."""
    with tempfile.TemporaryDirectory(prefix="tanaw-home-") as home:
        env = {k: os.environ[k] for k in KEEP_ENV if k in os.environ}
        env.update(HOME=home, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        t0 = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(REPO / "app.py"),
                                 "--server.headless", "true", "--server.port", str(port),
                                 "--server.address", "127.0.0.1"],
                                cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_healthy(url, 60.0, proc, poll=0.05)
            t_up = time.monotonic() - t0
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(url)
            page.wait_for_selector(TABLE, timeout=120_000)
            t_board = time.monotonic() - t0
            cpu = cpu_seconds(proc.pid)
            page.close()
            built = (Path(home) / ".tanaw" / "tanaw.duckdb").is_file()
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    if not built:
        raise RuntimeError("the app did not build its store under the empty HOME")
    return {"server_up": t_up, "leaderboard": t_board, "server_cpu": cpu}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    print(f"first start on an empty HOME, {os.cpu_count()} cores; {args.repeat} rounds")
    rounds = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            for n in range(1, args.repeat + 1):
                r = one_round(browser)
                rounds.append(r)
                print(f"round {n}: server up {r['server_up']:.1f} s, leaderboard drawn {r['leaderboard']:.1f} s "
                      f"(server CPU {r['server_cpu']:.1f} s)")
        finally:
            browser.close()
    med = statistics.median(r["leaderboard"] for r in rounds)
    cpu = statistics.median(r["server_cpu"] for r in rounds)
    print(f"median time to the leaderboard: {med:.1f} s (target < 10 s): {'OK' if med < 10 else 'SLOW'}; "
          f"server CPU {cpu:.1f} s (what an idle machine would wait, roughly); load average now "
          f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
