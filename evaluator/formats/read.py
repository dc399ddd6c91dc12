"""Reading an upload end to end, without touching the store: unpack, detect, parse, map onto our items.

`read_upload` never raises on bad input: everything wrong is in `Upload.errors` (reject) or `Upload.warnings`
(imported anyway, minus the rows named). Scoring and writing are the pipeline's job.

Bounds for any upload (see docs/security.md, "Uploads and rendering"): files are read in 1 MB chunks, never whole;
reading stops after `Limits.max_errors` errors (saying how much was not checked), `Limits.max_rows` rows or
`Limits.max_cpu_seconds` of CPU. The same item answered in two files of one upload is a duplicate like one
answered twice in a file: identical answers keep the first, differing ones refuse the upload.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from evaluator import incidents
from evaluator.bulk import paused_gc
from evaluator.formats import archive, detect, lm_eval, pacute_bench, run_summaries, seahelm
from evaluator.formats.limits import (DEFAULT_LIMITS, MB, FormatError, Limits, check_size, cpu_error, over_budget,
                                      shown_name)
from evaluator.formats.mapping import ItemIndex, map_rows
from evaluator.formats.parsed import ParsedRows, Row, SummaryScore
from evaluator.formats.source import BOM, Source
from evaluator.spec import Prediction

PARSERS = {
    "pacute-bench": pacute_bench.parse_inference,
    "seahelm": seahelm.parse_inference,
    "lm-eval": lm_eval.parse_samples,
    "seahelm-batch": seahelm.parse_batch_file,
}
SUMMARY_PARSERS = {
    "pacute-bench-summary": pacute_bench.parse_summary,
    "seahelm-summary": seahelm.parse_summary,
    "lm-eval-summary": lm_eval.parse_results,
}


@dataclass(frozen=True)
class FileReport:
    """What one file (or archive member) contributed."""

    name: str
    format: str | None
    run: int
    rows: int
    """Rows read from the file."""
    imported: int
    """Rows mapped onto our items (predictions) or summary scores kept."""


@dataclass
class Upload:
    """A parsed, mapped upload ready for the pipeline, or the reasons it is refused."""

    name: str
    sha256: str
    """Hash of the uploaded bytes (or of the folder's files): re-uploading the same file is a no-op."""
    files: list[FileReport] = field(default_factory=list)
    predictions: list[Prediction] = field(default_factory=list)
    summary: list[SummaryScore] = field(default_factory=list)
    errors: list[FormatError] = field(default_factory=list)
    warnings: list[FormatError] = field(default_factory=list)
    model_hint: str | None = None
    model_meta: dict[str, str] = field(default_factory=dict)
    """Model metadata the files state (evaluator.formats.model_meta); the first file stating a field wins."""
    preview: list[dict] = field(default_factory=list)
    """The first rows as plain strings, for a text preview."""
    items: ItemIndex | None = field(default=None, repr=False, compare=False)
    """The item index the rows were mapped with: the ingest scores against the same items, loaded once."""

    @property
    def ok(self) -> bool:
        """Nothing refused and something to import."""
        return not self.errors and bool(self.predictions or self.summary)

    @property
    def formats(self) -> list[str]:
        return sorted({f.format for f in self.files if f.format})


NOTHING_MATCHED = "nothing to import: no row matched one of our items (see the warnings)"
"""The error of an upload none of whose rows matched (and that holds no summary scores)."""
_LINE_END = re.compile(rb"[\r\n]")


def _head(src: Source, name: str, limits: Limits) -> bytes:
    """What detection looks at: a whole `.json` document (summaries are small), else the first JSONL line."""
    if name.lower().endswith(".json"):
        return src.head(limits.max_document_bytes).removeprefix(BOM)
    head = src.head(limits.max_line_bytes).removeprefix(BOM)
    end = _LINE_END.search(head)
    return head[: end.start()] if end else head


def _native(data: Source, name: str, run: int, limits: Limits) -> ParsedRows:
    from evaluator.formats import native

    out = ParsedRows(name, "native")
    parsed = native.parse_native(data, name, limits)
    out.errors.extend(parsed.errors)
    out.warnings.extend(parsed.warnings)
    if not parsed.errors:
        out.rows.extend(Row(_with_run(p, run), p.line) for p in parsed.predictions)
    return out


def _with_run(p: Prediction, run: int) -> Prediction:
    return dataclasses.replace(p, run=run) if p.run == 1 else p


def parse_member(data: "bytes | Source", name: str, fmt: str, run: int, limits: Limits) -> ParsedRows:
    """Parse one file in a known format (no mapping)."""
    data = Source.of(data)
    if fmt == "native":
        return _native(data, name, run, limits)
    if fmt in PARSERS:
        return PARSERS[fmt](data, name, run=run, limits=limits)
    if fmt in SUMMARY_PARSERS:
        return SUMMARY_PARSERS[fmt](data, name, limits=limits)
    out = ParsedRows(name, fmt)
    out.error(None, None, f"unknown format {fmt!r}; choose one of {', '.join(detect.FORMATS)}")
    return out


def _open(source, name: str | None, fmt: str, limits: Limits) -> tuple[Upload, list[archive.Member]]:
    """The upload record (name, hash, whole-upload errors) and its members, none of them read yet."""
    if isinstance(source, (str, Path)) and Path(source).is_dir():
        root = Path(source)
        members, errors = archive.read_folder(root, limits)
        digest = hashlib.sha256()
        for m in members:
            digest.update(os.fsencode(m.path) + b"\0" + bytes.fromhex(m.data.sha256()))
        return Upload(name or root.name, digest.hexdigest(), errors=list(errors)), members
    if isinstance(source, (str, Path)):
        path = Path(source)
        name = name or path.name
        if not path.is_file():
            return Upload(name, "", errors=[FormatError(str(path), None, None, "no such file or folder")]), []
        src, zipped = Source.from_path(path), path
    else:
        name = name or "upload"
        view = memoryview(source).cast("B")
        src, zipped = Source.of(view), view
    err = check_size(src.size, name, limits)
    up = Upload(name, "" if err else src.sha256())
    if err:
        up.errors.append(err)
        return up, []
    if detect.resolve(fmt, name, _head(src, name, limits)) != "archive":
        return up, [archive.Member(name, name, src, archive.run_number(name))]
    members, errors = archive.read_zip(zipped, name, limits)
    up.errors.extend(errors)
    return up, members


def read_upload(source: bytes | memoryview | str | Path, name: str | None = None, *, fmt: str = "auto",
                limits: Limits = DEFAULT_LIMITS, index: ItemIndex | None = None,
                data_dir: str | Path | None = None) -> Upload:
    """Read bytes, a file path or a folder path as an upload; never raises on bad content."""
    with paused_gc():
        return _read_upload(source, name, fmt=fmt, limits=limits, index=index, data_dir=data_dir)


def _read_upload(source: bytes | memoryview | str | Path, name: str | None, *, fmt: str, limits: Limits,
                 index: ItemIndex | None, data_dir: str | Path | None) -> Upload:
    index = index or ItemIndex(data_dir)
    if limits.deadline is None:
        limits = dataclasses.replace(limits, deadline=time.process_time() + limits.max_cpu_seconds)
    up, members = _open(source, name, fmt, limits)
    up.items = index
    odd = [n for n in (up.name, *(m.name for m in members), *(e.file for e in up.errors)) if shown_name(n) != n]
    if odd:  # names the OS could not decode as UTF-8: no store or page can hold them
        up.name, members = shown_name(up.name), []
        up.errors = [dataclasses.replace(e, file=shown_name(e.file)) for e in up.errors]
        up.errors += [FormatError(shown_name(n), None, None, "file name is not valid UTF-8; rename it") for n in odd]
    if not members and not up.errors:
        up.errors.append(FormatError(up.name, None, None, "no result files (.jsonl or .json) found"))
    first_seen: dict[tuple, tuple[str, int, Prediction]] = {}
    other_versions: dict[str, str] = {}
    summaries: list[tuple[int, list[SummaryScore]]] = []
    rows = 0
    for i, m in enumerate(members):
        if len(up.errors) >= limits.max_errors or over_budget(limits):  # header refusals count too
            stop = f"stopped after {len(up.errors)} errors" if len(up.errors) >= limits.max_errors else \
                str(cpu_error(up.name, limits)).removeprefix(up.name + ": ")
            up.errors.append(FormatError(up.name, None, None, f"{stop}; {len(members) - i} more file(s) not checked"))
            break
        budget = dataclasses.replace(limits, max_errors=limits.max_errors - len(up.errors),
                                     max_rows=max(limits.max_rows - rows, 0))
        try:
            rows += _read_member(up, m, fmt, budget, index, first_seen if len(members) > 1 else None,
                                 other_versions, summaries)
        except Exception:  # a parser bug must not show a traceback nor let a half-read upload through
            error_id = incidents.record(f"reading {m.name!r}")
            up.errors.append(FormatError(m.name, None, None, f"could not be checked (internal error {error_id})"))
    up.summary, averaged = run_summaries.mean_over_runs(summaries, up.name)
    if averaged is not None:
        up.warnings.append(averaged)
    _drop_other_version_summary(up, other_versions)
    if not up.errors and not up.predictions and not up.summary:
        up.errors.append(FormatError(up.name, None, None, NOTHING_MATCHED))
    if len(up.errors) > limits.max_errors + 2:  # e.g. every member of a large archive refused by its header
        rest = len(up.errors) - limits.max_errors
        up.errors[limits.max_errors:] = [FormatError(up.name, None, None, f"… and {rest:,} more errors not shown")]
    return up


def _drop_other_version_summary(up: Upload, tasks: dict[str, str]) -> None:
    """A summary's scores of a task run on another suite version describe that version: dropped when the upload
    has rows of ours (a folder whose run mixed versions), the whole summary refused when it comes alone. `tasks`:
    task → what showed it ("rows": its row file, "summary": the summary's own item count, "local": our items are
    no pacute-bench version, so its scores cannot be checked)."""
    dropped = sorted({s.task for s in up.summary if s.task in tasks})
    if not dropped:
        return
    if not up.predictions and "summary" in tasks.values():
        up.summary = []
        up.errors.append(FormatError(up.name, None, None, "the summary is of another PACUTE suite version than "
                                                          "Tanaw's (see the warnings); not imported"))
        return
    up.summary = [s for s in up.summary if s.task not in tasks]
    why = "they are of another suite version" if "local" not in tasks.values() else \
        "they cannot be checked against our items (see the warnings)"
    up.warnings.append(FormatError(up.name, None, None, f"summary scores of {', '.join(dropped)} not imported: {why}"))


def _read_member(up: Upload, m: archive.Member, fmt: str, limits: Limits, index: ItemIndex,
                 first_seen: dict | None, other_versions: dict[str, str] | None = None,
                 summaries: list | None = None) -> int:
    """Detect, parse and map one file into `up`; returns the rows it read (a pacute-bench row file of another
    suite version adds its task to `other_versions`; a summary file's scores are also listed with the member's
    run in `summaries`)."""
    if m.name.lower().endswith(".json") and m.data.size > limits.max_document_bytes:
        up.errors.append(FormatError(m.name, None, None, f"JSON document is {m.data.size / MB:.1f} MB; the limit "
                                                         f"is {limits.max_document_bytes / MB:.0f} MB"))
        return 0
    kind = detect.resolve(fmt, m.name, _head(m.data, m.name, limits))
    if kind is None:
        up.errors.append(FormatError(m.name, None, None, "format not recognised; name it with --format "
                                                         f"({', '.join(detect.FORMATS)})"))
        up.files.append(FileReport(m.name, None, m.run, 0, 0))
        return 0
    if kind == "archive":
        up.errors.append(FormatError(m.name, None, None, "refused: nested archives are not accepted"))
        return 0
    parsed = parse_member(m.data, m.name, kind, m.run, limits)
    if kind == "pacute-bench-summary" and not parsed.errors and other_versions is not None:
        for task, why in pacute_bench.check_summary_version(parsed, index).items():
            other_versions.setdefault(task, why)
    preds = map_rows(parsed, index) if parsed.rows and not parsed.errors else []
    if parsed.other_version and other_versions is not None:
        other_versions[parsed.other_version] = "rows"
    up.errors.extend(parsed.errors)
    up.warnings.extend(parsed.warnings)
    kept = preds if first_seen is None else _across_files(up, m.name, preds, first_seen)  # None: the only file
    up.predictions.extend(kept)
    up.summary.extend(parsed.summary)
    if summaries is not None and parsed.summary:
        summaries.append((m.run, list(parsed.summary)))
    up.model_hint = up.model_hint or parsed.model_hint
    up.model_meta = {**parsed.model_meta, **up.model_meta}
    up.files.append(FileReport(m.name, kind, m.run, len(parsed.rows) or len(parsed.summary),
                               len(kept) or len(parsed.summary)))
    for r in parsed.rows[: max(0, 5 - len(up.preview))]:
        p = r.prediction
        up.preview.append({"file": m.name, "line": str(r.line), "task": r.file_task or p.task, "lang": p.lang,
                           "id": p.item_id, "output": (p.output or "")[:300]})
    return len(parsed.rows)


def _across_files(up: Upload, file: str, preds: list[Prediction], first_seen: dict) -> list[Prediction]:
    """`preds` minus answers another file of the upload already gave: identical ones are dropped with a warning,
    differing ones are errors (the upload is ambiguous), as duplicates within one file are."""
    kept = []
    for p in preds:
        key = (p.task, p.lang, p.prompt_lang, p.item_id, p.run, p.order)
        seen = first_seen.get(key)
        if seen is None:
            first_seen[key] = (file, p.line, p)
            kept.append(p)
            continue
        other_file, other_line, other = seen
        where = f"{other_file}:{other_line}" if other_line is not None else other_file
        if (other.output, other.option_logprobs) == (p.output, p.option_logprobs):
            up.warnings.append(FormatError(file, p.line, "id", f"duplicate of {where} (item {p.item_id!r}, run "
                                                               f"{p.run}); identical, the first is kept"))
        else:
            up.errors.append(FormatError(file, p.line, "id", f"conflicts with {where} (item {p.item_id!r}, run "
                                                             f"{p.run}): the outputs differ, so the upload is "
                                                             "ambiguous"))
    return kept
