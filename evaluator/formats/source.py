"""The bytes of one uploaded file, read in chunks (from memory, a path or a zip member), and JSON lines split from them.

Memory stays bounded by the chunk size plus the longest accepted line, whatever the file's size: nothing holds a
whole member or a list of its lines. Lines end at `\\n`, `\\r\\n` or a lone `\\r` (old Mac files), never at U+2028,
U+0085 or other Unicode line separators (those may sit inside JSON strings); a leading UTF-8 BOM is dropped.
"""
from __future__ import annotations

import hashlib
import io
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator

CHUNK = 1024 * 1024
BOM = b"\xef\xbb\xbf"
_NONBLANK = re.compile(rb"\S")
_BLANK = frozenset(b" \t\n\r\x0b\x0c")
_BREAK = re.compile(rb"\r\n?|\n")
_READ_ERRORS = (zipfile.BadZipFile, zlib.error, RuntimeError, NotImplementedError, OSError, EOFError, ValueError)


class ViewReader(io.RawIOBase):
    """A seekable read-only file over a memoryview, without copying it (io.BytesIO copies anything but bytes)."""

    def __init__(self, view: memoryview):
        super().__init__()
        self._view, self._pos = view, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = min(len(b), max(len(self._view) - self._pos, 0))
        b[:n] = self._view[self._pos:self._pos + n]
        self._pos += n
        return n

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: len(self._view)}[whence]
        self._pos = max(base + offset, 0)
        return self._pos

    def tell(self) -> int:
        return self._pos


class SourceError(ValueError):
    """The bytes cannot be read (corrupt or encrypted member, size limit passed while reading)."""


@dataclass
class Budget:
    """Bytes still allowed across an archive's members (decremented while they are read)."""

    remaining: int


@dataclass
class Source:
    """One file's bytes, opened afresh for every pass; `size` is the declared size (a zip header may lie)."""

    opener: Callable[[], BinaryIO]
    size: int
    limit: int | None = None
    """Refuse (SourceError) once more than this many bytes have been read."""
    budget: Budget | None = field(default=None, repr=False)
    too_large: str = "uncompressed size exceeds the limit"
    _charged: int = field(default=0, repr=False)
    """Bytes of this source already counted against `budget` (a source is read more than once)."""

    @classmethod
    def of(cls, data: "bytes | bytearray | memoryview | Source") -> "Source":
        """`data` as a Source (the bytes are not copied)."""
        if isinstance(data, Source):
            return data
        view = memoryview(data).cast("B")
        return cls(lambda: ViewReader(view), view.nbytes)

    @classmethod
    def from_path(cls, path: str | Path) -> "Source":
        path = Path(path)
        return cls(lambda: open(path, "rb"), path.stat().st_size)

    @classmethod
    def from_zip(cls, zf: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int, budget: Budget,
                 too_large: str) -> "Source":
        return cls(lambda: zf.open(info), info.file_size, limit, budget, too_large)

    def chunks(self, size: int = CHUNK) -> Iterator[bytes]:
        """The bytes in chunks of at most `size`; SourceError when unreadable or over a limit."""
        total = 0
        try:
            with self.opener() as fh:
                while True:
                    chunk = fh.read(size)
                    if not chunk:
                        return
                    total += len(chunk)
                    if (self.limit is not None and total > self.limit) or \
                            (self.budget is not None and total > self.budget.remaining + self._charged):
                        raise SourceError(self.too_large)
                    yield chunk
        except _READ_ERRORS as e:
            if isinstance(e, SourceError):
                raise
            raise SourceError(f"cannot be read ({type(e).__name__}: {str(e)[:120]})") from None
        finally:
            if self.budget is not None and total > self._charged:
                self.budget.remaining -= total - self._charged
                self._charged = total

    def head(self, n: int) -> bytes:
        """Up to the first `n` bytes (a failed read gives what was read so far)."""
        out = bytearray()
        try:
            for chunk in self.chunks(min(n, CHUNK)):
                out += chunk[: n - len(out)]
                if len(out) >= n:
                    break
        except SourceError:
            pass
        return bytes(out)

    def read(self) -> bytes:
        """All the bytes (only for small files: summaries, queued folders); SourceError as `chunks`."""
        return b"".join(self.chunks())

    def count_lines(self) -> int:
        """Line breaks in the bytes (`\r\n` once), plus one for an unterminated last line; 0 when unreadable."""
        n, prev, last = 0, b"", b""
        try:
            for chunk in self.chunks():
                n += _breaks(chunk, 0, len(chunk)) - (prev == b"\r" and chunk[:1] == b"\n")
                prev, last = chunk[-1:], chunk[-1:]
        except SourceError:
            return 0
        return n + (last not in (b"", b"\n", b"\r"))

    def sha256(self) -> str:
        digest = hashlib.sha256()
        for chunk in self.chunks():
            digest.update(chunk)
        return digest.hexdigest()


