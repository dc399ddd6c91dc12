"""Downloading one pinned source file into the pull cache: plain HTTPS with resume, or huggingface_hub.

GitHub-hosted files come from `<base>/<owner>/<name>/<commit>/<path>` (base: raw.githubusercontent.com, or a
mirror / test stand-in). A partial download stays as `<file>.part` and the next attempt asks for the rest with an
HTTP Range request. Hub-hosted files go through `huggingface_hub.hf_hub_download` at the pinned revision.
Every finished file is checked against the lock (size and SHA-256) before anyone reads it.
"""
from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

import httpx

GITHUB_RAW = "https://raw.githubusercontent.com"
CHUNK = 1 << 16


class FetchError(Exception):
    """A download failed or a file does not match the lock; the message names the file."""


class OfflineError(FetchError):
    """The source host cannot be reached at all."""


@dataclass(frozen=True)
class Expected:
    """What the lock (or an earlier pull) says the file is; None fields are not checked."""

    size: int | None
    sha256: str | None


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def raw_url(base: str, repo: str, commit: str, path: str) -> str:
    """The raw-file URL of `path` in `repo` at `commit`."""
    return f"{base.rstrip('/')}/{repo}/{commit}/{quote(path)}"


def _progress(total: int | None, done: int, label: str, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, initial=done, unit="B", unit_scale=True, desc=label, disable=not enabled, leave=False)


def download(url: str, dest: Path, *, label: str, progress: bool = True, timeout: float = 60.0) -> Path:
    """Download `url` to `dest`, resuming `dest.part` when an earlier attempt stopped midway."""
    part = dest.with_name(dest.name + ".part")
    dest.parent.mkdir(parents=True, exist_ok=True)
    have = part.stat().st_size if part.exists() else 0
    headers = {"Range": f"bytes={have}-"} if have else {}
    try:
        with httpx.stream("GET", url, headers=headers, timeout=timeout, follow_redirects=True) as r:
            if r.status_code == 416:  # nothing left to send: the part is whole
                part.replace(dest)
                return dest
            if r.status_code not in (200, 206):
                raise FetchError(f"{label}: HTTP {r.status_code} from {urlsplit(url).netloc}")
            if r.status_code == 200:
                have = 0  # the server ignored the range: start over
            length = r.headers.get("content-length")
            total = have + int(length) if length and length.isdigit() else None
            with open(part, "ab" if have else "wb") as f, _progress(total, have, label, progress) as bar:
                for chunk in r.iter_bytes(CHUNK):
                    f.write(chunk)
                    bar.update(len(chunk))
    except (httpx.ConnectError, httpx.ConnectTimeout) as e:
        raise OfflineError(f"cannot reach {urlsplit(url).netloc} ({e.__class__.__name__}); are you offline?") from None
    except httpx.HTTPError as e:
        raise FetchError(f"{label}: download stopped ({e.__class__.__name__}: {e}); run the pull again to resume") \
            from None
    if total is not None and part.stat().st_size < total:
        raise FetchError(f"{label}: download stopped at {part.stat().st_size} of {total} bytes; "
                         "run the pull again to resume")
    part.replace(dest)
    return dest


def hub_download(repo: str, commit: str, path: str, dest: Path, *, label: str) -> Path:
    """Fetch a dataset file from the Hugging Face Hub at a pinned revision (HF_ENDPOINT is honoured)."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    try:
        got = hf_hub_download(repo, path, repo_type="dataset", revision=commit,
                              endpoint=os.environ.get("HF_ENDPOINT") or None,
                              cache_dir=dest.parent / ".hub-cache")
    except LocalEntryNotFoundError:
        raise OfflineError(f"cannot reach the Hugging Face Hub for {repo}; are you offline?") from None
    except HfHubHTTPError as e:
        raise FetchError(f"{label}: the Hub refused ({e.__class__.__name__}: {str(e).splitlines()[0]})") from None
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(got, dest)
    return dest


def verify(path: Path, expected: Expected, label: str) -> tuple[int, str]:
    """(size, sha256) of a downloaded file; FetchError (and the file removed) when it differs from `expected`."""
    size, digest = path.stat().st_size, sha256_file(path)
    problem = None
    if expected.size is not None and size != expected.size:
        problem = f"size {size} bytes, the lock says {expected.size}"
    elif expected.sha256 is not None and digest != expected.sha256:
        problem = f"SHA-256 {digest[:16]}…, the lock says {expected.sha256[:16]}…"
    if problem:
        path.unlink()
        raise FetchError(f"{label}: {problem}; the file was discarded and nothing was changed")
    return size, digest
