"""Sessions share what depends only on the store, per store version: two AppTest sessions of the leaderboard on one
store, a write between views (an upload and a hide through the writer, a run's plain-connection write), and every
session sees the write on its next view, with the styled table built once per version, not once per session, and
every stored number of the other models unchanged."""
from __future__ import annotations

import shutil

import pytest
from streamlit.testing.v1 import AppTest

from evaluator.formats.mapping import ItemIndex
from evaluator.formats.read import read_upload
from services.ingest import ingest_predictions
from services.upload import admin_action, ingest_upload
from store.db import connect
from store.queries import QUERIES
from store.serve import version
from tests.conftest import REPO
from tests.helpers import upload_files as U

pytestmark = pytest.mark.needs_samples
SCORES = ["sentiment · id"]  # the cell the new uploads add, beside the demo models' own cells


def _session(db, monkeypatch) -> AppTest:
    monkeypatch.setenv("TANAW_DB", str(db))
    at = AppTest.from_file(str(REPO / "pages" / "leaderboard.py"), default_timeout=120)
    at.query_params["prompt"] = "Native"  # SEA-HELM's inference rows are native-prompt runs
    return at


def _view(at: AppTest):
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at.dataframe[0].value.set_index("model")


def _numbers(board, models):
    """The stored figures of `models` on the board (ranks left out: they depend on the field of ranked models)."""
    cols = [c for c in board.columns if c not in ("rank", "rank range", "tied with #1")]
    return board.loc[sorted(models), cols]


def _upload(k: int):
    return read_upload(U.jsonl(U.seahelm_sentiment_rows(12, wrong=(k,))),
                       f"inferences/id/sentiment/crowd{k}_sentiment_id.jsonl", index=ItemIndex(U.DATA))


def test_a_write_is_on_the_next_view_of_every_session(demo_db, tmp_path, monkeypatch):
    db = tmp_path / "tanaw.duckdb"
    shutil.copy(demo_db, db)
    drawn = []
    from pages import _ui
    real_dashed = _ui.dashed
    monkeypatch.setattr(_ui, "dashed", lambda df, decimals: drawn.append("rank" in decimals)
                        or real_dashed(df, decimals))

    a, b = _session(db, monkeypatch), _session(db, monkeypatch)
    first_a, first_b = _view(a), _view(b)
    demo_models = set(first_a.index)
    assert set(first_b.index) == demo_models
    built = len(drawn)
    assert drawn.count(True) == 1, "the styled board is built once for both sessions"
    again = _view(a)  # nothing written: the same version, nothing rebuilt
    assert len(drawn) == built and again.equals(first_a)

    before = version(db)
    out = ingest_upload(db, _upload(1), model={"model_id": "crowd-upload"}, data_dir=U.DATA)
    assert out.status == "imported"
    assert version(db) != before
    for at in (a, b):
        board = _view(at)
        assert set(board.index) == demo_models | {"crowd-upload"}
        assert _numbers(board, demo_models).equals(_numbers(first_a, demo_models))
    assert drawn.count(True) == 2, "rebuilt once for the new version, shared by the other visitor"
    fresh = QUERIES["leaderboard_table"](connect(db).cursor(), prompt_lang="native", score="normalized",  # no cache
                                         family="bhasa", models=None).set_index("model")
    assert board.loc["crowd-upload", SCORES[0]] == pytest.approx(fresh.loc["crowd-upload", SCORES[0]])

    admin_action(db, out.source_hash, "hide", actor="test")
    for at in (a, b):
        assert set(_view(at).index) == demo_models

    up = _upload(2)  # a run writes on its own plain connection (services.run), without the writer lock
    con = connect(db)
    ingest_predictions(con, up.predictions, model={"model_id": "crowd-run"}, data_dir=U.DATA,
                       source={"file": up.name, "hash": up.sha256, "format": "seahelm", "harness": "tanaw",
                               "kind": "run", "actor": "test"})
    con.close()
    for at in (a, b):
        board = _view(at)
        assert set(board.index) == demo_models | {"crowd-run"}
        assert _numbers(board, demo_models).equals(_numbers(first_a, demo_models))


def test_a_results_repo_costs_one_fingerprint_per_store_version(demo_db, tmp_path, monkeypatch):
    """With a results repo configured, the store's fingerprint (row counts and checksums of every exported table) is
    taken when the store changed, not on every view: three views of one version take it once, a write once more."""
    import streamlit as st

    from services import hub_sync
    from store import hub

    db = tmp_path / "tanaw.duckdb"
    shutil.copy(demo_db, db)
    monkeypatch.setenv("TANAW_DB", str(db))
    monkeypatch.setenv("TANAW_RESULTS_REPO", "tanaw/results-standin")
    taken, pushed = [], []
    real_fingerprint = hub.fingerprint
    monkeypatch.setattr(hub, "fingerprint", lambda con, *a, **k: taken.append(1) or real_fingerprint(con, *a, **k))

    def pull(state: dict) -> hub.SyncStatus:  # the Hub is not reached: the store as pulled is the store as it is
        with connect(db) as con:
            state["fingerprint"] = real_fingerprint(con)
        return hub.SyncStatus("pull", True, "pulled")
    monkeypatch.setattr(hub_sync, "pull", pull)
    monkeypatch.setattr(hub_sync, "push_changes", lambda state, **k: pushed.append(1) or state.update(
        fingerprint=real_fingerprint(connect(db))) or hub.SyncStatus("push", True, "pushed"))
    st.cache_resource.clear()  # a fresh app process: its sync state and first pull
    for _ in range(3):
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120).run()
        assert not at.exception, [e.value for e in at.exception]
    assert len(taken) == 1 and not pushed
    ingest_upload(db, _upload(3), model={"model_id": "crowd-hub"}, data_dir=U.DATA)
    for _ in range(2):
        assert not AppTest.from_file(str(REPO / "app.py"), default_timeout=120).run().exception
    assert pushed == [1]  # the write was pushed once, on the first view after it
    assert len(taken) == 3  # that view's check, and the next view's of the same version (nothing left to push)
