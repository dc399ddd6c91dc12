"""Start-up of the processes Tanaw launches: seconds to import each entry point in a fresh interpreter.

    python benchmarks/bench_startup.py [--repeat 5]

Every `python -m evaluator ingest` or `run`, every worker child (`services.run_child`) and every app process
imports its entry point before doing any work; the app imports `services.startup` before its first page. For each
entry point this times `python -c "import <module>"` in a new interpreter, `--repeat` times, alternated with its
peer: the same import after what it used to import at module level, `rouge_score.rouge_scorer`
for the scoring paths (rouge-score's tokenizers import NLTK, which imports SciPy's statistics) and `scipy.stats` for
the campaigns (the human-evaluation agreement module). The peer is what the process paid then; the difference is
what a process that scores no summary and computes no agreement saves. Prints the medians, the
paired difference, which of the heavy modules the entry point still loads, and the machine and load average.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

ENTRY_POINTS = {  # module: (what it is, what it imported at module level before)
    "services.ingest": ("`evaluator ingest` and `run`: scoring and storing", "rouge_score.rouge_scorer"),
    "services.run_child": ("the queue worker's child process", "rouge_score.rouge_scorer"),
    "services.startup": ("the app's first page", "rouge_score.rouge_scorer"),
    "services.campaigns": ("human-evaluation campaigns (CLI, annotate page)", "scipy.stats"),
}
HEAVY = ("rouge_score.rouge_scorer", "nltk", "scipy.stats")


def seconds(code: str) -> float:
    """Wall seconds of `python -c code` in a new interpreter, run from the repository."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)
    return time.perf_counter() - t0


def loaded(module: str) -> list[str]:
    """Which of HEAVY importing `module` loads."""
    out = subprocess.run([sys.executable, "-c", f"import sys, {module}; print(' '.join(m for m in {HEAVY!r} "
                          "if m in sys.modules))"], cwd=REPO, check=True, capture_output=True, text=True)
    return out.stdout.split()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    print(f"machine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}; load average "
          f"{os.getloadavg()[0]:.2f}; median of {args.repeat} fresh interpreters, alternated with the peer")
    print(f"{'entry point':<22}{'import s':>9}{'peer s':>8}{'paired diff s':>15}  heavy modules loaded; what it is")
    seconds("import numpy")  # the file cache warm for both sides
    for module, (what, before) in ENTRY_POINTS.items():
        own, peer = [], []
        for _ in range(args.repeat):
            own.append(seconds(f"import {module}"))
            peer.append(seconds(f"import {before}; import {module}"))
        diff = statistics.median(p - o for o, p in zip(own, peer))
        heavy = " ".join(loaded(module)) or "none"
        print(f"{module:<22}{statistics.median(own):>9.2f}{statistics.median(peer):>8.2f}{diff:>15.2f}  {heavy}; {what}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
