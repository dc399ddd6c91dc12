"""A queued file the app cannot import never stops it: the start-up (app.py's `prepare_store`, services.startup)
sets a refused or failing inbox entry aside in `<db>.inbox/rejected/` with its reason and serves the pages."""
from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from store import inbox
from tests.helpers.fixtures_store import fixture_db, pages_on
from tests.helpers.fuzz_uploads import NATIVE, base_files

REPO = Path(__file__).resolve().parents[2]


def _with_lone_surrogates() -> bytes:
    rows = [json.loads(x) for x in base_files()[NATIVE].splitlines() if x.strip()]
    rows[1]["prediction"] = "\udfff\ud800"  # json.dumps writes it escaped: "\udfff\ud800"
    return "\n".join(json.dumps(r) for r in rows).encode() + b"\n"


@pytest.mark.needs_samples  # the queued files are built from the public samples (tests.helpers.fuzz_uploads)
def test_start_up_sets_aside_queued_files_it_cannot_import(tmp_path, caplog):
    path = tmp_path / "app.duckdb"
    path.write_bytes(fixture_db().read_bytes())
    data = _with_lone_surrogates()
    assert b"\\udfff\\ud800" in data
    refused = inbox.drop(path, data, {"model": {"model_id": "queued"}, "name": NATIVE, "format": "native"})
    failing = inbox.drop(path, base_files()[NATIVE], {"model": {"model_id": "\udfff"}, "name": "ok.jsonl"})
    st.cache_resource.clear()  # a fresh process: prepare_store runs
    with caplog.at_level(logging.WARNING, logger="tanaw.inbox"), pages_on(path):
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120).run()
        assert not at.exception, at.exception
        assert [t.value for t in at.title][:1] == ["Tanaw leaderboard"]  # the default page was served
        again = AppTest.from_file(str(REPO / "app.py"), default_timeout=120).run()  # and every later view
        assert not again.exception
    assert inbox.pending(path) == []
    box = inbox.inbox_dir(path) / "rejected"
    assert sorted(p.name for p in box.iterdir()) == sorted(
        [refused.name, refused.with_suffix(".json").name, f"{refused.stem}.reason.txt",
         failing.name, failing.with_suffix(".json").name, f"{failing.stem}.reason.txt"])
    reason = (box / f"{refused.stem}.reason.txt").read_text()
    assert f"{NATIVE}:2: prediction: lone UTF-16 surrogate \\udfff" in reason
    assert "could not be imported (internal error " in (box / f"{failing.stem}.reason.txt").read_text()
    logged = [r.getMessage() for r in caplog.records if r.name == "tanaw.inbox"]
    assert any(refused.name in m and "lone UTF-16 surrogate" in m for m in logged), logged
    assert any(failing.name in m and "internal error" in m for m in logged), logged
