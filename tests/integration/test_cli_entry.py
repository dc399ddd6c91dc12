"""The command line runs as `python -m cli` and, unchanged, as `python -m evaluator` (an alias that imports nothing
of it); `cli.main.run`, which the installed `tanaw` calls, returns the command's code."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True, timeout=300,
                          env=env or {**os.environ})


def test_both_module_names_run_the_same_command():
    via_cli, via_alias = _run("-m", "cli", "tasks", "--json"), _run("-m", "evaluator", "tasks", "--json")
    assert via_cli.returncode == via_alias.returncode == 0, via_cli.stderr + via_alias.stderr
    assert via_cli.stdout == via_alias.stdout
    tasks = {r["task"]: r for r in json.loads(via_cli.stdout)}
    assert tasks["sentiment"]["family"] == "bhasa"
    assert tasks["sentiment"]["langs"] == ["id", "vi", "th", "ta", "tl", "ms", "my", "jv", "su", "lo"]


def test_run_returns_the_commands_code_and_a_bad_language_is_one_line(tmp_path):
    code = "import sys; from cli.main import run; sys.exit(run(['tasks']) + 3)"
    done = _run("-c", code)
    assert done.returncode == 3 and done.stdout.startswith("task ")
    (tmp_path / "languages").mkdir()
    (tmp_path / "languages" / "zz.yaml").write_text("code: zz\nname: [not, a, name]\n", encoding="utf-8")
    done = _run("-m", "evaluator", "tasks", env={**os.environ, "TANAW_DATA_DIR": str(tmp_path)})
    assert done.returncode == 2 and done.stderr.startswith(f"error: {tmp_path / 'languages' / 'zz.yaml'}: name")
    assert "Traceback" not in done.stderr
