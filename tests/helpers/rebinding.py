"""A DNS-rebinding name server stand-in: `socket.getaddrinfo` for one host name answers a public address for the
first N lookups, then 127.0.0.1. The lookups are counted in a file, so the worker and its child process (which loads
this through a `sitecustomize` on PYTHONPATH, `sitecustomize_source`) see one name server, as with real DNS."""
from __future__ import annotations

import fcntl
import socket
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def install(host: str, public: str, first: int, counter: str) -> None:
    """Patch `socket.getaddrinfo` in this process: `host` resolves to `public` for the first `first` lookups
    (counted in the file `counter`, shared by every process that installs it), then to 127.0.0.1."""
    real = socket.getaddrinfo

    def getaddrinfo(name, port, family=0, type=0, proto=0, flags=0):
        text = name.decode() if isinstance(name, bytes) else name
        if (text or "").rstrip(".").lower() != host:
            return real(name, port, family, type, proto, flags)
        with open(counter, "a+") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            f.seek(0)
            n = int(f.read() or 0) + 1
            f.seek(0)
            f.truncate()
            f.write(str(n))
        return real(public if n <= first else "127.0.0.1", port, family, type, proto, flags)

    socket.getaddrinfo = getaddrinfo


def lookups(counter: str | Path) -> int:
    """How many lookups of the host were answered so far."""
    path = Path(counter)
    return int(path.read_text() or 0) if path.exists() else 0


def sitecustomize_source(host: str, public: str, first: int, counter: str | Path) -> str:
    """A `sitecustomize.py` that installs the same name server in every Python process started with its folder on
    PYTHONPATH."""
    return (f"import sys\nsys.path.insert(0, {str(REPO)!r})\nfrom tests.helpers.rebinding import install\n"
            f"install({host!r}, {public!r}, {first!r}, {str(counter)!r})\n")
