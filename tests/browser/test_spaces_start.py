"""Start the app as the Space does: the Docker build context copied to a clean folder, the Dockerfile's ENV and
CMD (deploy/serve.sh: two Streamlit processes behind nginx), a clean environment (no inherited variables but PATH),
port 7860; /_stcore/health must answer 200."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.helpers.browser import (chromium_available, chromium_page, free_ports, screenshot, stop_group,
                                  wait_healthy)
from tests.integration.test_dockerfile import build_context, instructions

REPO = Path(__file__).resolve().parents[2]


def wait_for_page(page, timeout_ms: int = 180000) -> None:
    """Until the first run (which may build the demo store) has drawn a title or an error."""
    page.wait_for_function(
        "() => !document.body.innerText.includes('Preparing the results') && !document.body.innerText.includes("
        "'Pulling results') && (document.querySelector('h1') || document.querySelector('[data-testid=stException]'))",
        timeout=timeout_ms)
    page.wait_for_timeout(1000)


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def _env_from_dockerfile(home: Path) -> dict[str, str]:
    env = {}
    for kind, args in instructions():
        if kind == "ENV":
            for pair in args.split():
                key, _, value = pair.partition("=")
                env[key] = value.replace("/home/user", str(home))
    return env


def test_app_starts_like_the_space(tmp_path):
    app_dir, home = tmp_path / "app", tmp_path / "home"
    for rel in build_context():  # what `docker build` would COPY into the image
        (app_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, app_dir / rel)
    home.mkdir()
    cmd = json.loads(dict(instructions())["CMD"])
    assert cmd == ["sh", "deploy/serve.sh"]
    if shutil.which("nginx", path="/usr/sbin:/usr/bin") is None:
        pytest.skip("nginx not installed (the image installs nginx-light)")
    port = 7860 if _port_free(7860) else None
    if port is None:  # something else holds 7860 on this machine: same command, another port
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    first = free_ports(2)  # the Streamlit processes' own ports (8501 may be taken on this machine)
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/sbin:/usr/bin:/bin", **_env_from_dockerfile(home),
           "SPACE_ID": "tanaw/leaderboard", "SPACE_HOST": "tanaw-leaderboard.hf.space", "PORT": str(port),
           "TANAW_SERVERS": "2", "TANAW_SERVER_PORT": str(first), "TANAW_RUN_DIR": str(tmp_path / "run")}
    if os.geteuid() == 0:  # the image runs as uid 1000; nginx's workers could not read Streamlit's files as nobody
        env["TANAW_NGINX_GLOBAL"] = "user root;"
    assert env["TANAW_HOME"] == str(home / ".tanaw")
    proc = subprocess.Popen(cmd, cwd=app_dir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, timeout=90, proc=proc)
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as r:
            assert r.status == 200 and r.read() == b"ok"
        with urllib.request.urlopen(url, timeout=5) as r:  # the page shell is served too
            assert r.status == 200 and b"<div id=\"root\">" in r.read()
        if not chromium_available():
            pytest.skip("Debian chromium / playwright not installed: health checked, page not rendered")
        with chromium_page() as page:  # the app runs without ../shared/data, as on the Space
            page.goto(url)
            wait_for_page(page)
            shot = screenshot(page, "spaces_start")
            assert page.locator('[data-testid="stException"]').count() == 0, page.inner_text("body")[:2000]
            assert "Tanaw" in page.title()
            assert page.locator("h1").first.inner_text().startswith("Tanaw")
        assert shot.exists()
    finally:
        stop_group(proc)  # nginx and the Streamlit processes it fronts
