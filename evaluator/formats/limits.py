"""Guards for untrusted result files: size, line length, strict UTF-8, strict JSON (no NaN/Infinity), depth, types.

Every parser reads bytes through `json_lines` / `json_document`, so a hostile file is turned into
`FormatError(file, line, field, problem)` values instead of exceptions, memory blow-ups or crashes.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Any, Iterator

from evaluator.formats.base import FormatError

MB = 1024 * 1024


class RowError(ValueError):
    """Raised inside a row parser; the line loop turns it into a FormatError."""

    def __init__(self, field: str | None, problem: str):
        super().__init__(problem)
        self.field = field
        self.problem = problem


@dataclass(frozen=True)
class Limits:
    """Upper bounds applied to every uploaded file."""

    max_bytes: int = int(float(os.environ.get("TANAW_UPLOAD_MAX_MB", 200)) * MB)
    """Largest file (or archive member) accepted, in bytes; default 200 MB ($TANAW_UPLOAD_MAX_MB)."""
    max_line_bytes: int = 4 * MB
    """Longest JSONL line accepted, in bytes."""
    max_depth: int = 32
    """Deepest JSON nesting accepted."""
    max_unpacked_bytes: int = 1024 * MB
    """Total uncompressed size of an archive's members."""
    max_ratio: float = 200.0
    """Largest compression ratio of an archive member (zip-bomb guard)."""
    max_members: int = 2000
    """Most files in one archive or folder."""
    max_errors: int = 200
    """Stop listing errors after this many (the file is rejected anyway)."""


DEFAULT_LIMITS = Limits()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON (NaN and Infinity are rejected)")


def _finite_float(s: str) -> float:
    f = float(s)
    if not math.isfinite(f):
        raise ValueError(f"number {s[:20]} overflows (non-finite numbers are rejected)")
    return f


def _depth(obj: Any, limit: int) -> int:
    """Nesting depth of a parsed JSON value, stopping early once past `limit` (iterative: no recursion)."""
    if not isinstance(obj, (dict, list)):
        return 0
    stack = [(obj, 1)]
    deepest = 0
    while stack:
        cur, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > limit:
            return deepest
        stack.extend((v, d + 1) for v in (cur.values() if isinstance(cur, dict) else cur)
                     if isinstance(v, (dict, list)))
    return deepest


