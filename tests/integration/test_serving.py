"""How the app is served: one Streamlit configuration for the README's command, `tanaw app` and the Space image; the
image's nginx configuration; and two Streamlit processes behind nginx sharing one store, where a write from the
command line while they serve reaches every process's next view."""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import aiohttp
import pytest

from tests.helpers import upload_files as U
from tests.helpers.browser import free_port, free_ports, stop_group, wait_healthy
from tests.helpers.demo_pages import demo_store_db  # noqa: F401  (the `demo_db` fixture)
from tests.helpers.st_client import rerun, view, visitor
from tests.integration.test_dockerfile import instructions

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / ".streamlit" / "config.toml"
SERVE = REPO / "deploy" / "serve.sh"
SBIN_PATH = f"{os.environ.get('PATH', '')}:/usr/sbin"  # nginx lives in /usr/sbin, not always on a user's PATH
NGINX = shutil.which("nginx", path=SBIN_PATH)
needs_nginx = pytest.mark.skipif(NGINX is None, reason="nginx not installed (the Space image installs nginx-light)")


def test_the_config_turns_off_per_view_work():
    config = tomllib.loads(CONFIG.read_text())
    assert config["server"]["fileWatcherType"] == "none"
    assert config["runner"]["postScriptGC"] is False
    assert config["client"]["showErrorDetails"] == "none"


def test_streamlit_reads_the_config_for_the_readme_command_from_any_folder(tmp_path):
    """`streamlit run app.py` in the clone and `tanaw app` (which runs app.py by its path, from any folder) both
    resolve the options from the config beside app.py: Streamlit's own loader, run from an unrelated folder."""
    probe = ("from streamlit import config\n"
             f"config._main_script_path = {str(REPO / 'app.py')!r}  # what `streamlit run PATH` sets\n"
             "config.get_config_options(force_reparse=True)\n"
             "print(config.get_option('server.fileWatcherType'), config.get_option('runner.postScriptGC'),"
             " config.get_option('server.maxUploadSize'))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}
    env["HOME"] = str(tmp_path)  # no user-level config in the way
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["none", "False", "200"]


def test_the_image_serves_with_the_same_config():
    """The Dockerfile starts deploy/serve.sh, which runs `streamlit run app.py` from the repository root (the same
    config file) and adds only what this deployment needs: no option the config holds is repeated."""
    cmd = json.loads(dict(instructions())["CMD"])
    assert cmd == ["sh", "deploy/serve.sh"]
    script = SERVE.read_text()
    assert 'cd "$(dirname "$0")/.."' in script and "streamlit run app.py" in script
    flags = {f.split("=")[0] for f in script.split() if f.startswith("--server.") or f.startswith("--runner.")}
    assert flags == {"--server.port", "--server.address", "--server.headless", "--server.enableXsrfProtection"}
    held = {f"--{section}.{key}" for section, keys in tomllib.loads(CONFIG.read_text()).items() for key in keys}
    assert not flags & held


def _nginx_conf(tmp_path: Path, port: int, upstreams: list[int]) -> Path:
    """deploy/nginx.conf filled in as deploy/serve.sh fills it."""
    static = tmp_path / "static"
    static.mkdir()
    text = (REPO / "deploy" / "nginx.conf").read_text()
    for key, value in {"@PORT@": str(port), "@STATIC@": str(static), "@RUN@": str(tmp_path),
                       "@UPSTREAMS@": " ".join(f"server 127.0.0.1:{p};" for p in upstreams),
                       "@GLOBAL@": "user root;" if os.geteuid() == 0 else ""}.items():
        text = text.replace(key, value)
    assert "@" not in text
    out = tmp_path / "nginx.conf"
    out.write_text(text)
    return out


@needs_nginx
def test_nginx_config_is_valid(tmp_path):
    conf = _nginx_conf(tmp_path, 7860, [8501, 8502])
    res = subprocess.run([NGINX, "-t", "-e", "stderr", "-c", str(conf)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    text = conf.read_text()
    assert "hash $visitor consistent;" in text and "client_max_body_size 201m;" in text


async def _board_has(url: str, name: bytes, address: str) -> bool:
    """One visitor's native-prompt leaderboard: whether `name` is in what the server sent."""
    frames: list[bytes] = []
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url.replace("http", "ws", 1) + "/_stcore/stream", protocols=("streamlit",),
                                      headers={"X-Forwarded-For": address}, max_msg_size=0) as ws:
            _, outcome, _ = await view(ws, rerun(query="prompt=Native"), 120, frames)
    assert outcome == "ok"
    return any(name in f for f in frames)


async def _crowd(url: str, n: int) -> list:
    async with aiohttp.ClientSession() as session:
        return await asyncio.gather(*(visitor(session, url, 120, address=f"10.1.0.{i + 1}") for i in range(n)))


@needs_nginx
@pytest.mark.needs_samples
def test_two_processes_behind_nginx_share_one_store(demo_db, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    db = home / "tanaw.duckdb"
    shutil.copy(demo_db, db)
    port, first = free_port(), free_ports(2)
    env = {**os.environ, "PATH": SBIN_PATH, "TANAW_HOME": str(home), "TANAW_DB": str(db), "PORT": str(port),
           "TANAW_SERVERS": "2",
           "TANAW_SERVER_PORT": str(first), "TANAW_RUN_DIR": str(tmp_path / "run")}
    for key in ("TANAW_RESULTS_REPO", "TANAW_QUEUE_REPO", "TANAW_PARQUET"):
        env.pop(key, None)
    if os.geteuid() == 0:
        env["TANAW_NGINX_GLOBAL"] = "user root;"
    log = open(tmp_path / "serve.log", "wb")
    proc = subprocess.Popen(["sh", str(SERVE)], env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    urls = [f"http://127.0.0.1:{p}" for p in (port, first, first + 1)]
    try:
        for url in urls:
            try:
                wait_healthy(url, timeout=120)
            except TimeoutError:
                pytest.fail((tmp_path / "serve.log").read_text()[-3000:])
        views = [v for one in asyncio.run(_crowd(urls[0], 6)) for v in one]  # through nginx, six addresses
        assert len(views) == 12 and all(outcome == "ok" for _, _, outcome in views), views
        for i, url in enumerate(urls[1:]):  # each process on its own: no "crowd-cli" model yet
            assert not asyncio.run(_board_has(url, b"crowd-cli", f"10.2.0.{i}"))

        upload = tmp_path / "crowd_sentiment_id.jsonl"  # SEA-HELM inference rows: native-prompt runs
        upload.write_bytes(U.jsonl(U.seahelm_sentiment_rows(12, wrong=(3,))))
        cli = subprocess.run([sys.executable, "-m", "evaluator", "ingest", str(upload), "--model", "crowd-cli",
                              "--data-dir", str(U.DATA), "--wait", "60"], cwd=REPO, env=env, capture_output=True,
                             text=True)
        assert cli.returncode == 0, cli.stdout + cli.stderr  # written while they serve, not queued in the inbox
        for i, url in enumerate(urls):
            assert asyncio.run(_board_has(url, b"crowd-cli", f"10.3.0.{i}")), url
    finally:
        stop_group(proc)
        log.close()
