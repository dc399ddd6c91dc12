"""In-process GGUF backend through llama-cpp-python (optional: `pip install -r requirements-llama.txt`).

For developers without a GPU server. Generation uses the model's chat template; option log-likelihoods come from one
forward pass with `logits_all=True` and a log-softmax in numpy over the rows that predict the option's tokens (the
llama.cpp HTTP server's echoed log-probabilities give the same numbers, much more slowly). Options of one item share
the prompt: it is evaluated once, then each option's tokens as their own batch (the same split every time, so the
scores do not depend on the order of the options).

Chat template: an explicit `chat_format` (`--chat-format`) wins; else the GGUF's own `tokenizer.chat_template`; else a
known family named by the GGUF's `general.architecture` (Gemma → llama-cpp-python's `gemma`); otherwise the backend
refuses rather than let llama-cpp-python fall back to `llama-2` (`[INST]` prompts that a Gemma model answers with
nothing). `chat_template` says which was used; the runner records it with every run.
"""
from __future__ import annotations

import asyncio
import os
import time
from typing import Any, Mapping

import numpy as np

from evaluator.clients import Completion, OptionScore

try:
    import gguf
    import llama_cpp
except ImportError as exc:  # pragma: no cover - exercised only where the extra is missing
    raise ImportError("the llamacpp backend needs llama-cpp-python: pip install -r requirements-llama.txt "
                      "(or scripts/install_llama.sh)") from exc


FAMILY_CHAT_FORMATS = {"gemma": "gemma", "gemma2": "gemma", "gemma3": "gemma", "gemma3n": "gemma"}
"""GGUF `general.architecture` → llama-cpp-python chat format, for GGUFs that carry no template of their own."""
FOLD_SYSTEM = {"gemma"}
"""Chat formats with no system role (llama-cpp-python's `gemma` drops it): system text goes into the first user turn,
as Gemma's own template does."""


SCORE_CACHE = 4096
"""Option scores kept per backend (prompt and option text as the key)."""


class ChatFormatError(ValueError):
    """The GGUF has no chat template, no known family, and no `--chat-format` was given (or an unknown one)."""


def gguf_metadata(path: str, keys: tuple[str, ...] = ("tokenizer.chat_template", "general.architecture",
                                                      "general.name")) -> dict[str, str]:
    """String metadata of a GGUF file (only `keys`), read without loading the weights.

    llama.cpp's own loader reads it with the vocabulary only (a third of a second for Gemma 3's 262,144 tokens);
    gguf's pure-Python `GGUFReader`, which parses every vocabulary entry into numpy views (~10 s for the same file),
    is the fallback for a file llama.cpp refuses (an architecture it does not know), so such a file is still
    refused with its own header's words."""
    try:
        llm = llama_cpp.Llama(model_path=path, vocab_only=True, verbose=False)
    except (ValueError, RuntimeError, OSError):
        return _header_metadata(path, keys)
    try:
        meta = llm.metadata
    finally:
        llm.close()
    return {key: meta[key] for key in keys if meta.get(key) is not None}


def _header_metadata(path: str, keys: tuple[str, ...]) -> dict[str, str]:
    """`gguf_metadata` through gguf's `GGUFReader`."""
    reader = gguf.GGUFReader(path)
    out = {}
    for key in keys:
        field = reader.get_field(key)
        if field is not None:
            value = field.contents()
            out[key] = value if isinstance(value, str) else str(value)
    return out


def choose_chat_format(metadata: Mapping[str, str], requested: str | None, model_file: str) -> tuple[str | None, str]:
    """(chat_format for llama_cpp.Llama, description recorded with the run); ChatFormatError when nothing fits.

    `None` as the format lets llama-cpp-python use the GGUF's own template (a known name when it recognises it)."""
    known = set(llama_cpp.llama_chat_format.LlamaChatCompletionHandlerRegistry()._chat_handlers)
    if requested:
        if requested not in known:
            raise ChatFormatError(f"--chat-format {requested!r} is not a llama-cpp-python chat format; known: "
                                  + ", ".join(sorted(known)))
        return requested, f"{requested} (--chat-format)"
    if (metadata.get("tokenizer.chat_template") or "").strip():
        return None, "GGUF tokenizer.chat_template"
    arch = metadata.get("general.architecture")
    if arch in FAMILY_CHAT_FORMATS:
        fmt = FAMILY_CHAT_FORMATS[arch]
        return fmt, f"{fmt} (known family: GGUF general.architecture = {arch}; the GGUF has no template)"
    raise ChatFormatError(f"{model_file} carries no chat template and its architecture ({arch or 'not named'}) is "
                          "not a known family, so the chat format would be a guess; pass --chat-format NAME "
                          "(a llama-cpp-python chat format, e.g. gemma, chatml, llama-3)")


