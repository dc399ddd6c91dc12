"""A local OpenAI-compatible stand-in server for tests and benchmarks (stdlib asyncio only).

It answers `/v1/chat/completions`, `/v1/completions` (with `echo` + `logprobs`) and `/v1/models`, and can be told to
add latency, answer 429/500 in bursts or at random, drop connections without answering, or hang past the client's
timeout. It counts requests per prompt and the peak number in flight, so tests can check retries, resumption and
concurrency. Start it in a thread with `StandinServer(...).start()` (returns the base URL) or as
`python tests/helpers/standin_server.py --port 8011 --latency 0.1`.
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import hashlib
import json
import random
import re
import threading
from dataclasses import dataclass
from typing import Callable

TOKEN_RE = re.compile(r"\s*\S+|\s+")


@dataclass
class Faults:
    """What goes wrong, and how often. Bursts are consumed one request at a time, in the order listed."""

    burst_429: int = 0
    """The next N requests answer 429 (with Retry-After: 0)."""
    burst_500: int = 0
    """Then the next N answer 500."""
    drop: int = 0
    """Then the next N close the connection without answering."""
    hang: int = 0
    """Then the next N wait `hang_s` before answering (past the client's timeout)."""
    hang_s: float = 30.0
    """How long a hanging request waits."""
    p_429: float = 0.0
    """Probability that any other request answers 429."""
    p_500: float = 0.0
    """Probability that any other request answers 500."""
    p_drop: float = 0.0
    """Probability that any other request is dropped."""
    seed: int = 0
    """Seed of the random faults."""


def default_reply(prompt: str) -> str:
    """A deterministic answer: "A" or "B" chosen by a hash of the prompt (so runs are reproducible)."""
    return "AB"[hashlib.sha256(prompt.encode()).digest()[0] % 2]


def token_logprob(token: str) -> float:
    """Deterministic per-token log-probability in [-4, -0.1)."""
    return -0.1 - (hashlib.sha256(token.encode()).digest()[0] / 256) * 3.9


class StandinServer:
    """The server's state: configuration, fault plan and request counters."""

    def __init__(self, latency: float = 0.0, faults: Faults | None = None, *, chat_only: bool = False,
                 reply: Callable[[str], str] = default_reply, reasoning: str | None = None, port: int = 0,
                 prompt_scores: Callable[[list[str]], list[tuple[float | None, dict[str, float]]]] | None = None):
        self.latency = latency
        self.faults = faults or Faults()
        self.chat_only = chat_only
        self.reply = reply
        self.reasoning = reasoning
        self.prompt_scores = prompt_scores
        """Echoed prompt tokens -> (log-probability, top-k alternatives) per token, as vLLM answers `logprobs=k`
        with `echo`; None: deterministic log-probabilities (`token_logprob`) and no alternatives."""
        self.port = port
        self.counts: collections.Counter[str] = collections.Counter()
        self.statuses: collections.Counter[int | str] = collections.Counter()
        self.in_flight = 0
        self.peak_in_flight = 0
        self.requests = 0
        self.bodies: list[dict] = []
        """Every request body, in arrival order (multi-turn tests read the messages sent)."""
        self._rng = random.Random(self.faults.seed)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    # ---- HTTP plumbing -------------------------------------------------------------------------------------
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                method, path, _ = line.decode("latin-1").split(" ", 2)
                headers = {}
                while (h := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    k, _, v = h.decode("latin-1").partition(":")
                    headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(int(headers.get("content-length", 0) or 0))
                keep = await self._respond(writer, method, path.split("?")[0], body)
                if not keep:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, ValueError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, status: int, payload: dict, extra: str = "") -> None:
        data = json.dumps(payload).encode()
        reason = {200: "OK", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error"}.get(status, "")
        head = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                f"{extra}\r\n")
        writer.write(head.encode() + data)
        await writer.drain()

    async def _respond(self, writer: asyncio.StreamWriter, method: str, path: str, body: bytes) -> bool:
        if method == "GET" and path.endswith("/models"):
            await self._send(writer, 200, {"object": "list", "data": [{"id": "standin", "object": "model"}]})
            return True
        req = json.loads(body or b"{}")
        completions = path.endswith("/v1/completions")
        prompt = req.get("prompt", "") if completions else _last_user(req.get("messages", []))
        self.requests += 1
        self.bodies.append(req)
        self.counts[prompt] += 1
        self.in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            fault = self._next_fault()
            if fault == "drop":
                self.statuses["drop"] += 1
                return False
            if fault == "hang":
                self.statuses["hang"] += 1
                await asyncio.sleep(self.faults.hang_s)
                return False
            if self.latency:
                await asyncio.sleep(self.latency)
            if fault in (429, 500):
                self.statuses[fault] += 1
                await self._send(writer, fault, {"error": {"message": f"stand-in fault {fault}", "code": fault}},
                                 "Retry-After: 0\r\n" if fault == 429 else "")
                return True
            if completions and self.chat_only:
                self.statuses[404] += 1
                await self._send(writer, 404, {"error": {"message": "Not Found: /v1/completions"}})
                return True
            payload = self._completion(req, prompt) if completions else self._chat(req, prompt)
            self.statuses[200] += 1
            await self._send(writer, 200, payload)
            return True
        finally:
            self.in_flight -= 1

    def _next_fault(self) -> int | str | None:
        f = self.faults
        for name in ("burst_429", "burst_500", "drop", "hang"):
            if getattr(f, name) > 0:
                setattr(f, name, getattr(f, name) - 1)
                return {"burst_429": 429, "burst_500": 500}.get(name, name)
        r = self._rng.random()
        if r < f.p_429:
            return 429
        if r < f.p_429 + f.p_500:
            return 500
        if r < f.p_429 + f.p_500 + f.p_drop:
            return "drop"
        return None

    # ---- OpenAI payloads -----------------------------------------------------------------------------------
    def _chat(self, req: dict, prompt: str) -> dict:
        text = self.reply(prompt)
        message = {"role": "assistant", "content": text}
        if self.reasoning is not None:
            message["reasoning_content"] = self.reasoning
        n_in = sum(len(TOKEN_RE.findall(m.get("content") or "")) for m in req.get("messages", []))
        n_out = len(TOKEN_RE.findall(text))
        return {"id": "chatcmpl-standin", "object": "chat.completion", "created": 0, "model": req.get("model", ""),
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": n_in, "completion_tokens": n_out, "total_tokens": n_in + n_out}}

    def _completion(self, req: dict, prompt: str) -> dict:
        """Echo the prompt as whitespace-led tokens with deterministic log-probabilities, plus one new token."""
        tokens = TOKEN_RE.findall(prompt) + [" x"]
        offsets, pos = [], 0
        for tok in tokens:
            offsets.append(pos)
            pos += len(tok)
        lps = [None] + [token_logprob(t) for t in tokens[1:]]
        tops = None
        if self.prompt_scores is not None:
            scored = self.prompt_scores(tokens[:-1])
            lps = [lp for lp, _ in scored] + [lps[-1]]
            tops = [top for _, top in scored] + [{tokens[-1]: lps[-1]}]
        echo = bool(req.get("echo"))
        keep = slice(None) if echo else slice(len(tokens) - 1, None)
        logprobs = None
        if req.get("logprobs") is not None:
            logprobs = {"tokens": tokens[keep], "token_logprobs": lps[keep], "text_offset": offsets[keep],
                        "top_logprobs": tops[keep] if tops else None}
        text = (prompt if echo else "") + " x"
        n_in = len(tokens) - 1
        return {"id": "cmpl-standin", "object": "text_completion", "created": 0, "model": req.get("model", ""),
                "choices": [{"index": 0, "text": text, "logprobs": logprobs, "finish_reason": "length"}],
                "usage": {"prompt_tokens": n_in, "completion_tokens": 1, "total_tokens": n_in + 1}}

    # ---- lifecycle -----------------------------------------------------------------------------------------
    async def serve(self) -> None:
        """Serve until cancelled (used by the thread and by the command line)."""
        self._loop = asyncio.get_running_loop()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port, backlog=1024)
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        async with self._server:
            await self._server.serve_forever()

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:<port>/v1`."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> str:
        """Serve from a daemon thread; returns the base URL once listening."""
        def run() -> None:
            try:
                asyncio.run(self.serve())
            except asyncio.CancelledError:
                pass

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("stand-in server did not start")
        return self.base_url

    def stop(self) -> None:
        """Stop serving and join the thread."""
        if self._loop and self._server:
            def cancel_all() -> None:
                for task in asyncio.all_tasks():
                    task.cancel()

            self._loop.call_soon_threadsafe(cancel_all)
        if self._thread:
            self._thread.join(5)

    def __enter__(self) -> "StandinServer":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _last_user(messages: list[dict]) -> str:
    for m in reversed(messages):
        if m.get("role") == "user":
            content = m.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8011)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every answer")
    parser.add_argument("--p-429", type=float, default=0.0)
    parser.add_argument("--p-500", type=float, default=0.0)
    parser.add_argument("--chat-only", action="store_true", help="answer 404 on /v1/completions")
    args = parser.parse_args()
    server = StandinServer(args.latency, Faults(p_429=args.p_429, p_500=args.p_500), chat_only=args.chat_only,
                           port=args.port)
    asyncio.run(server.serve())


if __name__ == "__main__":
    main()
