"""`python -m services.run_child`: one run whose `RunSpec` arrives as JSON on stdin (the worker's child process).

The worker starts this in a child process with a scrubbed environment (services/worker.py `run_env`), so a crash or
a time-out fails one request, not the worker, and nothing of the request passes through a command line. The spec is
checked again here (`runspec.from_json`); exit codes as `python -m evaluator run` (services/run.py). With
`--leakage` (a queued leakage request) the spec's model is probed instead (`services.leakage_probes`, the
`leakage` run mode with its default probes): 0 done, 2 refused.
"""
from __future__ import annotations

import sys

from evaluator import runspec
from services.run import run_and_report


def main(text: str | None = None, leakage: bool = False) -> int:
    """Read the spec (from `text`, else stdin) and run it, or probe its model for leakage; the exit code."""
    try:
        spec = runspec.from_json(sys.stdin.read() if text is None else text, "run spec on stdin").checked()
    except runspec.ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if leakage:
        from services.leakage_probes import run_and_report as probe_and_report

        return probe_and_report(spec)
    return run_and_report(spec)


if __name__ == "__main__":
    sys.exit(main(leakage=sys.argv[1:] == ["--leakage"]))