def fold_system(messages: list[dict]) -> list[dict]:
    """Messages without a system role: system text prepended (blank line) to the first user turn."""
    system = "\n\n".join(m.get("content") or "" for m in messages if m.get("role") == "system")
    rest = [dict(m) for m in messages if m.get("role") != "system"]
    if system:
        for m in rest:
            if m.get("role") == "user":
                m["content"] = f"{system}\n\n{m.get('content') or ''}"
                break
        else:
            rest.insert(0, {"role": "user", "content": system})
    return rest


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """log-softmax over the last axis, computed stably in float64."""
    x = logits.astype(np.float64)
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


class LlamaCppBackend:
    """A GGUF model loaded in this process; calls are serialised on one worker thread."""

    def __init__(self, model_path: str, *, n_ctx: int = 4096, chat_format: str | None = None, seed: int = 0,
                 n_threads: int | None = None, verbose: bool = False):
        self.model_path = model_path
        fmt, self.chat_template = choose_chat_format(gguf_metadata(model_path), chat_format,
                                                     os.path.basename(model_path))
        self.llm = llama_cpp.Llama(model_path=model_path, n_ctx=n_ctx, logits_all=True, seed=seed,
                                   chat_format=fmt, n_threads=n_threads, verbose=verbose)
        self.chat_format: str = self.llm.chat_format
        """The llama-cpp-python format in use (`chat_template.default` = the GGUF's own Jinja template)."""
        self.tokenizer_name = f"model tokenizer ({os.path.basename(model_path)})"
        self._lock = asyncio.Lock()
        self._prefix: list[int] | None = None
        """Tokens whose KV cache and logit rows are current (the prompt part of the last option scored)."""
        self._scores: dict[tuple[str, str], OptionScore] = {}
        """Option scores already computed (deterministic: the same batches every time). A minimal pair's sentences
        are scored without a prompt, so both option orders and both prompt languages ask the same four questions."""

    # ---- synchronous core ----------------------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        """Tokens of `text` in the model's own vocabulary (no BOS)."""
        return len(self.llm.tokenize(text.encode("utf-8"), add_bos=False))

    def _eval(self, tokens: list[int], split: int) -> np.ndarray:
        """Logit rows for `tokens` (row i predicts token i + 1): `tokens[:split]` as one batch (kept for the next
        option of the same prompt), then the rest as another, so an option's score never depends on the order in
        which options are asked. (Evaluating the prompt without its rows changes the batches and moves scores by
        ~0.1 nat against llama.cpp's server; generation skips the rows instead, see `chat_sync`.) With nothing but
        BOS before the option (a minimal pair's sentence, scored without a prompt) there is nothing worth keeping:
        the tokens go in one batch from an empty cache, as llama.cpp's own echo evaluates them (BOS alone, then the
        rest, moved the sum by ~0.2 nat on an AVX2-only CPU)."""
        llm, prefix = self.llm, tokens[:split]
        self._logit_rows(True)
        if split <= 1:
            llm.reset()
            self._prefix = None
            llm.eval(tokens)
            return llm.scores[: len(tokens)]
        if self._prefix != prefix:
            llm.reset()
            llm.eval(prefix)
            self._prefix = prefix
        llm.n_tokens = len(prefix)
        llm.eval(tokens[split:])
        return llm.scores[: len(tokens)]

    def _logit_rows(self, every_token: bool) -> None:
        """Whether the next `eval` keeps a logit row per token (scoring) or only sampling's last one."""
        self.llm._logits_all = every_token

    def option_logprob_sync(self, prompt: str, option: str) -> OptionScore:
        """log P(option | prompt): sum over the tokens whose bytes overlap the option's bytes (remembered)."""
        key = (prompt, option)
        if key not in self._scores:
            if len(self._scores) >= SCORE_CACHE:
                self._scores.clear()
            self._scores[key] = self._option_logprob(prompt, option)
        return self._scores[key]

    def _option_logprob(self, prompt: str, option: str) -> OptionScore:
        t0 = time.monotonic()
        text = (prompt + option).encode("utf-8")
        tokens = self.llm.tokenize(text, add_bos=True)
        picked = self._option_positions(prompt, text, tokens)
        if not picked:
            raise ValueError(f"option {option!r} has no tokens of its own after the prompt")
        rows = self._eval(tokens, picked[0])
        lp = log_softmax(rows[[i - 1 for i in picked]])
        total = float(sum(lp[k, tokens[i]] for k, i in enumerate(picked)))
        return OptionScore(logprob=total, n_tokens=len(picked), tokens_in=len(tokens),
                           latency_s=time.monotonic() - t0)

    def _option_positions(self, prompt: str, text: bytes, tokens: list[int]) -> list[int]:
        """Positions in `tokens` (prompt + option, BOS first) of the tokens that carry option bytes.

        By byte offsets: a token's end is the length of the decoded prefix (decoding prefixes keeps SentencePiece
        spaces right), and a token straddling the boundary counts for the option. When decoding does not give the
        text back byte for byte (some Tamil text decodes shorter), offsets would drift: then the option's tokens are
        those after the longest common prefix with the prompt's own tokens."""
        start = len(prompt.encode("utf-8"))
        if len(self.llm.detokenize(tokens[1:])) == len(text):
            return [i for i in range(1, len(tokens)) if len(self.llm.detokenize(tokens[1:i + 1])) > start]
        alone = self.llm.tokenize(prompt.encode("utf-8"), add_bos=True)
        common = next((k for k, (a, b) in enumerate(zip(alone, tokens)) if a != b), min(len(alone), len(tokens)))
        return list(range(max(common, 1), len(tokens)))

    def prompt_logprobs_sync(self, text: str, top_k: int = 20) -> list[tuple[str, float | None, dict[str, float]]]:
        """Each token of `text` with its log-probability given the tokens before it and the `top_k` most probable
        tokens at its position, as `ModelClient.prompt_logprobs` reads them from llama.cpp's server (its echo gives
        the first token no log-probability, and so does this); tokens are named by their vocabulary ids (as
        strings), so two ids that decode alike stay apart. A text longer than the context window is scored on its
        first `n_ctx` tokens."""
        tokens = self.llm.tokenize(text.encode("utf-8"), add_bos=True)[: self.llm.n_ctx()]
        if len(tokens) < 2:
            return []
        rows = self._eval(tokens, 1)
        out: list[tuple[str, float | None, dict[str, float]]] = [(str(tokens[1]), None, {})]
        for i, tok in enumerate(tokens[2:], start=1):  # row i predicts token i + 1; one row at a time, since a
            lp = log_softmax(rows[i])                   # whole text's rows in float64 can take gigabytes
            k = max(1, min(top_k, lp.shape[0]))
            top = np.argpartition(lp, -k)[-k:]
            out.append((str(tok), float(lp[tok]), {str(int(t)): float(lp[t]) for t in top}))
        return out

    def chat_sync(self, messages: list[dict], *, temperature: float, top_p: float, max_tokens: int) -> Completion:
        """One chat completion with the model's chat template."""
        t0 = time.monotonic()
        self._prefix = None  # generation reuses and overwrites the cache its own way
        if self.chat_format in FOLD_SYSTEM:
            messages = fold_system(messages)
        self._logit_rows(False)  # sampling reads the last row only; no per-token copies of the vocabulary
        r = self.llm.create_chat_completion(messages=messages, temperature=temperature, top_p=top_p,
                                            max_tokens=max_tokens)
        choice, usage = r["choices"][0], r.get("usage") or {}
        return Completion(text=choice["message"].get("content") or "", reasoning=None,
                          tokens_in=usage.get("prompt_tokens"), tokens_out=usage.get("completion_tokens"),
                          latency_s=time.monotonic() - t0, finish_reason=choice.get("finish_reason"))

    # ---- the runner's async interface ----------------------------------------------------------------------
    async def chat(self, messages: list[dict], *, temperature: float = 0.0, top_p: float = 1.0,
                   max_tokens: int = 256, extra_body: Mapping[str, Any] | None = None) -> Completion:
        """Generate on the worker thread (`extra_body` has no meaning in-process and is ignored)."""
        async with self._lock:
            return await asyncio.to_thread(self.chat_sync, messages, temperature=temperature, top_p=top_p,
                                           max_tokens=max_tokens)

    async def option_logprob(self, prompt: str, option: str) -> OptionScore:
        """Score one option on the worker thread."""
        async with self._lock:
            return await asyncio.to_thread(self.option_logprob_sync, prompt, option)

    async def prompt_logprobs(self, text: str, top_k: int = 20) -> list[tuple[str, float | None, dict[str, float]]]:
        """`prompt_logprobs_sync` on the worker thread."""
        async with self._lock:
            return await asyncio.to_thread(self.prompt_logprobs_sync, text, top_k)

    async def close(self) -> None:
        """Free the model."""
        self.llm.close()