def loads(text: str | bytes, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Parse one JSON value strictly: NaN/Infinity, huge numbers and over-deep nesting raise ValueError."""
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except RecursionError:
        raise ValueError(f"JSON nested deeper than {limits.max_depth} levels") from None
    brackets = text.count("[") + text.count("{") if isinstance(text, str) else text.count(b"[") + text.count(b"{")
    if brackets > limits.max_depth and _depth(value, limits.max_depth) > limits.max_depth:
        raise ValueError(f"JSON nested deeper than {limits.max_depth} levels")
    return value


def decode(data: bytes, file: str) -> tuple[str | None, FormatError | None]:
    """Strict UTF-8 decode (a leading BOM is dropped); on failure the error names the line and byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        return None, FormatError(file, line, None, f"invalid UTF-8 at byte {e.start} ({e.reason})")
    return text.removeprefix("\ufeff"), None


def check_size(size: int, file: str, limits: Limits = DEFAULT_LIMITS) -> FormatError | None:
    """An error when `size` bytes exceed the upload limit."""
    if size > limits.max_bytes:
        return FormatError(file, None, None, f"file is {size / MB:.1f} MB; the limit is {limits.max_bytes / MB:.0f} MB")
    if size == 0:
        return FormatError(file, None, None, "file is empty")
    return None


def json_lines(data: bytes, file: str, limits: Limits = DEFAULT_LIMITS) -> Iterator[tuple[int, Any, FormatError | None]]:
    """Yield (line number, parsed object or None, error or None) for each non-blank JSONL line."""
    err = check_size(len(data), file, limits)
    if err:
        yield 0, None, err
        return
    start = 0
    line_no = 0
    n = len(data)
    while start < n:
        end = data.find(b"\n", start)
        end = n if end < 0 else end
        line_no += 1
        raw = data[start:end]
        start = end + 1
        if not raw.strip():
            continue
        if len(raw) > limits.max_line_bytes:
            yield line_no, None, FormatError(
                file, line_no, None, f"line is {len(raw)} bytes; the limit is {limits.max_line_bytes}")
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            yield line_no, None, FormatError(file, line_no, None, f"invalid UTF-8 at column {e.start + 1}")
            continue
        if line_no == 1:
            text = text.removeprefix("\ufeff")
        try:
            obj = loads(text, limits)
        except ValueError as e:
            yield line_no, None, FormatError(file, line_no, None, f"not valid JSON: {_short(e)}")
            continue
        if not isinstance(obj, dict):
            yield line_no, None, FormatError(file, line_no, None, f"expected a JSON object, got {_kind(obj)}")
            continue
        yield line_no, obj, None


def json_document(data: bytes, file: str, limits: Limits = DEFAULT_LIMITS) -> tuple[Any, FormatError | None]:
    """Parse a whole-file JSON document (summary files) with the same guards."""
    err = check_size(len(data), file, limits)
    if err:
        return None, err
    text, err = decode(data, file)
    if err:
        return None, err
    try:
        obj = loads(text, limits)
    except json.JSONDecodeError as e:
        return None, FormatError(file, e.lineno, None, f"not valid JSON: {e.msg} (column {e.colno})")
    except ValueError as e:
        return None, FormatError(file, None, None, f"not valid JSON: {_short(e)}")
    if not isinstance(obj, dict):
        return None, FormatError(file, 1, None, f"expected a JSON object, got {_kind(obj)}")
    return obj, None


def _short(e: Exception) -> str:
    return str(e).split("\n")[0][:200]


def _kind(v: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(v), type(v).__name__)


# -- type checks used by every row parser ----------------------------------------------------------------------

def text(row: dict, key: str, *, required: bool = True, path: str | None = None) -> str | None:
    """`row[key]` as a string (None allowed when not required); RowError on any other type."""
    v = row.get(key)
    if v is None:
        if required:
            raise RowError(path or key, "missing" if key not in row else "must not be null")
        return None
    if not isinstance(v, str):
        raise RowError(path or key, f"expected a string, got {_kind(v)}")
    return v


def ident(row: dict, key: str, *, path: str | None = None) -> str:
    """An id field: a non-empty string, or an integer turned into one."""
    v = row.get(key)
    if isinstance(v, bool) or not isinstance(v, (str, int)):
        raise RowError(path or key, "missing" if v is None else f"expected a string or integer id, got {_kind(v)}")
    s = str(v).strip()
    if not s or len(s) > 256:
        raise RowError(path or key, "id must be 1-256 characters")
    return s


def number(v: Any, field: str, *, required: bool = False) -> float | None:
    """A finite number (booleans count as 0/1), None when absent and allowed."""
    if v is None:
        if required:
            raise RowError(field, "missing")
        return None
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)) and math.isfinite(v):
        return float(v)
    if isinstance(v, str):
        try:
            f = float(v)
        except ValueError:
            pass
        else:
            if math.isfinite(f):
                return f
    raise RowError(field, f"expected a finite number, got {_kind(v) if not isinstance(v, str) else repr(v[:40])}")


def integer(v: Any, field: str) -> int | None:
    """A non-negative integer or None."""
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 0 or v > 10**12:
        raise RowError(field, f"expected a non-negative integer, got {_kind(v) if not isinstance(v, int) else v}")
    return v


def obj(row: dict, key: str, *, required: bool = False) -> dict:
    """`row[key]` as a JSON object ({} when absent and optional)."""
    v = row.get(key)
    if v is None:
        if required:
            raise RowError(key, "missing")
        return {}
    if not isinstance(v, dict):
        raise RowError(key, f"expected an object, got {_kind(v)}")
    return v


def lst(row: dict, key: str, *, required: bool = False) -> list:
    """`row[key]` as a JSON list ([] when absent and optional)."""
    v = row.get(key)
    if v is None:
        if required:
            raise RowError(key, "missing")
        return []
    if not isinstance(v, list):
        raise RowError(key, f"expected a list, got {_kind(v)}")
    return v
