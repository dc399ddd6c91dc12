"""Small helpers shared by CLI commands: printing tables and JSON."""
from __future__ import annotations

import json
import sys
from typing import Any, Sequence


def print_json(obj: Any) -> None:
    """Pretty JSON on stdout (UTF-8, non-ASCII kept)."""
    json.dump(obj, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


def print_table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> None:
    """A plain aligned text table."""
    cells = [[("" if v is None else str(v)) for v in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
    print("  ".join("-" * w for w in widths))
    for r in cells:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths)))


def fmt(v: float | None, digits: int = 1) -> str:
    """A score for a table: one decimal, '—' when missing."""
    return "—" if v is None or v != v else f"{v:.{digits}f}"


def say(message: str) -> None:
    """A progress or note line on stderr (stdout keeps the command's output)."""
    print(message, file=sys.stderr, flush=True)


def read_store(path: str | None, wait: float = 30.0):
    """A read-only connection for a reading command: the store file, or the serving app's snapshot while the app
    holds the file (said on stderr); never takes the write lock. Raises store.db.StoreBusy when neither can be read
    within `wait` seconds."""
    from store import db

    con, note = db.reader(path, wait=wait, say=say)
    if note:
        say(f"note: {note}")
    return con


def app_serving(path: str | None) -> bool:
    """Whether a running app serves this store (and applies what is queued in its inbox)."""
    from store import inbox

    return inbox.serving(path)


def ask_app(path: str | None, op: str, args: dict, wait: float) -> dict | None:
    """Queue the write `op` for the app serving the store and wait up to `wait` seconds for its answer (None when
    none came; the request stays queued and is applied later), saying on stderr what happens."""
    from services.upload import default_actor
    from store import inbox

    actor = default_actor()
    key = inbox.drop_request(path, op, args, actor)
    box = inbox.inbox_dir(path)
    say(f"the app serving this store holds it: queued the request in its inbox ({box}); the app applies it within "
        f"a few seconds, as {actor}; waiting for its answer")
    answer = inbox.wait_reply(path, key, wait, progress=lambda s: say(f"still waiting for the app ({s:.0f} s of "
                                                                      f"{wait:.0f})"))
    if answer is None:
        say(f"no answer within {wait:.0f} s: the request stays queued in {box} and the app applies it when it next "
            f"looks (at the latest when it starts again); its answer will be in {box / (key + inbox.REPLY_SUFFIX)}")
    return answer
