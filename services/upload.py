"""Upload → store, shared by the `ingest` command and the upload page (not a command itself).

One writer at a time (`store.writer_lock.writer`), one transaction per upload: the pipeline's rows (models,
items, runs, predictions, scores, self-reported item scores, aggregates), superseding older runs of the same
model/cell/run number, summary-file scores, the upload record and its audit row all commit together or not at all.
Re-uploading the same bytes is a no-op; refused uploads leave only an audit row.
"""
from __future__ import annotations

import getpass
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from evaluator import incidents
from evaluator.bulk import paused_gc
from evaluator.formats.base import FormatError
from evaluator.formats.limits import DEFAULT_LIMITS, MB, shown_name  # noqa: F401  (MB: the Upload page's caption)
from evaluator.formats import read as _read
from evaluator.formats.read import Upload
from services.ownership import name_refusal
from store import audit, owners, writer
from store.db import transaction
from store.writer_lock import Joined, WriterBusy
from store.writer_lock import writer as store_writer

log = logging.getLogger("tanaw.inbox")
MODEL_FIELDS = ("model_id", "organisation", "params_b", "model_type", "weights", "licence", "url", "family")


@dataclass
class Outcome:
    """What happened to one upload."""

    status: str
    """imported | noop | rejected"""
    model_id: str
    source_hash: str
    n_predictions: int = 0
    n_summary: int = 0
    cells: list = field(default_factory=list)
    """Headline CellSummary per (task, lang, prompt_lang) the upload touched."""
    errors: list[FormatError] = field(default_factory=list)
    warnings: list[FormatError] = field(default_factory=list)
    replaced: int = 0
    """Older runs of the same model, cell and run number that this upload superseded (kept as history)."""

    @property
    def message(self) -> str:
        if self.status == "imported":
            return (f"imported {self.n_predictions} predictions and {self.n_summary} self-reported scores for "
                    f"{self.model_id}" + (f"; {self.replaced} older run(s) superseded" if self.replaced else ""))
        if self.status == "noop":
            return "this file was already imported; nothing changed"
        return f"refused: {len(self.errors)} problem(s); nothing was written" + \
            (f" (first: {self.errors[0]})" if self.errors else "")


def read_upload(*args, **kwargs) -> Upload:
    """Read and check an uploaded file, zip or folder (`evaluator.formats.read.read_upload`); nothing is written."""
    return _read.read_upload(*args, **kwargs)


def default_actor() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except Exception:  # no passwd entry in some containers
        return "cli"


def clean_model(model: Mapping[str, Any]) -> dict:
    """The model metadata to store: known fields only, blanks dropped, name trimmed."""
    out = {k: (v.strip() if isinstance(v, str) else v) for k, v in model.items() if k in MODEL_FIELDS}
    out = {k: v for k, v in out.items() if v not in (None, "")}
    if not out.get("model_id"):
        raise ValueError("a model name is required")
    if len(out["model_id"]) > 200:
        raise ValueError("model name is longer than 200 characters")
    for k, v in out.items():
        if isinstance(v, str) and shown_name(v) != v:
            raise ValueError(f"{k}: not valid UTF-8 text (a lone surrogate)")
    return out


def _reject(db_path, upload: Upload, model_id: str, actor: str, errors: list[FormatError], timeout: float) -> Outcome:
    try:
        with store_writer(db_path, timeout=timeout) as con:
            audit.record(con, actor, "reject", source_hash=upload.sha256, model_id=model_id, file_name=upload.name,
                         detail=f"{len(errors)} problem(s); first: {errors[0] if errors else '-'}")
    except WriterBusy:  # the refusal stands; only its audit row is lost while another process holds the store
        pass
    return Outcome("rejected", model_id, upload.sha256, errors=errors, warnings=upload.warnings)


