"""Guards for untrusted result files: size, line length, strict UTF-8, strict JSON (no NaN/Infinity), depth, types.

Every parser reads bytes through `json_lines` / `json_document`, so a hostile file is turned into
`FormatError(file, line, field, problem)` values instead of exceptions, memory blow-ups or crashes.
"""
from __future__ import annotations

import json
import math
import os
import re
import time
from dataclasses import dataclass
from typing import Any, Iterator

import orjson

from evaluator.formats.base import FormatError
from evaluator.formats.source import Source, SourceError, split_lines

MB = 1024 * 1024
INT32_MAX = 2**31 - 1
"""Largest value of the store's INTEGER columns (run numbers, token counts)."""


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
    max_errors: int = 100
    """Stop reading an upload after this many errors (it is refused anyway), with a count of what was not checked."""
    max_document_bytes: int = 16 * MB
    """Largest whole-JSON document (summary files are a few kB)."""
    max_rows: int = 150_000
    """Most per-item rows in one upload (one run of every BHASA, LINDSEA and PACUTE item in both prompt languages
    and option orders is about 34,000): bounds the memory an accepted upload needs (~270 MB peak at the cap)."""
    max_cpu_seconds: float = float(os.environ.get("TANAW_UPLOAD_MAX_CPU_S", 120))
    """CPU time one upload may take to read and check ($TANAW_UPLOAD_MAX_CPU_S)."""
    deadline: float | None = None
    """`time.process_time()` at which reading stops (set per upload by `read_upload`)."""


DEFAULT_LIMITS = Limits()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON (NaN and Infinity are rejected)")


def _finite_float(s: str) -> float:
    f = float(s)
    if not math.isfinite(f):
        raise ValueError(f"number {s[:20]} overflows (non-finite numbers are rejected)")
    return f


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)
"""One strict decoder for every line (`json.loads` with these hooks would build a new one per call)."""


def as_float(v: Any) -> float | None:
    """`v` as a finite float, or None when it is not a number or cannot be represented (NaN, ±inf, 400 digits)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


def over_budget(limits: "Limits") -> bool:
    """True once the upload's CPU deadline has passed."""
    return limits.deadline is not None and time.process_time() > limits.deadline


def cpu_error(file: str, limits: "Limits") -> FormatError:
    return FormatError(file, None, None, f"refused: checking took more than {limits.max_cpu_seconds:g} s of CPU "
                                         "(split the upload into smaller files)")


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


_DIGITS = bytes(1 if 48 <= b <= 57 else 0 for b in range(256))
_LONG_NUMBER = b"\x01" * 19
"""19 digits in a row: a number orjson might not keep as an integer (it reads integers beyond 64 bits as floats)."""
_MISS = object()


def _orjson(text: str | bytes) -> Any:
    """The value orjson reads, or _MISS when it refuses the text or might read it differently from `json`
    (19+ digits in a row); its refusals (NaN, infinite numbers, lone surrogates, trailing data) are left to `json`
    so that every error message stays the same."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    if raw.translate(_DIGITS).find(_LONG_NUMBER) >= 0:
        return _MISS
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _MISS


def loads(text: str | bytes, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Parse one JSON value strictly: NaN/Infinity, huge numbers and over-deep nesting raise ValueError."""
    try:
        value = _orjson(text)
        if value is _MISS:
            if isinstance(text, (bytes, bytearray)):  # as `json.loads` reads bytes
                text = text.decode(json.detect_encoding(text), "surrogatepass")
            value = _DECODER.decode(text)
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


def json_lines(data: "bytes | Source", file: str, limits: Limits = DEFAULT_LIMITS
               ) -> Iterator[tuple[int, Any, FormatError | None]]:
    """Yield (line number, parsed object or None, error or None) for each non-blank JSONL line.

    `data` is read in chunks (see `source.split_lines` for line breaks and the BOM); past the CPU deadline one
    last error is yielded and reading stops.
    """
    src = Source.of(data)
    err = check_size(src.size, file, limits)
    if err:
        yield 0, None, err
        return
    try:
        for seen, (line_no, raw, length) in enumerate(split_lines(src.chunks(), limits.max_line_bytes)):
            if seen % 64 == 0 and over_budget(limits):  # the CPU clock costs microseconds: look now and then
                yield line_no, None, cpu_error(file, limits)
                return
            if raw is None:
                yield line_no, None, FormatError(
                    file, line_no, None, f"line is {length} bytes; the limit is {limits.max_line_bytes}")
                continue
            yield (line_no, *_json_object(raw, file, line_no, limits))
    except SourceError as e:
        yield 0, None, FormatError(file, None, None, f"refused: {e}")


_SURROGATE = re.compile("[\ud800-\udfff]")
"""A UTF-16 surrogate code point: `json` reads a lone `\\udfff` escape as one (a pair becomes one character), and
no UTF-8 text, no store and no page can hold it."""
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A `\\ud800`-`\\udfff` escape in JSON text: only then can `json` return a surrogate (orjson refuses them)."""
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")


def shown_name(name: str) -> str:
    """A file name as text: a name the OS could not decode as UTF-8 (lone surrogates from `surrogateescape`) gets
    its undecodable bytes as `\\udcXX` escapes, so it can be printed and stored."""
    return name if not _SURROGATE.search(name) else name.encode("utf-8", "backslashreplace").decode("utf-8")


def surrogate_field(value: Any) -> tuple[str, str] | None:
    """(field path, the code point as `\\uXXXX`) of the first string or key of a parsed JSON value holding a UTF-16
    surrogate, or None. Paths read like `prediction`, `doc.premise`, `resps[0][0]` (keys that are not plain
    names show as `?`)."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        cur, path = stack.pop()
        if isinstance(cur, str):
            found = _SURROGATE.search(cur)
            if found:
                return path or "(value)", f"\\u{ord(found.group()):04x}"
        elif isinstance(cur, dict):
            items = []
            for key, v in cur.items():
                name = key if _PLAIN_KEY.fullmatch(key) else "?"
                where = f"{path}.{name}" if path else name
                found = _SURROGATE.search(key)
                if found:
                    return f"{where} (a key)", f"\\u{ord(found.group()):04x}"
                items.append((v, where))
            stack.extend(reversed(items))
        elif isinstance(cur, list):
            stack.extend(reversed([(v, f"{path}[{i}]") for i, v in enumerate(cur)]))
    return None


