"""Test helpers for real-browser checks: serve the Streamlit app and drive Debian's Chromium with Playwright."""
from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "tests" / "_screenshots"
CHROMIUM = os.environ.get("TANAW_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    """An unused TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_ports(n: int) -> int:
    """The first of `n` consecutive unused TCP ports on 127.0.0.1 (a server per port, e.g. deploy/serve.sh's)."""
    while True:
        first = free_port()
        if first + n < 65535 and all(_unused(first + i) for i in range(n)):
            return first


def _unused(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def stop_group(proc: subprocess.Popen, timeout: float = 15.0) -> None:
    """Stop a server started with `start_new_session=True` and everything it started (deploy/serve.sh: nginx and
    the Streamlit processes): SIGTERM to the group, then SIGKILL to whatever is left of it (a Streamlit process
    still starting up can outlive its SIGTERM)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=timeout)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def wait_healthy(url: str, timeout: float = 60.0, proc: subprocess.Popen | None = None, poll: float = 0.3) -> None:
    """Poll `<url>/_stcore/health` until it answers 200, or raise with the server's output."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"app exited with {proc.returncode}: {proc.stdout.read() if proc.stdout else ''}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(poll)
    raise TimeoutError(f"{url} not healthy after {timeout}s")


DEPRECATION = re.compile(r"streamlit\.deprecation_util|use_container_width|is deprecated")
"""A Streamlit deprecation warning in the server log (Streamlit logs every one, e.g. `use_container_width`)."""


def deprecations(log_text: str) -> list[str]:
    """The server log's lines that are Streamlit deprecation warnings."""
    return [line for line in log_text.splitlines() if DEPRECATION.search(line)]


@contextlib.contextmanager
def serve_app(db_path: str | os.PathLike, port: int | None = None, env: dict | None = None,
              log_path: str | os.PathLike | None = None) -> Iterator[str]:
    """Run `streamlit run app.py` on `db_path` (TANAW_DB) and yield its base URL; stopped (and waited for) on exit.
    The server's output goes to a file (`log_path`, else a temporary one), never to an unread pipe that a chatty
    server could fill and block on; a server that never becomes healthy is reported with that output. A server log
    holding a Streamlit deprecation warning fails the test that served it (`deprecations`)."""
    port = port or free_port()
    full_env = {**os.environ, "TANAW_DB": str(db_path), "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
                **(env or {})}
    cmd = [sys.executable, "-m", "streamlit", "run", str(REPO / "app.py"), "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1"]
    url = f"http://127.0.0.1:{port}"
    with (open(log_path, "w+") if log_path else tempfile.TemporaryFile("w+")) as log:
        proc = subprocess.Popen(cmd, cwd=REPO, env=full_env, stdout=log, stderr=subprocess.STDOUT, text=True)
        try:
            try:
                wait_healthy(url, proc=proc)
            except (RuntimeError, TimeoutError) as e:
                log.seek(0)
                raise RuntimeError(f"{e}; server output: {log.read()[-3000:]}") from None
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)  # the store file is free once this returns
        log.seek(0)
        warned = deprecations(log.read())
        assert not warned, f"Streamlit deprecation warnings in the server log: {warned[:5]}"


def chromium_available() -> bool:
    """Whether Debian's Chromium and the Playwright driver are installed."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        return False
    return Path(CHROMIUM).exists()


@contextlib.contextmanager
def chromium_page(width: int = 1280, height: int = 900) -> Iterator[object]:
    """A Playwright page in headless Debian Chromium (no browser download)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            yield page
        finally:
            browser.close()


SCRIPT_DONE = """() => { const app = document.querySelector('[data-testid="stApp"]');
    return !!app && app.getAttribute('data-test-connection-state') === 'CONNECTED'
        && app.getAttribute('data-test-script-state') === 'notRunning'
        && !document.querySelector('[data-stale="true"], [data-testid="stSkeleton"]'); }"""
"""Streamlit's own end-of-run signal (its e2e suite waits on the same attributes): connected, the script run
finished ("initial" -> "running" -> "notRunning"; a run ending in st.rerun() stays "running"), no element left
stale from the previous run and no skeleton still waiting for its element."""


def wait_for_run(page, timeout_ms: int = 60000) -> None:
    """Wait until Streamlit has finished the current script run and rendered all of its output. After a click that
    starts a run, first wait for something that run draws: the attribute still says notRunning until the server
    has answered the click."""
    page.wait_for_function(SCRIPT_DONE, timeout=timeout_ms)


def wait_for_app(page, timeout_ms: int = 30000) -> None:
    """Wait until Streamlit has finished running the script (no 'Running' indicator, app view present)."""
    page.wait_for_selector('[data-testid="stAppViewContainer"]', timeout=timeout_ms)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout_ms)
    wait_for_run(page, timeout_ms)
    page.wait_for_timeout(500)