def ingest_upload(db_path: str | Path | None, upload: Upload, *, model: Mapping[str, Any], actor: str | None = None,
                  owner: str = owners.OPERATOR, progress: Callable[[int, int], None] | None = None,
                  timeout: float = 120.0, data_dir=None, allow_partial: bool = False,
                  declaration: tuple[Sequence[str], str | None] | None = None) -> Outcome:
    """Write an upload (already read by `evaluator.formats.read.read_upload`) into the store at `db_path`, as
    `owner` (the identity the caller's token names; the command line is the operator): refused, with only an audit
    row, when `name_refusal` objects to the model name, or when most of its answer rows match none of our items
    and `allow_partial` is off (`evaluator.formats.coverage`: the benchmark data is not here). `declaration`:
    (declared benchmark names, training-data text) for the model card (`evaluator.leakage.declared`), checked
    before anything is written and stored with the upload."""
    from evaluator.formats import coverage
    from evaluator.leakage.declared import check_declaration
    from evaluator.registry import TASKS
    from services.ingest import IngestError, ingest_predictions
    from store.leakage import set_declaration

    actor = actor or default_actor()
    meta = clean_model(model)
    model_id = meta["model_id"]
    if declaration is not None:
        bad = check_declaration(list(declaration[0]), declaration[1], TASKS.values())
        if bad:
            return _reject(db_path, upload, model_id, actor, [FormatError(upload.name, None, *b.split(": ", 1))
                                                              for b in bad], timeout)
    problems = [e for e in upload.errors if e.problem != _read.NOTHING_MATCHED]  # a file's own errors come first
    partial = None if allow_partial or problems else coverage.refusal(upload, data_dir)
    if partial is not None or not upload.ok:
        return _reject(db_path, upload, model_id, actor, [partial] if partial else upload.errors or [
            FormatError(upload.name, None, None, "nothing to import")], timeout)
    try:
        with store_writer(db_path, timeout=timeout) as con, paused_gc():
            refusal = name_refusal(con, model_id, owner)
            if refusal is not None:
                error = FormatError(upload.name, None, "model", refusal)
                audit.record(con, actor, "reject", source_hash=upload.sha256, model_id=model_id,
                             file_name=upload.name, detail=f"1 problem(s); first: {error}")
                return Outcome("rejected", model_id, upload.sha256, errors=[error], warnings=upload.warnings)
            meta = {**meta, "owner": owner}
            if audit.is_ingested(con, upload.sha256):
                audit.record(con, actor, "noop", source_hash=upload.sha256, model_id=model_id, file_name=upload.name)
                return Outcome("noop", model_id, upload.sha256, warnings=upload.warnings)
            out = Outcome("imported", model_id, upload.sha256, warnings=list(upload.warnings))
            with transaction(con):
                if upload.predictions:
                    out.replaced = audit.active_runs(con, model_id, {(p.task, p.lang, p.prompt_lang, p.run)
                                                                     for p in upload.predictions})
                    source = {"file": upload.name, "hash": upload.sha256, "format": ",".join(upload.formats),
                              "harness": _harness(upload), "kind": "upload", "actor": actor}
                    summary = ingest_predictions(Joined(con), upload.predictions, model=meta, source=source,
                                                 data_dir=data_dir, unmatched="warn", progress=progress,
                                                 items=upload.items)
                    out.n_predictions, out.cells = summary.n_predictions, summary.cells
                    out.warnings.extend(summary.warnings)
                else:
                    writer.upsert_model(con, {"origin": "uploaded", **meta})
                if declaration is not None:
                    set_declaration(con, model_id, list(declaration[0]), declaration[1])
                out.n_summary = audit.add_summary_cells(con, upload.sha256, model_id, upload.summary)
                audit.add_upload(con, source_hash=upload.sha256, model_id=model_id, file_name=upload.name,
                                 formats=",".join(upload.formats), n_predictions=out.n_predictions,
                                 n_summary=out.n_summary, n_warnings=len(out.warnings), actor=actor)
                audit.record(con, actor, "upload", source_hash=upload.sha256, model_id=model_id,
                             file_name=upload.name, detail=out.message)
            return out
    except IngestError as e:
        return _reject(db_path, upload, model_id, actor, e.errors, timeout)


def _harness(upload: Upload) -> str:
    fams = sorted({f.removesuffix("-summary") for f in upload.formats})
    return ",".join(fams) or "native"


