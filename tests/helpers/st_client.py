"""A browserless Streamlit visitor: the app's own websocket protocol (`/_stcore/stream`, the protobufs that come with
streamlit, `streamlit.proto`) over aiohttp's client. A visitor asks for a run of a page, as a browser does, and
reads the server's messages until that run's `script_finished` (benchmarks/bench_load.py, the serving tests)."""
from __future__ import annotations

import asyncio
import time

import aiohttp
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ERROR_BOX = "hit an unexpected error"
"""The app's error box for an unexpected exception (pages/_ui.run_page)."""


def rerun(page_hash: str = "", page_name: str = "", query: str = "") -> bytes:
    """The request for a run of a page (its hash, else its URL path; both empty: the default page) with the URL's
    query string `query`, as the browser sends it."""
    msg = BackMsg()
    msg.rerun_script.query_string = query
    msg.rerun_script.page_script_hash = page_hash
    msg.rerun_script.page_name = page_name
    return msg.SerializeToString()


async def view(ws, request: bytes, timeout: float, frames: list[bytes] | None = None) -> tuple[float, str, dict]:
    """Send one run request and read until its script_finished: (seconds, outcome, the pages by URL path -> hash);
    every message received is appended to `frames` when given."""
    start = time.perf_counter()
    await ws.send_bytes(request)
    pages: dict[str, str] = {}
    outcome = "ok"
    deadline = start + timeout
    while True:
        left = deadline - time.perf_counter()
        if left <= 0:
            return time.perf_counter() - start, "timeout", pages
        try:
            frame = await ws.receive(timeout=left)
        except asyncio.TimeoutError:
            return time.perf_counter() - start, "timeout", pages
        if frame.type != aiohttp.WSMsgType.BINARY:
            return time.perf_counter() - start, "error", pages
        if frames is not None:
            frames.append(frame.data)
        msg = ForwardMsg()
        msg.ParseFromString(frame.data)
        kind = msg.WhichOneof("type")
        if kind == "navigation":
            pages = {p.url_pathname: p.page_script_hash for p in msg.navigation.app_pages}
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            which = element.WhichOneof("type")
            if which == "exception" or (which == "alert" and ERROR_BOX in element.alert.body):
                outcome = "error"
        elif kind == "script_finished":
            if msg.script_finished != ForwardMsg.FINISHED_SUCCESSFULLY:
                outcome = "error"
            return time.perf_counter() - start, outcome, pages


async def visitor(session: aiohttp.ClientSession, url: str, timeout: float, *, address: str | None = None,
                  pages: tuple[str, ...] = ("leaderboard", "pacute")) -> list[tuple[str, float, str]]:
    """One visitor, its own session: the default page (the leaderboard), then each other page of `pages` by its URL
    path; (page, seconds, "ok" | "error" | "timeout") per view. `address`: the X-Forwarded-For it comes from (a
    proxy in front keeps one visitor on one process by it)."""
    out = []
    headers = {"X-Forwarded-For": address} if address else None
    try:
        async with session.ws_connect(url.replace("http", "ws", 1) + "/_stcore/stream", protocols=("streamlit",),
                                      headers=headers, max_msg_size=0,
                                      timeout=aiohttp.ClientWSTimeout(ws_close=5)) as ws:
            seconds, outcome, hashes = await view(ws, rerun(), timeout)
            out.append((pages[0], seconds, outcome))
            for page in pages[1:]:
                if outcome == "timeout":
                    break
                seconds, outcome, _ = await view(ws, rerun(hashes.get(page, ""), page), timeout)
                out.append((page, seconds, outcome))
    except (aiohttp.ClientError, OSError):
        pass
    return out + [(page, 0.0, "error" if not out or out[-1][2] != "timeout" else "timeout")
                  for page in pages[len(out):]]
