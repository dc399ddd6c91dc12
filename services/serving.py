"""While the app serves a store: its inbox applied within seconds, and a snapshot for readers in other processes.

DuckDB lets one process open a file read-write and then no other process can open it, so the app, which keeps its
connection, is the only writer while it runs. A `Watcher` thread (one per store file and process, started with the
app's store in services.startup) therefore, every INTERVAL_S seconds:

- applies what CLI commands queued: uploads (`ingest`) through the upload flow, other writes (`campaign create`,
  `tokens`, `finish`) through the services the CLI would have called (`REQUESTS`), as the operator who queued them;
- refreshes the store's snapshot (`store.db.write_snapshot`) after any write, the app's own included, so a CLI
  read (`leaderboard`, `campaign status`) sees it;
- then answers each entry in the inbox (the CLI waits for that answer and prints it), tells the pages their cached
  results are stale (`on_change`) and says it is there (`store.inbox.heartbeat`), so CLI commands queue their
  writes instead of waiting for a lock that is never released.
"""
from __future__ import annotations

import atexit
import logging
import threading
from pathlib import Path
from typing import Any, Callable

from evaluator import incidents
from services.campaigns import CampaignRefused, create_campaign, reissue_tokens, set_finished
from store import db, inbox
from store.writer_lock import WriterBusy, writer, writes

log = logging.getLogger("tanaw.inbox")
INTERVAL_S = 2.0
"""How often the watcher looks at the inbox (seconds)."""


def _create(db_path, args: dict, actor: str) -> dict:
    systems = [(str(m), str(p)) for m, p in args["systems"]]
    tokens = create_campaign(db_path, campaign_id=str(args["id"]), task=str(args["task"]), lang=str(args["lang"]),
                             systems=systems, annotators=[str(a) for a in args["annotators"]],
                             n_items=int(args["items"]), k=int(args["k"]), seed=int(args["seed"]),
                             n_repeats=int(args["repeats"]), protocol=args.get("protocol"), actor=actor)
    return {"tokens": tokens}


def _tokens(db_path, args: dict, actor: str) -> dict:
    names = [str(a) for a in args["annotators"]] if args.get("annotators") else None
    return {"tokens": reissue_tokens(db_path, str(args["id"]), names, actor=actor)}


def _finish(db_path, args: dict, actor: str) -> dict:
    set_finished(db_path, str(args["id"]), not args.get("reopen"), actor=actor)
    return {}


REQUESTS: dict[str, Callable[[Any, dict, str], dict]] = {
    "campaign-create": _create, "campaign-tokens": _tokens, "campaign-finish": _finish}
"""Write requests the CLI may queue while the app serves: name -> (db path, arguments, actor) -> answer fields."""


def apply_requests(db_path) -> list[tuple[str, dict]]:
    """Apply the queued write requests, oldest first; returns (key, answer) per request. A refused request is
    answered with its reason; an unexpected failure with an incident id (logged with its traceback, never sent).
    WriterBusy propagates: the request stays queued for the next round."""
    answers = []
    for key, request in inbox.requests(db_path):
        op, actor = request.get("op"), f"{request.get('actor') or 'cli'} (inbox)"
        try:
            answer = {"ok": True, **REQUESTS[op](db_path, request.get("args") or {}, actor)}
        except WriterBusy:
            raise
        except KeyError as e:
            answer = {"ok": False, "error": f"unknown request {op!r}" if op not in REQUESTS else f"missing {e}"}
        except (CampaignRefused, ValueError, TypeError) as e:
            answer = {"ok": False, "error": str(e)}
        except Exception:
            answer = {"ok": False, "error": f"internal error {incidents.record(f'applying the queued {op}')} "
                                            "(logged by the app); nothing was changed"}
        answers.append((key, answer))
    return answers


def apply_uploads(db_path) -> list[tuple[str, dict]]:
    """Import the queued uploads (services.upload.drain_inbox); returns (key, answer) per upload."""
    from services.upload import drain_inbox

    return [(key, {"ok": out.status != "rejected", "status": out.status, "message": out.message,
                   "errors": [str(e) for e in out.errors[:20]]})
            for key, out in drain_inbox(db_path, keys=True)]


class Watcher(threading.Thread):
    """Applies one store's inbox and refreshes its snapshot while the app serves it (module docstring)."""

    def __init__(self, db_path: Path, on_change: Callable[[], None] | None = None):
        super().__init__(name=f"tanaw-inbox-{db_path.name}", daemon=True)
        self.db_path = db_path
        self.on_change = on_change
        self.stopped = threading.Event()
        self.snapshot_of: int | None = None
        """`writes(db_path)` when the snapshot was last written (None: not yet)."""

    def round(self) -> bool:
        """One look at the inbox; returns whether anything was written. The heartbeat comes last: a watcher that
        cannot write the store (a read-only serving process) never tells the CLI it applies queued writes."""
        answers = apply_uploads(self.db_path) + apply_requests(self.db_path)
        if self.snapshot_of != writes(self.db_path):
            with writer(self.db_path, timeout=30.0) as con:
                db.write_snapshot(con, self.db_path)
                self.snapshot_of = writes(self.db_path)  # the snapshot's own connection wrote nothing
        for key, answer in answers:
            inbox.reply(self.db_path, key, answer)
        inbox.heartbeat(self.db_path)
        if answers and self.on_change:
            self.on_change()
        return bool(answers)

    def run(self) -> None:
        failing = False  # a failure is logged once, not every round until it clears
        while not self.stopped.is_set() and self.db_path.exists():
            try:
                self.round()
                failing = False
            except WriterBusy:
                pass  # another writer in this process: next round
            except Exception:
                if not failing:
                    incidents.record(f"watching the inbox of {self.db_path.name}")
                failing = True
            self.stopped.wait(INTERVAL_S)


_WATCHERS: dict[str, Watcher] = {}
_GUARD = threading.Lock()


@atexit.register
def stop_all(timeout: float = 10.0) -> None:
    """Stop every watcher of this process and wait for a round in progress to end (before the interpreter exits,
    so no thread is inside DuckDB while it shuts down)."""
    with _GUARD:
        watchers = list(_WATCHERS.values())
    for w in watchers:
        w.stopped.set()
    for w in watchers:
        w.join(timeout)


def watch(db_path, on_change: Callable[[], None] | None = None) -> Watcher:
    """Start (once per store file and process) the thread that applies the inbox and refreshes the snapshot."""
    p = db.db_path(db_path).resolve()
    with _GUARD:
        w = _WATCHERS.get(str(p))
        if w is not None and w.is_alive():
            w.on_change = on_change or w.on_change
            return w
        w = _WATCHERS[str(p)] = Watcher(p, on_change)
        w.start()
        return w
