"""The installable package: pyproject.toml's pins equal the requirements files, the wheel carries every importable
package and the files the app reads, and `pip install .` into a fresh virtual environment gives a `tanaw` command
that works from any directory (`--help`, `ingest` into a store, `app` serving the pages)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tests.helpers.browser import chromium_available, chromium_page, free_port, wait_for_app, wait_healthy

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
NOT_SHIPPED = {"tests", "benchmarks", "scripts", "assets", "docs"}
"""Top-level folders of the repository that are not part of the installed app."""


def requirements(name: str) -> set[str]:
    """The pinned requirements of a requirements file, in canonical form (`-r` includes are not followed)."""
    lines = (REPO / name).read_text(encoding="utf-8").splitlines()
    return {str(Requirement(ln.split("#")[0])) for ln in lines if ln.split("#")[0].strip() and not ln.startswith("-")}


def canonical(reqs: list[str]) -> set[str]:
    return {str(Requirement(r)) for r in reqs}


def test_dependencies_equal_requirements_txt():
    deps = canonical(PYPROJECT["project"]["dependencies"])
    assert deps == requirements("requirements.txt")
    assert all(len(r.specifier) == 1 and next(iter(r.specifier)).operator == "=="
               for r in map(Requirement, deps)), "every dependency is pinned with =="


@pytest.mark.parametrize("extra, file", [("comet", "requirements-comet.txt"), ("metricx", "requirements-metricx.txt"),
                                         ("llama", "requirements-llama.txt")])
def test_extras_equal_their_requirements_files(extra, file):
    assert canonical(PYPROJECT["project"]["optional-dependencies"][extra]) == requirements(file)


def test_torch_only_pinned_in_the_comet_extra():
    pins = {Requirement(r).name: str(Requirement(r).specifier)
            for reqs in [PYPROJECT["project"]["dependencies"], *PYPROJECT["project"]["optional-dependencies"].values()]
            for r in reqs}
    assert pins.get("torch") == "==2.13.0"
    assert "torch" not in {Requirement(r).name for r in PYPROJECT["project"]["dependencies"]}


def test_wheel_holds_every_top_level_package_and_the_apps_files():
    shipped = set(PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]["only-include"])
    packages = {p.name for p in REPO.iterdir()
                if p.is_dir() and not p.name.startswith(".") and p.name not in NOT_SHIPPED and any(p.glob("*.py"))}
    assert packages == {"evaluator", "services", "store", "pages", "cli"}
    assert packages <= shipped
    assert {"app.py", "tanaw_cli.py", ".streamlit/config.toml", "data"} <= shipped
    assert PYPROJECT["project"]["scripts"] == {"tanaw": "tanaw_cli:main"}
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    assert (REPO / "LICENSE").read_text(encoding="utf-8").split()[:4] == ["Apache", "License", "Version", "2.0,"]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """`pip install .` into a new virtual environment (system site-packages visible, so the pinned dependencies
    already installed are reused, no download); returns the venv's bin folder and a work folder outside the repo."""
    root = tmp_path_factory.mktemp("pkg")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-build-isolation",
                          "--no-index", "--no-compile", str(REPO)], capture_output=True, text=True, cwd=root)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    work = root / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TANAW_DATA_DIR", "TANAW_DB")}
    env.update(HOME=str(root), TANAW_HOME=str(root / "home"), STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    return venv / "bin", work, env


def tanaw(installed, *args, **kw) -> subprocess.CompletedProcess:
    bin_dir, work, env = installed
    return subprocess.run([str(bin_dir / "tanaw"), *args], cwd=work, env=env, capture_output=True, text=True,
                          timeout=120, **kw)


def test_installed_code_is_the_venvs_not_the_clones(installed):
    bin_dir, work, env = installed
    out = subprocess.run([str(bin_dir / "python"), "-c", "import evaluator, tanaw_cli; print(evaluator.__file__);"
                          "print(tanaw_cli.APP.is_file())"], cwd=work, env=env, capture_output=True, text=True)
    where, app_found = out.stdout.split()
    assert Path(where).is_relative_to(bin_dir.parent) and app_found == "True"


def test_help_lists_app_and_the_cli_commands(installed):
    out = tanaw(installed, "--help")
    assert out.returncode == 0, out.stderr
    assert "tanaw app" in out.stdout and "usage: tanaw [-h]" in out.stdout
    for command in ("ingest", "run", "leaderboard", "data", "campaign", "worker"):
        assert command in out.stdout


def test_ingest_scores_against_the_packaged_demo_items(installed):
    _, work, _ = installed
    rows = [{"task": "sentiment", "lang": "id", "item_id": "demo-sent-id-1", "prompt_lang": "en",
             "prediction": "Positive"},   # gold positive
            {"task": "sentiment", "lang": "id", "item_id": "demo-sent-id-2", "prompt_lang": "en",
             "prediction": "Positive"}]   # gold negative
    (work / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    ingest = tanaw(installed, "ingest", "r.jsonl", "--model", "tiny", "--db", "s.duckdb")
    assert ingest.returncode == 0, ingest.stderr
    assert "imported 2 predictions" in ingest.stdout
    board = tanaw(installed, "leaderboard", "--json", "--db", "s.duckdb")
    assert board.returncode == 0, board.stderr
    [cell] = json.loads(board.stdout)
    # macro-F1 over the labels seen: positive P = 1/2, R = 1 -> F1 2/3; negative F1 0; mean 1/3
    assert (cell["model"], cell["task"], cell["lang"], cell["n"]) == ("tiny", "sentiment", "id", 2)
    assert cell["value"] == pytest.approx(100 / 3)


def test_app_serves_from_another_directory(installed, tmp_path):
    bin_dir, work, env = installed
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with open(tmp_path / "app.log", "w+") as log:
        proc = subprocess.Popen([str(bin_dir / "tanaw"), "app", "--server.port", str(port), "--server.address",
                                 "127.0.0.1", "--server.headless", "true"],
                                cwd=work, env={**env, "TANAW_DB": str(tmp_path / "app.duckdb")},
                                stdout=log, stderr=subprocess.STDOUT, text=True)
        try:
            try:
                wait_healthy(url, timeout=90, proc=proc)
            except (RuntimeError, TimeoutError) as e:
                log.seek(0)
                raise AssertionError(f"{e}: {log.read()[-3000:]}") from None
            if chromium_available():  # the pages and the config are found beside the installed app.py
                with chromium_page() as page:
                    page.goto(url)
                    wait_for_app(page, timeout_ms=90000)
                    assert page.locator('[data-testid="stException"]').count() == 0
                    assert page.get_by_text("Demo data").count() >= 1
                    assert page.locator('[data-testid="stSidebarNav"]').count() == 0  # showSidebarNavigation false
        finally:
            proc.terminate()
            proc.wait(timeout=20)
