"""The processes Tanaw starts import only what they use: no rouge-score, NLTK or SciPy statistics before a summary
is scored or human agreement computed (they cost 0.9-1.6 s of every start on the 2-core machine:
`benchmarks/bench_startup.py`), and both still load and compute when they are needed."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ENTRY_POINTS = ("services.ingest", "services.run_child", "services.startup", "services.campaigns", "evaluator.run")
HEAVY = ("rouge_score", "nltk", "scipy.stats")


def _loaded_after(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", f"{code}\nimport sys\n"
                          f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.split()


def test_entry_points_import_no_summary_or_statistics_library():
    assert _loaded_after("\n".join(f"import {m}" for m in ENTRY_POINTS)) == []


def test_rouge_and_agreement_load_when_used():
    code = """
from evaluator.metrics.summarization import bootstrap_mid, rouge_l
from evaluator.human import agreement
assert abs(rouge_l("the cat sat", "the cat sat down", lang="id") - 2 * 0.75 / 1.75) < 1e-9
assert bootstrap_mid([0.5, 0.5])[0] == 0.5
assert agreement.mean_interval([1.0, 0.0, 1.0], binary=True).n == 3
assert agreement._tau([1, 2, 3], [1, 2, 3]) == 1.0
"""
    assert _loaded_after(code) == list(HEAVY)
