"""A local stand-in for raw.githubusercontent.com: `GET /<owner>/<name>/<commit>/<path>` from an in-memory map.

Honours `Range: bytes=N-` (206), logs every request with its range, and can cut a response short once
(`cut_once[path] = n`: the first GET sends the full Content-Length but only n bytes, then closes), as a dropped
connection would. `files` maps "owner/name/commit/path" to bytes.
"""
from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote


class RawStandin:
    """Serve `files` on 127.0.0.1 (context manager); `url` is the base URL for `data pull --base-url`."""

    def __init__(self, files: dict[str, bytes]):
        self.files = dict(files)
        self.cut_once: dict[str, int] = {}
        self.log: list[tuple[str, str | None, int]] = []
        """(path, Range header, bytes sent) per GET."""
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> "RawStandin":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(standin: RawStandin):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            key = unquote(self.path).lstrip("/")
            data = standin.files.get(key)
            rng = self.headers.get("Range")
            if data is None:
                standin.log.append((key, rng, 0))
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            start = int(rng.split("=")[1].split("-")[0]) if rng else 0
            body = data[start:]
            self.send_response(206 if rng else 200)
            self.send_header("Content-Length", str(len(body)))
            if rng:
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            self.end_headers()
            cut = standin.cut_once.pop(key, None)
            sent = body[:cut] if cut is not None else body
            self.wfile.write(sent)
            standin.log.append((key, rng, len(sent)))
            if cut is not None:
                self.wfile.flush()
                self.close_connection = True

    return Handler
