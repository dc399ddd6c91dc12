"""The package rules hold (import-linter contracts in .importlinter) and the code passes ruff's stated rule set
(ruff.toml); a forbidden import added to a copy of the code breaks the contract that forbids it."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("evaluator", "store", "services", "pages")
LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
        "sys.exit(lint_imports_command())", "--no-cache", "--no-logo"]


def _lint(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(LINT, cwd=root, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})


def test_import_contracts_are_kept():
    out = _lint(REPO)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "3 kept, 0 broken" in out.stdout


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    """The four packages and the contracts, copied (caches left out) so a test can add an import to them."""
    root = tmp_path_factory.mktemp("layers")
    for pkg in PACKAGES:
        shutil.copytree(REPO / pkg, root / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / ".importlinter", root / ".importlinter")
    return root


@pytest.mark.parametrize("module, line, contract, shown", [
    ("evaluator/scoring.py", "from store import db", "evaluator is pure", "evaluator.scoring -> store.db"),
    ("evaluator/extract.py", "import streamlit", "evaluator is pure", "evaluator.extract -> streamlit"),
    ("evaluator/aggregate.py", "import services.ingest", "evaluator is pure", "evaluator.aggregate -> services"),
    ("store/queries/leaderboard.py", "from evaluator import rollup", "store knows nothing",
     "store.queries.leaderboard -> evaluator.rollup"),
    ("pages/leaderboard.py", "from store import writer", "pages import only", "pages.leaderboard -> store.writer"),
    ("pages/model.py", "from evaluator import aggregate", "pages import only", "pages.model -> evaluator.aggregate"),
])
def test_a_forbidden_import_breaks_its_contract(copy, module, line, contract, shown):
    path = copy / module
    original = path.read_text(encoding="utf-8")
    path.write_text(f"{line}  # added by the test\n{original}", encoding="utf-8")
    try:
        out = _lint(copy)
    finally:
        path.write_text(original, encoding="utf-8")
    assert out.returncode == 1, out.stdout + out.stderr
    broken = out.stdout.split("Broken contracts")[-1]
    assert contract in broken and shown in broken, out.stdout


def test_ruff_finds_nothing():
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                         cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