def click_after_typing(page, button) -> None:
    """Click a form's button after typing into its fields, as a person does: leave the field first (Tab) and let
    the page settle, then press. Playwright releases the mouse ~4 ms after pressing it; when that press is what
    blurs a text field, the field commits its value and React redraws the form in between, and the release can
    land on another element, so the button never gets its click (caught as a lost submit: the browser sent nothing,
    tests/browser/test_hub_app.py). A person's press lasts ~100 ms, longer than the redraw. The run the committed
    field may start is waited for too: under the suite's two workers a click during it was lost once more."""
    page.keyboard.press("Tab")
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    page.wait_for_timeout(100)
    wait_for_run(page)
    button.click()


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot under tests/_screenshots/ and return its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


GRIDS_JS = r"""async () => {
    await document.fonts.ready;
    const grids = [];
    for (const frame of document.querySelectorAll('[data-testid="stDataFrame"]')) {
        const canvas = frame.querySelector('canvas[data-testid="data-grid-canvas"]');
        if (!canvas) continue;  // not rendered (a closed expander)
        const key = Object.keys(canvas).find(k => k.startsWith('__reactFiber$'));
        let fiber = key && canvas[key];
        while (fiber && !(fiber.memoizedProps && fiber.memoizedProps.getCellContent && fiber.memoizedProps.columns))
            fiber = fiber.return;
        if (!fiber) throw new Error('no glide grid props above a data-grid canvas');
        const {columns, rows, getCellContent, theme} = fiber.memoizedProps;
        const ctx = document.createElement('canvas').getContext('2d');
        const px = (font, text) => { ctx.font = font; const m = ctx.measureText(text);
                                     return Math.max(m.width, m.actualBoundingBoxRight); };
        grids.push({pad: theme.cellHorizontalPadding, columns: columns.map((c, i) => ({
            title: c.title, width: c.width, title_px: px(theme.headerFontFull, c.title),
            cells: Array.from({length: rows}, (_, r) => { const text = getCellContent([i, r]).displayData ?? '';
                                                          return [text, px(theme.baseFontFull, text)]; })}))});
    }
    return grids;
}"""
"""Every rendered `st.dataframe` as the grid draws it: Streamlit's data grid (glide-data-grid) paints cells on a
canvas, so the text shown and the column widths are read from the grid component's own props (React fiber of its
canvas): each column's title and width, and every row's display text (all rows, also those scrolled out of view),
each with its drawn width in the grid's own fonts (advance or ink extent, whichever is wider)."""

MISSING_TEXT = re.compile(r"(?<![\w-])(None|nan|NaN|NaT|<NA>|null|undefined|-?Infinity|-?inf)(?![\w-])")
"""A missing or non-finite value printed as text instead of left blank or shown as "—"."""


def rendered_grids(page) -> list[dict]:
    """`GRIDS_JS` on the page: [{"pad": px, "columns": [{"title", "width", "title_px", "cells": [[text, px]]}]}]."""
    return page.evaluate(GRIDS_JS)


def grid_problems(grids: list[dict], widths: bool = True) -> list[str]:
    """What a reader of the grids would see wrong: a title or cell that prints a missing value ("None", "nan", ...),
    and (`widths`) text cut off at its column's edge. The grid draws a cell's text `pad` px inside the column
    (left-aligned text from the left edge, numbers from the right) and clips it at the column's edge, so text of
    drawn width w is whole when pad + w <= width."""
    problems = []
    for g, grid in enumerate(grids):
        for col in grid["columns"]:
            where = f"table {g}, column {col['title']!r} ({col['width']} px)"
            for text, px in [(col["title"], col["title_px"]), *col["cells"]]:
                if MISSING_TEXT.search(text):
                    problems.append(f"{where}: shows {text!r}")
                if widths and grid["pad"] + px > col["width"]:
                    problems.append(f"{where}: {text!r} needs {grid['pad']} + {px:.1f} px")
    return problems
