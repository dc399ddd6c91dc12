"""Import honesty: an upload whose answer rows mostly match none of the items it was read against is refused,
saying why and how to fix it (usually: the benchmark data is not here, only Tanaw's demo items), unless the caller
accepts a partial import."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from evaluator.datasets import HF_PREFIX, PULL_MANIFEST, REPO_ROOT, default_data_dir
from evaluator.formats.base import FormatError
from evaluator.formats.read import Upload

MIN_MATCHED_SHARE = 0.5
"""An upload whose per-item files have fewer than this share of their rows matched to our items is refused unless
a partial import is accepted."""
DEMO_ITEMS = REPO_ROOT / "data" / "demo"


@dataclass(frozen=True)
class Coverage:
    """Answer rows read from an upload's per-item files and how many matched one of our items."""

    rows: int
    matched: int

    @property
    def mostly_unmatched(self) -> bool:
        return self.rows > 0 and self.matched < MIN_MATCHED_SHARE * self.rows


def coverage(upload: Upload) -> Coverage:
    """The rows of the upload's per-item files (summary files hold scores, not answers) and the matched ones."""
    per_item = [f for f in upload.files if f.format and not f.format.endswith("-summary")]
    return Coverage(sum(f.rows for f in per_item), sum(f.imported for f in per_item))


def items_version(data_dir: str | Path | None) -> str:
    """Which items an upload was matched against, in words: the folder and what it holds."""
    if isinstance(data_dir, str) and data_dir.startswith(HF_PREFIX):
        return f"the items of {data_dir}"
    folder = Path(data_dir).expanduser() if data_dir else default_data_dir()
    if folder.resolve() == DEMO_ITEMS.resolve():
        return f"{folder} (Tanaw's demo items, 10-60 per cell written for Tanaw, not the benchmarks' test sets)"
    try:
        pulled = json.loads((folder / PULL_MANIFEST).read_text("utf-8")).get("pulled_at")
    except (OSError, ValueError, AttributeError):
        pulled = None
    return f"{folder} (benchmark data pulled {pulled})" if pulled else str(folder)


def refusal(upload: Upload, data_dir: str | Path | None = None) -> FormatError | None:
    """Why the upload is refused as mostly unmatched (None when most of its rows matched, or it has no answers)."""
    got = coverage(upload)
    if not got.mostly_unmatched:
        return None
    where = items_version(getattr(upload.items, "data_dir", None) or data_dir)
    return FormatError(upload.name, None, None, (
        f"no benchmark data here: {got.matched:,} of {got.rows:,} answer rows match one of the items in {where}; "
        "run `tanaw data pull` to get the benchmark items (or point --data-dir or $TANAW_DATA_DIR at them) and "
        f"import again, or accept a partial import (`ingest --allow-partial`) to keep only the {got.matched:,} "
        "matching row(s)"))
