"""Markup from data in a real browser (docs/security.md, "Uploads and rendering"): the app served on the fixture store
with a model named in Streamlit's Markdown, and a results repo (the local Hub stand-in) whose manifest names a
Markdown table. On the leaderboard, the Model page and the LINDSEA page, headless Chromium finds no image, asks no
host but the app's, draws none of the payloads bold, coloured, as a link, an icon, an emoji or a formula, and the
Hub banner is a fixed sentence without the server's paths."""
from __future__ import annotations

from urllib.parse import quote, urlsplit

import pytest

from tests.browser.test_spaces_start import wait_for_page
from tests.helpers.browser import chromium_available, chromium_page, screenshot, serve_app, wait_for_run
from tests.helpers.hostile_names import NAME, REPO, hostile_manifest, hostile_store, hub_env
from tests.helpers.hub_standin import HubStandin

pytestmark = pytest.mark.skipif(not chromium_available(), reason="Debian chromium / playwright not installed")

BANNER = "The results repository could not be read; serving the last good data."
PAGES = (("leaderboard", ""), ("model", f"model?model={quote(NAME)}"),
         ("lindsea", f"lindsea?model={quote(NAME)}&lang=id"))

STYLED = """() => {
  // Text nodes holding a payload word, and whether anything around them styles them: a tag that Markdown makes
  // (bold, italics, strike, link, code) or an inline colour / weight (Streamlit's :red[...], Plotly's <b>).
  const words = /VERIFIED|bold|smile|x\\^2/;
  const marks = new Set(['STRONG', 'B', 'EM', 'I', 'DEL', 'S', 'A', 'CODE', 'MARK']);
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!words.test(node.nodeValue)) continue;
    for (let el = node.parentElement; el && el !== document.body; el = el.parentElement) {
      const style = el.getAttribute('style') || '';
      if (marks.has(el.tagName.toUpperCase()) || /(^|;)\\s*color\\s*:|font-weight\\s*:\\s*(bold|[6-9]00)/.test(style)) {
        found.push(el.tagName + ' ' + style + ': ' + node.nodeValue);
        break;
      }
    }
  }
  return found;
}"""


def _literal_payloads(text: str) -> list[str]:
    """The pieces of NAME that are visible as typed (word joiners removed): they were not turned into markup."""
    text = text.replace("\u2060", "")
    return [p for p in (":red[**VERIFIED**]", ":material/verified:", "$x^2$", ":smile:", "<b>bold</b>",
                        "![t](https://evil.example/t.png)") if p in text]


def test_pages_and_the_hub_banner_draw_no_markup_from_data(tmp_path):
    db = hostile_store(tmp_path / "hostile.duckdb")
    home = tmp_path / "home"
    outside: list[str] = []
    with HubStandin() as standin:
        standin.create_repo(REPO, {"manifest.json": hostile_manifest()})
        with serve_app(db, env=hub_env(standin.url, home), log_path=tmp_path / "server.log") as url, \
                chromium_page(1280, 2000) as page:
            page.on("request", lambda r: outside.append(r.url)
                    if urlsplit(r.url).hostname not in ("127.0.0.1", "localhost") else None)
            for name, path in PAGES:
                page.goto(f"{url}/{path}")
                wait_for_page(page)
                page.get_by_text("serving the last good data").first.wait_for(timeout=60000)  # the pull failed
                wait_for_run(page)
                if name != "leaderboard":
                    page.get_by_role("button", name="Download", exact=False).first.wait_for(timeout=60000)
                else:
                    page.locator('[data-testid="stPlotlyChart"] .ytick text').first.wait_for(timeout=60000)
                page.wait_for_timeout(1500)
                shot = screenshot(page, f"markup-from-data-{name}")
                body = page.inner_text("body")
                assert page.locator("img").count() == 0, name  # no image from a name or a manifest
                assert page.evaluate(STYLED) == [], name
                assert page.locator(".katex").count() == 0 and "😄" not in body, name
                icons = page.locator('[data-testid="stIconMaterial"]').all_inner_texts()
                assert "verified" not in icons, name
                assert "ALL RESULTS VERIFIED" not in body and str(home) not in body and "/hub/" not in body, name
                banner = page.locator('[data-testid="stAlertContentWarning"] [data-testid="stMarkdownContainer"]')
                assert banner.first.inner_text() == BANNER, name  # a fixed sentence: the detail is in the server's log
                assert page.locator('a[href*="evil.example"]').count() == 0, name
                if name == "leaderboard":
                    ticks = page.locator('[data-testid="stPlotlyChart"] .ytick text').all_text_contents()
                    assert NAME in ticks  # the heatmap's axis shows the name as typed, tags and all
                else:  # the download buttons show the name as typed
                    labels = page.get_by_role("button", name="Download", exact=False).all_inner_texts()
                    shown = [t.replace("\u2060", "") for t in labels if "VERIFIED" in t]
                    assert shown and all(NAME in t for t in shown), labels
                    assert len(_literal_payloads(" ".join(labels))) == 6
                assert shot.stat().st_size > 20000
    assert outside == []  # nothing fetched from any other host (the image URL in the name included)
