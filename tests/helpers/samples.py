"""Where the public samples live for the fidelity tests: `$TANAW_SAMPLES_DIR`, else `../shared/data`.

Tests that read them carry the `needs_samples` marker (or use the `shared_data` fixture); `tests/conftest.py` skips
them with one line naming what is missing when the folder is absent, as on a fresh clone.
"""
from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLES = Path(os.environ.get("TANAW_SAMPLES_DIR") or REPO.parent / "shared" / "data")
"""The public samples (data README beside them); absent on a fresh clone."""


def present() -> bool:
    """True when the samples folder is there (its README marks a complete copy)."""
    return (SAMPLES / "README.md").is_file()


def missing_reason() -> str:
    """The one-line skip reason for a test that needs the samples."""
    return (f"needs the public samples at {SAMPLES} (../shared/data beside the clone, or TANAW_SAMPLES_DIR); "
            "not present")
