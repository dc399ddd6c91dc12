"""The app against a local Hub stand-in (HF_ENDPOINT): pulls the results repo on start, pushes a queued request
and an accepted upload as commits, and keeps serving its last good data with a warning when the stand-in goes
down."""
from __future__ import annotations

import json
import time

import pytest

from services.reported import ensure_reported
from store import db, hub
from tests.helpers import fixture_data, upload_files as U
from tests.helpers.browser import (chromium_available, chromium_page, click_after_typing, screenshot, serve_app,
                                   wait_for_run)
from tests.helpers.hub_standin import HubStandin
from tests.browser.test_spaces_start import wait_for_page

REPO = "tanaw/results"
pytestmark = pytest.mark.skipif(not chromium_available(), reason="Debian chromium / playwright not installed")


def _seed(standin: HubStandin, tmp_path) -> None:
    con = db.connect(":memory:")
    ensure_reported(con)  # a results repo pushed by a Tanaw app holds the papers' reported rows every store has
    con.execute("INSERT INTO submissions (request_id, model_id, backend, hub_model, status, n_results) VALUES "
                "('seed1', 'hub-seeded-model', 'hub', 'org/seeded', 'FINISHED', 120)")
    status = hub.push(con, "seed", hub.HubConfig(REPO, "write-token", standin.url, work_dir=tmp_path / "seed"))
    assert status.ok, status.message


def _wait_text(page, text: str, server_log, timeout_ms: int = 60000) -> None:
    """Wait for `text`; on a timeout fail with what the page and the server showed (and a screenshot)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.get_by_text(text).first.wait_for(timeout=timeout_ms)
    except PlaywrightTimeout:
        shot = screenshot(page, "hub_app_timeout")
        log = server_log.read_text(errors="replace")[-4000:] if server_log.exists() else ""
        pytest.fail(f"{text!r} not shown in {timeout_ms / 1000:.0f} s (screenshot {shot}).\n"
                    f"Page:\n{page.inner_text('body')[:3000]}\nServer log:\n{log}", pytrace=False)


def _metric(page, label: str) -> str:
    box = page.locator('[data-testid="stMetric"]', has_text=label).first
    return box.locator('[data-testid="stMetricValue"]').inner_text()


def test_app_pulls_pushes_and_survives_the_hub_going_down(tmp_path):
    with HubStandin() as standin:
        standin.create_repo(REPO)
        _seed(standin, tmp_path)
        local = db.connect(tmp_path / "space.duckdb")  # a store from an earlier life of the Space (no demo build)
        local.execute("INSERT INTO models (model_id, origin) VALUES ('stale-local-model', 'demo')")
        local.close()
        upload = tmp_path / "hub-upload-model_sentiment_id.jsonl"
        upload.write_bytes(U.jsonl(U.seahelm_sentiment_rows(6, wrong=(2,), data_dir=fixture_data.data_dir())))
        env = {"TANAW_RESULTS_REPO": REPO, "HF_TOKEN": "write-token", "HF_ENDPOINT": standin.url,
               "TANAW_HOME": str(tmp_path / "home"), "TANAW_HUB_PULL_EVERY_S": "2",
               "TANAW_DATA_DIR": str(fixture_data.data_dir()),
               "TANAW_ALLOW_PRIVATE_ENDPOINTS": "1"}  # self-hosted: gpu-7.example need not resolve (docs/security.md)
        server_log = tmp_path / "server.log"
        with serve_app(tmp_path / "space.duckdb", env=env, log_path=server_log) as url, chromium_page(height=2400) as page:
            page.goto(url)  # the first run pulls (a deep link as a fresh server's first request may draw once before)
            wait_for_page(page)
            page.goto(f"{url}/queue")
            wait_for_page(page)
            screenshot(page, "hub_app_start")
            assert page.locator("h1").first.inner_text() == "Evaluation queue", page.inner_text("body")[:3000]
            assert _metric(page, "Finished") == "0" and _metric(page, "Pending") == "0"  # the queue is private

            wait_for_run(page)  # the page's run has ended (connected, nothing stale) before the form is used
            page.get_by_text("Request an evaluation").click()
            page.get_by_role("textbox", name="Model name (as shown on the leaderboard)").fill("my-sea-model")
            page.get_by_role("textbox", name="Endpoint base URL").fill("http://gpu-7.example:8000/v1")
            click_after_typing(page, page.get_by_role("button", name="Queue the request"))
            # the submit's run and the redraw after it each pull first once 2 s have passed (TANAW_HUB_PULL_EVERY_S),
            # and the pull after the app's own push merges and refreshes: 60 s, as for the upload below
            _wait_text(page, "Queued as request", server_log)
            assert _metric(page, "Pending") == "1"  # counts redrawn after the request
            time.sleep(3)  # a pull is due: a request changes no public table, so nothing is pushed
            assert [c[1] for c in standin.commit_log] == ["seed"], page.inner_text("body")[-1500:]
            manifest = json.loads(standin.files(REPO)["manifest.json"])
            assert "submissions" not in manifest["tables"]  # submitter and endpoint stay in the Space's store
            screenshot(page, "hub_app_queued")

            page.goto(f"{url}/upload")  # an accepted upload is pushed as a commit too
            page.locator('input[type="file"]').set_input_files(str(upload))
            _wait_text(page, "First rows", server_log)
            page.get_by_label("Model name").fill("hub-upload-model")
            click_after_typing(page, page.get_by_role("button", name="Score and import"))
            _wait_text(page, "imported 6 predictions", server_log)
            deadline = time.monotonic() + 30
            while len(standin.commit_log) < 2 and time.monotonic() < deadline:
                time.sleep(0.2)
            assert len(standin.commit_log) == 2
            _, _, touched = standin.commit_log[-1]
            assert any(p.startswith("predictions/model_id=hub-upload-model/task=sentiment/") for p in touched)
            manifest = json.loads(standin.files(REPO)["manifest.json"])
            assert manifest["tables"]["predictions"]["rows"] == 6

            standin.down = True
            time.sleep(2.5)  # the next page view is due to pull
            page.goto(f"{url}/queue")
            wait_for_page(page)
            page.get_by_text("serving the last good data").first.wait_for(timeout=30000)
            assert _metric(page, "Pending") == "1" and _metric(page, "Finished") == "0"
            assert page.locator('[data-testid="stException"]').count() == 0
            screenshot(page, "hub_app_down")
    con = db.connect(tmp_path / "space.duckdb")
    log = con.execute("SELECT action, ok FROM hub_sync ORDER BY rowid").fetchall()
    assert log[0] == ("pull", True) and ("push", True) in log and log[-1] == ("pull", False)
    models = con.execute("SELECT model_id FROM models").fetchall()
    assert models == [("hub-upload-model",)]  # the pull replaced the stale local store; the upload came after