def _breaks(buf: bytes, start: int, stop: int) -> int:
    """Line breaks in buf[start:stop], counting `\\r\\n` once."""
    return buf.count(b"\n", start, stop) + buf.count(b"\r", start, stop) - buf.count(b"\r\n", start, stop)


def _complete(buf: bytes, line: int, stop: int, max_line: int):
    """Yield the non-blank lines wholly inside buf[:stop] (stop sits on a break or at the end of the file);
    return the line number at `stop`."""
    pos = 0
    while True:
        if buf[pos:pos + 1] == b"\n" and pos + 1 < stop and buf[pos + 1] not in _BLANK:
            start, line = pos + 1, line + 1  # the usual case: one "\n", then the next line
        else:
            m = _NONBLANK.search(buf, pos, stop)
            if m is None:
                return line + _breaks(buf, pos, stop)
            start = m.start()
            line += _breaks(buf, pos, start)
        end = buf.find(b"\n", start, stop)
        end = stop if end < 0 else end
        cr = buf.find(b"\r", start, end)
        end = end if cr < 0 else cr
        yield line, (buf[start:end] if end - start <= max_line else None), end - start
        pos = end


def _without_bom(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The chunks with a leading UTF-8 byte order mark removed."""
    it = iter(chunks)
    head = b""
    for chunk in it:
        head += chunk
        if len(head) >= len(BOM):
            break
    yield head.removeprefix(BOM)
    yield from it


def split_lines(chunks: Iterable[bytes], max_line: int) -> Iterator[tuple[int, bytes | None, int]]:
    """(line number, line bytes or None when longer than `max_line`, length) for every non-blank line.

    Line numbers count `\\n`, `\\r\\n` and lone `\\r` breaks; an overlong line is skipped without being held in
    memory. SourceError from `chunks` propagates.
    """
    line, carry = 1, b""
    skipping: list[int] | None = None  # [line number, bytes so far] of an overlong line being skipped
    for chunk in _without_bom(chunks):
        if skipping is not None:
            brk = _BREAK.search(chunk)
            if brk is None:
                skipping[1] += len(chunk)
                continue
            yield skipping[0], None, skipping[1] + brk.start()
            line, carry, skipping = skipping[0], b"", None
            chunk = chunk[brk.start():]
        buf = carry + chunk if carry else chunk
        stop = max(buf.rfind(b"\n"), buf.rfind(b"\r"))
        if stop > 0 and buf[stop] == 0x0A and buf[stop - 1] == 0x0D:
            stop -= 1  # keep "\r\n" together in the carry
        if stop > 0:
            line = yield from _complete(buf, line, stop, max_line)
        carry = buf[max(stop, 0):]
        lead = _BREAK.match(carry)
        if lead and not (lead.end() == len(carry) and carry.endswith(b"\r")):  # a lone "\r" may precede "\n"
            line += 1
            carry = carry[lead.end():]
        if len(carry) > max_line + 1:
            m = _NONBLANK.search(carry)
            if m is not None:
                skipping, carry = [line + _breaks(carry, 0, m.start()), len(carry) - m.start()], b""
    if skipping is not None:
        yield skipping[0], None, skipping[1]
    elif carry:
        yield from _complete(carry, line, len(carry), max_line)