def _surrogate_error(text: str, obj: Any, file: str, line_no: int | None) -> FormatError | None:
    """The error for a lone surrogate anywhere in `obj` (parsed from `text`), naming its line and field."""
    if not _SURROGATE_ESCAPE.search(text):
        return None
    found = surrogate_field(obj)
    if found is None:
        return None
    if line_no is None:  # a whole document: the line of the first surrogate escape
        at = _SURROGATE_ESCAPE.search(text)
        line_no = text.count("\n", 0, at.start()) + 1 if at else None
    return FormatError(file, line_no, found[0], f"lone UTF-16 surrogate {found[1]} is not a Unicode character "
                                                "(the text must be valid UTF-8)")


def _json_object(raw: bytes, file: str, line_no: int, limits: Limits) -> tuple[Any, FormatError | None]:
    """(the line's JSON object, None) or (None, the error naming its line): `_json_text_object`'s answer, the usual
    line read from its bytes by orjson at once (orjson refuses every byte string that is not UTF-8, so a line it
    reads decodes, to the text `_json_text_object` would give orjson encoded back; tests/unit/test_native_fast.py)."""
    obj = _orjson(raw)
    if type(obj) is dict and raw.count(b"[") + raw.count(b"{") <= limits.max_depth:
        return obj, None
    return _json_text_object(raw, file, line_no, limits)


def _json_text_object(raw: bytes, file: str, line_no: int, limits: Limits) -> tuple[Any, FormatError | None]:
    """The line decoded and read by `loads`, with the error messages (invalid UTF-8, JSON, not an object)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return None, FormatError(file, line_no, None, f"invalid UTF-8 at column {e.start + 1}")
    try:
        obj = loads(text, limits)
    except ValueError as e:
        return None, FormatError(file, line_no, None, f"not valid JSON: {_short(e)}")
    if not isinstance(obj, dict):
        return None, FormatError(file, line_no, None, f"expected a JSON object, got {_kind(obj)}")
    err = _surrogate_error(text, obj, file, line_no)
    return (None, err) if err else (obj, None)


def count_rows(data: "bytes | Source", limits: Limits = DEFAULT_LIMITS) -> int:
    """Non-blank lines of `data` (read in chunks; 0 when unreadable)."""
    try:
        return sum(1 for _ in split_lines(Source.of(data).chunks(), limits.max_line_bytes))
    except SourceError:
        return 0


def json_document(data: "bytes | Source", file: str, limits: Limits = DEFAULT_LIMITS) -> tuple[Any, FormatError | None]:
    """Parse a whole-file JSON document (summary files, at most `max_document_bytes`) with the same guards."""
    src = Source.of(data)
    err = check_size(src.size, file, limits)
    if err is None and src.size > limits.max_document_bytes:
        err = FormatError(file, None, None, f"JSON document is {src.size / MB:.1f} MB; the limit is "
                                            f"{limits.max_document_bytes / MB:.0f} MB")
    if err:
        return None, err
    try:
        body = Source(src.opener, src.size, limits.max_document_bytes, src.budget, "document over the size limit").read()
    except SourceError as e:
        return None, FormatError(file, None, None, f"refused: {e}")
    text, err = decode(body, file)
    if err:
        return None, err
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # JSON whitespace either way; line numbers right
    try:
        obj = loads(text, limits)
    except json.JSONDecodeError as e:
        return None, FormatError(file, e.lineno, None, f"not valid JSON: {e.msg} (column {e.colno})")
    except ValueError as e:
        return None, FormatError(file, None, None, f"not valid JSON: {_short(e)}")
    if not isinstance(obj, dict):
        return None, FormatError(file, 1, None, f"expected a JSON object, got {_kind(obj)}")
    err = _surrogate_error(text, obj, file, None)
    return (None, err) if err else (obj, None)


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
    f = as_float(v)
    if f is not None:
        return f
    if isinstance(v, (int, float)):
        raise RowError(field, "number is not finite or too large to represent")
    if isinstance(v, str):
        try:
            f = float(v)
        except ValueError:
            pass
        else:
            if math.isfinite(f):
                return f
    raise RowError(field, f"expected a finite number, got {_kind(v) if not isinstance(v, str) else repr(v[:40])}")


def integer(v: Any, field: str, *, low: int = 0, high: int = INT32_MAX) -> int | None:
    """An integer in [low, high] (the store's INTEGER range by default) or None."""
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise RowError(field, f"expected {'a non-negative' if low == 0 else 'an'} integer, got {_kind(v)}")
    if not low <= v <= high:
        shown = str(v) if -10**24 < v < 10**24 else "a huge number"
        raise RowError(field, f"{shown} is out of range ({low} to {high})")
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
