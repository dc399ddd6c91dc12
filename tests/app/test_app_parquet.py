"""The app served from a Parquet export ($TANAW_PARQUET) shows the same leaderboard as from the DuckDB file."""
import pytest
from streamlit.testing.v1 import AppTest

from services.demo import build_default_db
from store.db import connect
from store.parquet import export_store
from tests.conftest import REPO


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pq")
    con = connect(tmp / "tanaw.duckdb")
    build_default_db(con)
    export_store(con, tmp / "export")
    con.close()
    return tmp / "tanaw.duckdb", tmp / "export"


def _board(monkeypatch, **env):
    for k, v in env.items():
        monkeypatch.setenv(k, str(v))
    at = AppTest.from_file(str(REPO / "pages" / "leaderboard.py"), default_timeout=120)
    at.query_params["score"] = "Raw"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at.dataframe[0].value, at.dataframe[-1].value


def test_parquet_export_serves_the_same_leaderboard(stores, monkeypatch, tmp_path):
    db_file, export = stores
    import pages._cached as cached  # the cached connection is per process: cleared between the two stores

    cached.connection.clear()
    cached.clear()
    from_file = _board(monkeypatch, TANAW_DB=db_file)
    cached.connection.clear()
    cached.clear()
    from_parquet = _board(monkeypatch, TANAW_DB=tmp_path / "unused.duckdb", TANAW_PARQUET=export)
    cached.connection.clear()
    cached.clear()
    assert from_file[0].equals(from_parquet[0]) and from_file[1].equals(from_parquet[1])
    assert not (tmp_path / "unused.duckdb").exists()
