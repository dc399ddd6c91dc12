"""Shared fixtures: the shared sample data (skip when absent) and a fresh store."""
from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data (read-only sample data); tests that need it skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


@pytest.fixture()
def mem_store():
    """A fresh in-memory store with the current schema."""
    from store.db import connect

    con = connect(":memory:")
    yield con
    con.close()
