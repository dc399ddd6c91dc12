"""Items from a Hugging Face dataset repo laid out like the data directory (e.g. `bhasa/sentiment/id.jsonl`).

Files are fetched with `huggingface_hub.hf_hub_download` at a pinned commit into the Hub cache, then read by the
same loader as local files, so Hub items are the same canonical items. Offline (`HF_HUB_OFFLINE=1`, or the Hub
cannot be reached) and the files are not cached: a `DatasetError` that says the Hub is unreachable.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import httpx2
from huggingface_hub import hf_hub_download
from huggingface_hub.errors import (
    EntryNotFoundError,
    HfHubHTTPError,
    LocalEntryNotFoundError,
    OfflineModeIsEnabled,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)

from evaluator.datasets.base import DatasetError

COMMIT = re.compile(r"[0-9a-f]{40}")
_TRUE = {"1", "true", "yes", "on"}


def offline() -> bool:
    """Whether `HF_HUB_OFFLINE` asks for no network (read at call time, unlike huggingface_hub's import-time flag)."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUE


def fetch(repo_id: str, files: tuple[str, ...], *, revision: str, cache_dir: Path | str | None = None,
          endpoint: str | None = None, token: str | bool | None = None) -> Path:
    """Download `files` of a dataset repo at `revision` (a 40-hex commit) and return the snapshot root.

    `endpoint` and `cache_dir` default to `$HF_ENDPOINT` and `$HF_HUB_CACHE` read at call time.
    """
    endpoint = endpoint or os.environ.get("HF_ENDPOINT") or None
    cache_dir = cache_dir or os.environ.get("HF_HUB_CACHE") or None
    if not COMMIT.fullmatch(revision or ""):
        raise DatasetError(f"hf:{repo_id}: revision must be a pinned 40-hex commit hash, got {revision!r}")
    where = f"hf:{repo_id}@{revision}"
    root: Path | None = None
    for rel in files:
        try:
            local = hf_hub_download(repo_id, rel, repo_type="dataset", revision=revision, cache_dir=cache_dir,
                                    endpoint=endpoint, token=token, local_files_only=offline())
        except (RepositoryNotFoundError, RevisionNotFoundError) as exc:
            raise DatasetError(f"{where}: repository or revision not found on the Hub ({type(exc).__name__})") from None
        except LocalEntryNotFoundError as exc:
            cause = exc.__cause__
            reason = "HF_HUB_OFFLINE is set" if offline() else (
                f"{type(cause).__name__}: {str(cause).split('. ')[0]}" if cause else "no connection")
            raise DatasetError(
                f"{where}:{rel}: Hugging Face Hub unreachable ({reason}) and the file is not in the local cache; "
                "use a local data directory (TANAW_DATA_DIR) or connect and retry") from None
        except EntryNotFoundError:
            raise DatasetError(f"{where}:{rel}: file not found in the dataset repo") from None
        except (OfflineModeIsEnabled, httpx2.TransportError) as exc:
            raise DatasetError(f"{where}:{rel}: Hugging Face Hub unreachable ({exc})") from None
        except HfHubHTTPError as exc:
            raise DatasetError(f"{where}:{rel}: Hub request failed ({exc})") from None
        snapshot = Path(local).parents[len(Path(rel).parts) - 1]
        root = root or snapshot
    if root is None:
        raise DatasetError(f"{where}: no files to fetch")
    return root