def admin_action(db_path: str | Path | None, source_hash: str, action: str, *, actor: str = "admin",
                 timeout: float = 120.0) -> str:
    """Hide, show again or delete an upload (recomputing the aggregates a deletion changes); audited."""
    from services.ingest import refresh_aggregates, refresh_ranks, refresh_rollups
    from services.page_figures import refresh_model_figures

    with store_writer(db_path, timeout=timeout) as con:
        if action in ("hide", "unhide"):
            model = audit.set_hidden(con, source_hash, action == "hide", actor)
            with transaction(con):  # the field the model leaves or joins: rank ranges, medians (V12)
                refresh_ranks(con)
                refresh_model_figures(con, [model])
            return f"{model}: {'hidden' if action == 'hide' else 'visible again'}"
        if action == "delete":
            with transaction(con):
                model, cells = audit.delete_upload(Joined(con), source_hash, actor)
                refresh_aggregates(con, model, cells)
                refresh_rollups(con, [model])  # every per-model figure, also of the cells the deletion emptied
            return f"{model}: upload deleted ({len(cells)} cells recomputed from the remaining runs)"
    raise ValueError(f"unknown admin action {action!r}")


def drain_inbox(db_path: str | Path | None, *, timeout: float = 30.0, keys: bool = False) -> list:
    """Import the uploads the CLI queued while this process held the store (`ingest --inbox`), oldest first;
    returns their Outcomes (with `keys`: (inbox key, Outcome) pairs, for the answers the CLI waits for).

    An entry that is refused, or that fails for any other reason, is moved to the inbox's `rejected/` folder with
    its reason (logged on logger `tanaw.inbox`; an unexpected failure under an incident id), so the next start
    does not try it again and the app serves its pages either way."""
    from store import inbox

    outcomes = []
    for body, meta in inbox.pending(db_path):
        model = meta.get("model") if isinstance(meta.get("model"), dict) else {"model_id": "unnamed"}
        try:
            upload = read_upload(body, str(meta.get("name") or body.name), fmt=str(meta.get("format") or "auto"))
            out = ingest_upload(db_path, upload, model=model, actor=f"{meta.get('actor') or 'cli'} (inbox)",
                                timeout=timeout, allow_partial=meta.get("allow_partial") is True)
        except WriterBusy:
            raise
        except Exception:  # an entry that cannot be imported must not stop the app's start, now or next time
            error_id = incidents.record(f"importing the queued file {body.name}")
            inbox.set_aside(body, f"could not be imported (internal error {error_id})")
            log.warning("inbox: %s set aside in rejected/ (internal error %s)", body.name, error_id)
            out = Outcome("rejected", str(model.get("model_id") or "unnamed"), body.stem, errors=[FormatError(
                str(meta.get("name") or body.name), None, None,
                f"could not be imported (internal error {error_id}, logged by the app)")])
            outcomes.append((body.stem, out))
            continue
        if out.status == "rejected":
            reason = "; ".join(str(e) for e in out.errors[:5]) or out.message
            inbox.set_aside(body, reason)
            log.warning("inbox: %s refused and set aside in rejected/: %s", body.name, reason)
        else:
            inbox.finish(body)
        outcomes.append((body.stem, out))
    return outcomes if keys else [out for _, out in outcomes]


def queued_count(db_path: str | Path | None) -> int:
    """How many uploads wait in the store's inbox (imported at app start or on the Upload page's button)."""
    from store import inbox

    return len(inbox.pending(db_path))


def queue_upload(db_path: str | Path | None, path: str | Path, *, fmt: str, model: Mapping[str, Any],
                 actor: str | None = None, allow_partial: bool = False) -> Path:
    """Queue a file (or a folder, zipped) in the store's inbox for the process holding the store to import."""
    from evaluator.formats.archive import read_folder, zip_members
    from store import inbox

    p = Path(path)
    data, name = (p.read_bytes(), p.name) if p.is_file() else (zip_members(read_folder(p)[0]), p.name + ".zip")
    return inbox.drop(db_path, data, {"name": name, "format": fmt, "model": clean_model(model),
                                      "actor": actor or default_actor(), "allow_partial": allow_partial})
