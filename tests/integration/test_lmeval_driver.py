"""benchmarks/lmeval_chat_driver.py `--mode evaluate` against the stand-in: exactly the requested chat requests reach
the server (warm-up plus N, each prompt once) and lm-eval's exact_match equals the mean computed here from the
stand-in's own answers. Skipped without the lm-eval venv (LMEVAL_VENV, default /tmp/lmeval-venv; see
benchmarks/bench_throughput.py for how to make it)."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers.standin_server import StandinServer, default_reply

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
VENV_PYTHON = Path(os.environ.get("LMEVAL_VENV", "/tmp/lmeval-venv")) / "bin" / "python"


@pytest.mark.skipif(not VENV_PYTHON.exists(), reason=f"no lm-eval venv at {VENV_PYTHON.parent.parent}")
@pytest.mark.parametrize("prompts", ["function", "jinja"])
def test_evaluate_mode_sends_exactly_the_requests_and_scores_them(prompts):
    concurrency, n = 4, 10
    with StandinServer() as server:
        out = subprocess.run([str(VENV_PYTHON), str(REPO / "benchmarks" / "lmeval_chat_driver.py"), "--mode",
                              "evaluate", "--base-url", server.base_url, "--concurrency", str(concurrency),
                              "--requests", str(n), "--prompts", prompts], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        requests, counts = server.requests, dict(server.counts)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert requests == concurrency + n
    assert set(counts.values()) == {1}
    timed = [p for p in counts if p.startswith("What is the sentiment of the following sentence?\nstandin review ")]
    assert len(timed) == n == res["answers"]
    # the gold label of document i is "AB"[i % 2]; the stand-in answers default_reply(prompt)
    hits = [default_reply(p) == "AB"[int(re.search(r"standin review (\d+) ", p).group(1)) % 2] for p in timed]
    assert res["exact_match"] == pytest.approx(sum(hits) / n)
    assert res["exact_match_from_samples"] == pytest.approx(res["exact_match"])
    assert len(res["exact_match_stderr"]) == 4
    assert res["before_s"] + res["generate_s"] + res["after_s"] == pytest.approx(res["seconds"])
