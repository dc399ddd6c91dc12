"""No traceback reaches a visitor (docs/security.md, "Uploads and rendering"): a failure while reading or importing an
upload, or anywhere in a page, is logged with an id and the page shows the id only."""
from __future__ import annotations

import logging
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from evaluator.formats.read import Upload
from evaluator.spec import Prediction
from tests.helpers.fixtures_store import pages_on

ROOT = Path(__file__).resolve().parents[2]
SECRET = "password=hunter2 at /srv/tanaw/secret.py"


@pytest.fixture
def empty_store(tmp_path):
    with pages_on(tmp_path / "app.duckdb") as path:
        yield path


def _upload_page(data: bytes = b'{"task": "sentiment"}\n', name: str = "preds.jsonl") -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "upload.py"), default_timeout=60).run()
    at.file_uploader[0].upload(name, data, "application/json")
    return at.run()


def _shown(at: AppTest) -> str:
    parts = [e.value for kind in ("error", "warning", "info", "success", "markdown", "text", "code", "caption")
             for e in getattr(at, kind)]
    return "\n".join(str(p) for p in parts)


def _logged_id(caplog, text: str) -> str:
    error_id = text.split("logged as ", 1)[1].split(":", 1)[0]
    assert any(error_id in r.getMessage() and r.exc_info and SECRET in str(r.exc_info[1]) for r in caplog.records)
    return error_id


def test_a_crash_while_reading_shows_an_error_id_not_a_traceback(empty_store, monkeypatch, caplog):
    def boom(*a, **k):
        raise RuntimeError(SECRET)

    monkeypatch.setattr("services.upload.read_upload", boom)
    caplog.set_level(logging.ERROR, logger="tanaw.incidents")
    at = _upload_page()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("The file could not be checked; nothing was changed.")
    _logged_id(caplog, errors[0])
    assert SECRET not in _shown(at) and "Traceback" not in _shown(at) and "RuntimeError" not in _shown(at)


def test_a_crash_while_importing_shows_an_error_id(empty_store, monkeypatch, caplog):
    pred = Prediction(task="sentiment", lang="id", item_id="1", prompt_lang="en", output="Positif")
    monkeypatch.setattr("services.upload.read_upload",
                        lambda *a, **k: Upload("preds.jsonl", "ab" * 32, predictions=[pred]))

    def boom(*a, **k):
        raise OverflowError(SECRET)

    monkeypatch.setattr("services.upload.ingest_upload", boom)
    caplog.set_level(logging.ERROR, logger="tanaw.incidents")
    at = _upload_page()
    next(t for t in at.text_input if t.label == "Model name").input("m")
    next(b for b in at.button if b.label == "Score and import").click()
    at.run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("Import failed; nothing was changed. The error is logged as ")
    _logged_id(caplog, errors[0])
    assert SECRET not in _shown(at) and "OverflowError" not in _shown(at)


def test_any_page_error_is_an_id(caplog):
    def script():
        import streamlit as st

        from pages._ui import run_page

        class Page:
            title = "Broken"

            def run(self):
                st.write("before")
                raise KeyError("password=hunter2 at /srv/tanaw/secret.py")

        run_page(Page())
        st.write("the app keeps serving")

    caplog.set_level(logging.ERROR, logger="tanaw.incidents")
    at = AppTest.from_function(script).run()
    assert not at.exception
    assert at.error[0].value.startswith("This page hit an unexpected error; nothing was changed.")
    _logged_id(caplog, at.error[0].value)
    assert [m.value for m in at.markdown] == ["before", "the app keeps serving"]


@pytest.mark.needs_samples
def test_the_page_reads_a_cr_only_file_with_a_bom_in_place(empty_store, monkeypatch):
    from tests.helpers import upload_files as U

    monkeypatch.setenv("TANAW_DATA_DIR", str(U.DATA))
    data = b"\xef\xbb\xbf" + U.jsonl(U.seahelm_sentiment_rows(10)).replace(b"\n", b"\r")
    at = _upload_page(data, "m_sentiment_id.jsonl")
    assert not at.exception
    assert any(t.value.startswith("10 predictions matched to our items") for t in at.text)
    assert [e.value for e in at.error] == []
