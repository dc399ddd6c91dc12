"""Headless Chromium uploads a file whose outputs carry <script> and <img onerror> payloads: nothing executes,
the text shows literally, the upload is scored; a hostile file is refused and the app keeps serving."""
from __future__ import annotations

import urllib.request

import pytest

from store.db import connect
from tests.helpers import upload_files as U
from tests.helpers.browser import chromium_available, chromium_page, click_after_typing, screenshot, serve_app

pytestmark = [pytest.mark.skipif(not chromium_available(), reason="Debian chromium / playwright not installed"),
              pytest.mark.needs_samples]

SCRIPT = "<script>window.__pwned = 1</script>"
IMG = '<img src=x onerror="window.__pwned = 2">'


def _payload_file(tmp_path):
    rows = U.seahelm_sentiment_rows(6, wrong=(2,))
    for i, r in enumerate(rows):
        r["responses"] = [r["responses"][0] + (f" {SCRIPT}" if i % 2 == 0 else f" {IMG}")]
    path = tmp_path / "xss-model_sentiment_id.jsonl"
    path.write_bytes(U.jsonl(rows))
    return path


def test_upload_page_shows_payloads_as_text_and_scores(tmp_path):
    db = tmp_path / "app.duckdb"
    good = _payload_file(tmp_path)
    bad = tmp_path / "broken_sentiment_id.jsonl"
    bad.write_bytes(U.jsonl(U.seahelm_sentiment_rows(2)) + b'{"id": "x", "responses": [NaN]}\n')
    dialogs: list[str] = []
    env = {"TANAW_DATA_DIR": str(U.DATA), "TANAW_UPLOAD_TOKEN": "s3cret-token", "TANAW_ADMIN_TOKEN": "adm-token"}
    with serve_app(db, env=env) as url, chromium_page(height=2600) as page:
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(f"{url}/upload")
        page.get_by_text("Uploads need a valid token.").wait_for(timeout=60000)
        assert page.locator('input[type="file"]').count() == 0
        page.get_by_label("Upload token", exact=True).and_(page.locator("input")).fill("s3cret-token")
        page.get_by_label("Upload token", exact=True).and_(page.locator("input")).press("Enter")
        page.locator('input[type="file"]').wait_for(state="attached", timeout=30000)
        # a hostile file first: refused with file, line and reason; the page keeps working
        page.locator('input[type="file"]').set_input_files(str(bad))
        page.get_by_text("the file is refused until").wait_for(timeout=30000)
        page.get_by_role("button", name="Score and import").wait_for(state="detached", timeout=5000)
        # the payload file
        page.locator('input[type="file"]').set_input_files(str(good))
        page.get_by_text("First rows").wait_for(timeout=30000)
        code = page.locator('[data-testid="stCode"]')
        code.filter(has_text=SCRIPT).first.wait_for(timeout=10000)  # the payloads, shown literally as text
        code.filter(has_text=IMG).first.wait_for(timeout=10000)
        page.get_by_label("Model name").fill("xss-model <b>bold</b>")
        page.get_by_label("Organisation").fill('<img src=y onerror="window.__pwned=3">')
        page.get_by_label("Submitted by", exact=True).and_(page.locator("input")).fill("tester")
        click_after_typing(page, page.get_by_role("button", name="Score and import"))
        page.get_by_text("imported 6 predictions").wait_for(timeout=60000)
        page.get_by_text("Open the model page").wait_for(timeout=30000)
        shot = screenshot(page, "upload_payloads")
        assert page.evaluate("() => window.__pwned") is None
        assert page.locator("img[src='x'], img[src='y']").count() == 0
        assert page.locator("script:has-text('__pwned')").count() == 0
        assert dialogs == []
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as r:
            assert r.status == 200
        # the admin hides the upload: audited, and the model leaves the leaderboards
        page.get_by_text("Admin: queued imports, hide or delete an upload").click()
        token = page.get_by_label("Admin token", exact=True).and_(page.locator("input"))
        token.fill("adm-token")
        token.press("Enter")
        page.get_by_role("button", name="Hide", exact=True).click()
        page.get_by_text("xss-model <b>bold</b>: hidden").wait_for(timeout=30000)
    assert shot.exists()
    con = connect(db, read_only=True)
    outputs = [o for (o,) in con.execute("SELECT p.output FROM predictions p JOIN runs r USING (run_id) "
                                         "WHERE r.model_id = 'xss-model <b>bold</b>'").fetchall()]
    assert len(outputs) == 6 and sum(SCRIPT in o for o in outputs) == 3  # stored verbatim, shown as text
    assert con.execute("SELECT action, actor FROM audit ORDER BY happened_at").fetchall()[-2:] == \
        [("upload", "web:upload-token (tester)"), ("hide", "admin")]
    assert con.execute("SELECT hidden FROM models WHERE model_id = 'xss-model <b>bold</b>'").fetchone() == (True,)
    # type and weights were left as the form offered them: the file states neither, so both stay unknown
    assert con.execute("SELECT model_type, weights, params_b FROM models "
                       "WHERE model_id = 'xss-model <b>bold</b>'").fetchone() == (None, None, None)
    con.close()
