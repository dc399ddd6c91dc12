"""`python -m evaluator run` on a conversation task, killed with SIGKILL the moment its first second turn reaches
the server, then restarted: the stored first turn is not asked again, the resumed second turn carries it, and every
turn is answered exactly once over both runs (the one request the kill cut off, never answered, is sent again)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import duckdb

from tests.helpers.standin_server import StandinServer

REPO = Path(__file__).resolve().parents[2]
CONVERSATIONS = [{"question_id": n, "prompts": [{"text": f"Soalan {n} giliran satu."},
                                                {"text": f"Soalan {n} giliran dua."}],
                  "baselines": {"ref": ["a", "b"]}, "references": None, "metadata": {"category": "writing"}}
                 for n in (1, 2, 3)]


def _cmd(url: str, db: Path, data: Path) -> list[str]:
    return [sys.executable, "-m", "evaluator", "run", "--model", "chat-resume", "--base-url", url,
            "--tasks", "sea-mt-bench", "--langs", "id", "--prompt-lang", "native", "-c", "1", "--data-dir",
            str(data), "--db", str(db), "--no-progress"]


def test_sigkill_between_turns_then_resume_answers_every_turn_once(tmp_path):
    data = tmp_path / "data"
    (data / "mt_bench").mkdir(parents=True)
    (data / "mt_bench" / "id.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CONVERSATIONS),
                                                 encoding="utf-8")
    db = tmp_path / "chat.duckdb"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    answered: list[str] = []
    proc: list[subprocess.Popen] = []
    killed = threading.Event()

    def reply(prompt: str) -> str:
        if "giliran dua" in prompt and not killed.is_set():
            killed.set()
            os.kill(proc[0].pid, signal.SIGKILL)  # the run dies before this second turn is answered
            return "never read"
        answered.append(prompt)
        return f"jawapan untuk <{prompt}>"

    with StandinServer(reply=reply) as server:
        proc.append(subprocess.Popen(_cmd(server.base_url, db, data), cwd=REPO, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT))
        proc[0].wait(timeout=120)
        assert killed.is_set() and proc[0].returncode == -signal.SIGKILL
        con = duckdb.connect(str(db), read_only=True)
        before = con.execute("SELECT item_id, ord, output FROM predictions").fetchall()
        con.close()
        assert before == [("1", "t1", "jawapan untuk <Soalan 1 giliran satu.>")]

        done = subprocess.run(_cmd(server.base_url, db, data), cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "1 already stored" in done.stdout
        resumed = [b["messages"] for b in server.bodies if len(b["messages"]) == 3
                   and b["messages"][0]["content"] == "Soalan 1 giliran satu."]
    assert len(answered) == len(set(answered)) == 6  # every turn answered once over both runs
    assert resumed[-1][1] == {"role": "assistant", "content": "jawapan untuk <Soalan 1 giliran satu.>"}
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*), count(DISTINCT (item_id, ord)) FROM predictions").fetchone() == (6, 6)
    con.close()
