"""The PACUTE page in a real headless Chromium on the paper's own results (`results pull pacute-paper` of the
public samples): the read-out sentence naming the L2 drop and the human-baseline table are drawn, as text, beside
the models. The screenshot tests/_screenshots/pacute-paper-*.png is kept to be looked at."""
from __future__ import annotations

import pytest

from tests.helpers.browser import chromium_available, chromium_page, screenshot, serve_app, wait_for_app
from tests.helpers.paper_results import pulled_store

pytestmark = [pytest.mark.skipif(not chromium_available(), reason="Debian chromium / playwright not installed"),
              pytest.mark.needs_samples]


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    with serve_app(pulled_store(tmp_path_factory.mktemp("paper"))) as url:
        yield url


def test_pacute_page_reads_the_paper_runs(app_url):
    # the prompt language is left to the page: it opens on one the hierarchy has results for
    with chromium_page(1400, 3600) as page:
        _open(page, f"{app_url}/pacute?models=gemma-4-e2b-it&models=GPT-5-Mini&fmt=GEN")
        text = page.inner_text('[data-testid="stMain"]')
        screenshot(page, "pacute-paper-gen")
    assert "gemma-4-e2b-it drops from " in text and "GPT-5-Mini drops from " in text
    assert text.count("morpheme decomposition is where it breaks.") == 2
    assert "decomposition is present" not in text
    assert "Three native speakers answered the same stratified 10% sample" in text


def test_human_baseline_beside_the_main_suite(app_url):
    with chromium_page(1400, 3600) as page:
        _open(page, f"{app_url}/pacute?models=gemma-4-e2b-it&models=GPT-5-Mini&fmt=GEN&prompt=en")
        text = page.inner_text('[data-testid="stMain"]')
        legend = page.locator('[data-testid="stPlotlyChart"]').last.inner_text()
        screenshot(page, "pacute-paper-suite-en")
    assert "Black diamonds: the paper's human baseline (mean of three native speakers)." in text
    assert "human (mean of 3)" in legend


def _open(page, url: str) -> None:
    page.goto(url)
    wait_for_app(page, timeout_ms=180000)
    page.get_by_text("Human baseline (GEN, not ranked)").first.wait_for(timeout=180000)
    page.wait_for_timeout(3000)
