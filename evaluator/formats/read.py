"""Reading an upload end to end, without touching the store: unpack, detect, parse, map onto our items.

`read_upload` never raises on bad input: everything wrong is in `Upload.errors` (reject) or `Upload.warnings`
(imported anyway, minus the rows named). Scoring and writing are the pipeline's job.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from evaluator.formats import archive, detect, lm_eval, pacute_bench, seahelm
from evaluator.formats.limits import DEFAULT_LIMITS, FormatError, Limits, check_size
from evaluator.formats.mapping import ItemIndex, map_rows
from evaluator.formats.parsed import ParsedRows, Row, SummaryScore
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
    preview: list[dict] = field(default_factory=list)
    """The first rows as plain strings, for a text preview."""

    @property
    def ok(self) -> bool:
        """Nothing refused and something to import."""
        return not self.errors and bool(self.predictions or self.summary)

    @property
    def formats(self) -> list[str]:
        return sorted({f.format for f in self.files if f.format})


def _head(data: bytes, name: str, limits: Limits) -> bytes:
    """What detection looks at: a whole `.json` document (summaries are small), else the first JSONL line."""
    if name.lower().endswith(".json"):
        return data
    end = data.find(b"\n", 0, limits.max_line_bytes)
    return data if end < 0 and len(data) <= limits.max_line_bytes else data[: end if end >= 0 else limits.max_line_bytes]


def _native(data: bytes, name: str, run: int, limits: Limits) -> ParsedRows:
    from evaluator.formats import native

    out = ParsedRows(name, "native")
    lines = [n for n, raw in enumerate(data.split(b"\n"), start=1) if raw.strip()]
    for n, raw in enumerate(data.split(b"\n"), start=1):
        if len(raw) > limits.max_line_bytes:
            out.error(n, None, f"line is {len(raw)} bytes; the limit is {limits.max_line_bytes}")
            return out
    parsed = native.parse_native(data, name)
    out.errors.extend(parsed.errors)
    out.warnings.extend(parsed.warnings)
    if not parsed.errors:  # then every non-blank line is one prediction, in order
        out.rows.extend(Row(_with_run(p, run), line) for p, line in zip(parsed.predictions, lines))
    return out


def _with_run(p: Prediction, run: int) -> Prediction:
    import dataclasses

    return dataclasses.replace(p, run=run) if p.run == 1 else p


def parse_member(data: bytes, name: str, fmt: str, run: int, limits: Limits) -> ParsedRows:
    """Parse one file in a known format (no mapping)."""
    if fmt == "native":
        return _native(data, name, run, limits)
    if fmt in PARSERS:
        return PARSERS[fmt](data, name, run=run, limits=limits)
    if fmt in SUMMARY_PARSERS:
        return SUMMARY_PARSERS[fmt](data, name, limits=limits)
    out = ParsedRows(name, fmt)
    out.error(None, None, f"unknown format {fmt!r}; choose one of {', '.join(detect.FORMATS)}")
    return out


def read_upload(source: bytes | str | Path, name: str | None = None, *, fmt: str = "auto",
                limits: Limits = DEFAULT_LIMITS, index: ItemIndex | None = None,
                data_dir: str | Path | None = None) -> Upload:
    """Read bytes, a file path or a folder path as an upload; never raises on bad content."""
    index = index or ItemIndex(data_dir)
    if isinstance(source, (str, Path)) and Path(source).is_dir():
        root = Path(source)
        members, errors = archive.read_folder(root, limits)
        digest = hashlib.sha256()
        for m in members:
            digest.update(m.path.encode() + b"\0" + hashlib.sha256(m.data).digest())
        up = Upload(name or root.name, digest.hexdigest(), errors=list(errors))
    else:
        if isinstance(source, (str, Path)):
            path = Path(source)
            name = name or path.name
            if not path.is_file():
                up = Upload(name, "")
                up.errors.append(FormatError(str(path), None, None, "no such file or folder"))
                return up
            err = check_size(path.stat().st_size, name, limits)
            data = b"" if err else path.read_bytes()
        else:
            data = bytes(source)
            name = name or "upload"
            err = check_size(len(data), name, limits)
        up = Upload(name, hashlib.sha256(data).hexdigest())
        if err:
            up.errors.append(err)
            return up
        kind = detect.resolve(fmt, name, _head(data, name, limits))
        if kind == "archive":
            members, errors = archive.read_zip(data, name, limits)
            up.errors.extend(errors)
        else:
            members = [archive.Member(name, name, data, archive.run_number(name))]
    if not members and not up.errors:
        up.errors.append(FormatError(up.name, None, None, "no result files (.jsonl or .json) found"))
    for m in members:
        kind = detect.resolve(fmt, m.name, _head(m.data, m.name, limits))
        if kind is None:
            up.errors.append(FormatError(m.name, None, None, "format not recognised; name it with --format "
                                                             f"({', '.join(detect.FORMATS)})"))
            up.files.append(FileReport(m.name, None, m.run, 0, 0))
            continue
        if kind == "archive":
            up.errors.append(FormatError(m.name, None, None, "refused: nested archives are not accepted"))
            continue
        parsed = parse_member(m.data, m.name, kind, m.run, limits)
        preds = map_rows(parsed, index) if parsed.rows and not parsed.errors else []
        up.errors.extend(parsed.errors)
        up.warnings.extend(parsed.warnings)
        up.predictions.extend(preds)
        up.summary.extend(parsed.summary)
        up.model_hint = up.model_hint or parsed.model_hint
        up.files.append(FileReport(m.name, kind, m.run, len(parsed.rows) or len(parsed.summary),
                                   len(preds) or len(parsed.summary)))
        for r in parsed.rows[: max(0, 5 - len(up.preview))]:
            p = r.prediction
            up.preview.append({"file": m.name, "line": str(r.line), "task": r.file_task or p.task, "lang": p.lang,
                               "id": p.item_id, "output": (p.output or "")[:300]})
    if not up.errors and not up.predictions and not up.summary:
        up.errors.append(FormatError(up.name, None, None, "nothing to import: no row matched one of our items "
                                                          "(see the warnings)"))
    return up
