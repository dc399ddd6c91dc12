"""The package rules hold (import-linter contracts in .importlinter), no module imports itself through others, and the
code passes ruff's stated rule set (ruff.toml); a forbidden import or a cycle added to a copy of the code breaks the
contract or check that forbids it."""
from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("evaluator", "store", "services", "pages", "cli")
LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
        "sys.exit(lint_imports_command())", "--no-cache", "--no-logo"]


def _python(root: Path, args: list[str]) -> subprocess.CompletedProcess:
    """`args` run in a Python that sees only the code under `root`."""
    return subprocess.run(args, cwd=root, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})


def _lint(root: Path) -> subprocess.CompletedProcess:
    return _python(root, LINT)


def test_import_contracts_are_kept():
    out = _lint(REPO)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "5 kept, 0 broken" in out.stdout


@contextlib.contextmanager
def _added(path: Path, line: str):
    """`line` added at the top of the file at `path` while the block runs."""
    original = path.read_text(encoding="utf-8")
    path.write_text(f"{line}  # added by the test\n{original}", encoding="utf-8")
    try:
        yield
    finally:
        path.write_text(original, encoding="utf-8")


def _cycles(root: Path) -> list[list[str]]:
    """Imports a -> b of the four packages that close a cycle (b also reaches a), found on the import graph
    import-linter itself builds (grimp), in-function imports included; [] when the modules form no cycle."""
    code = f"""
import json, grimp
graph = grimp.build_graph(*{PACKAGES!r}, cache_dir=None)
ours = {{m for m in graph.modules if m.split(".")[0] in {PACKAGES!r}}}
print(json.dumps(sorted([a, b] for a in ours for b in graph.find_modules_directly_imported_by(a)
                        if b in ours and graph.chain_exists(importer=b, imported=a))))
"""
    out = _python(root, [sys.executable, "-c", code])
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_no_module_imports_itself_through_others():
    assert _cycles(REPO) == []


def test_a_package_importing_its_own_init_is_a_cycle(copy):
    with _added(copy / "evaluator/datasets/hub.py", "from evaluator.datasets import load_items"):
        found = _cycles(copy)
    assert ["evaluator.datasets.hub", "evaluator.datasets"] in found, found


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
    ("store/queries/leaderboard.py", "import streamlit", "store knows nothing", "store.queries.leaderboard -> streamlit"),
    ("services/compare.py", "from pages import _cached", "services import no page", "services.compare -> pages._cached"),
    ("services/ingest.py", "from cli import common", "nothing imports the command line",
     "services.ingest -> cli.common"),
    ("evaluator/run.py", "import cli.main", "evaluator is pure", "evaluator.run -> cli.main"),
    ("evaluator/registry.py", "import evaluator.rollup", "no import cycles", "No cycles are allowed in evaluator."),
    ("evaluator/metrics/base.py", "from evaluator.metrics import qa", "no import cycles",
     "No cycles are allowed in evaluator.metrics."),
])
def test_a_forbidden_import_breaks_its_contract(copy, module, line, contract, shown):
    with _added(copy / module, line):
        out = _lint(copy)
    assert out.returncode == 1, out.stdout + out.stderr
    broken = out.stdout.split("Broken contracts")[-1]
    assert contract in broken and shown in broken, out.stdout


def test_ruff_finds_nothing():
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                         cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
