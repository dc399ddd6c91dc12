"""The demo store for the leaderboard page tests, filled as a first start fills it, and the leaderboard page run on
it (Streamlit AppTest)."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from services.demo import ensure_default_db
from store.db import connect

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module", name="demo_db")
def demo_store_db(tmp_path_factory) -> Path:
    """Fixture `demo_db` (offered to the app tests by tests/app/conftest.py): a store filled by `ensure_default_db`,
    what a first start does (the snapshot equals a fresh build: tests/store/test_demo_snapshot.py)."""
    path = tmp_path_factory.mktemp("demo") / "tanaw.duckdb"
    con = connect(path)
    assert ensure_default_db(con)
    con.close()
    return path


def leaderboard_at(demo_db: Path, monkeypatch, **params) -> AppTest:
    """The leaderboard page on `demo_db` with URL query parameters, run; it must show no exception."""
    monkeypatch.setenv("TANAW_DB", str(demo_db))
    at = AppTest.from_file(str(REPO / "pages" / "leaderboard.py"), default_timeout=120)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at
