"""A multi-turn conversation on Compare in headless Chromium: each turn's user message with both systems' answers
side by side, answers shown as typed (Markdown and HTML in them never rendered), the judge's scores labelled as
judge scores; tests/_screenshots/compare_conversation.png is kept to be looked at."""
from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.helpers.browser import chromium_available, chromium_page, screenshot, serve_app, wait_for_app
from tests.helpers.chat_store import ITEMS, LANG, MODELS, TASK, answer, judged_chat_store

pytestmark = pytest.mark.skipif(not chromium_available(), reason="Debian chromium / playwright not installed")


def test_conversation_turns_side_by_side(tmp_path):
    db = tmp_path / "tanaw.duckdb"
    judged_chat_store(db)
    params = {"view": "Conversations", "chat_task": TASK, "chat_lang": LANG,
              "chat_sys": [f"{m}|native" for m in MODELS], "chat_item": "2"}
    last = answer(MODELS[1], "2", 2)
    with serve_app(db, env={"HOME": str(tmp_path)}) as url, chromium_page(1280, 1500) as page:
        page.goto(f"{url}/compare?{urlencode(params, doseq=True)}")
        wait_for_app(page, 120000)
        page.wait_for_function("t => document.body.innerText.includes(t)", arg=last, timeout=60000)
        page.wait_for_function("t => document.body.innerText.includes(t)", arg="LLM judge scores", timeout=60000)
        screenshot(page, "compare_conversation")
        body = page.inner_text("body")
        bold_from_data = page.locator("b", has_text="x").count()
    for turn, question in enumerate(ITEMS["2"]["turns"], start=1):
        assert question in body
        assert all(answer(m, "2", turn) in body for m in MODELS)  # '**' and '<b>' shown as typed
    assert body.index(ITEMS["2"]["turns"][0]) < body.index(answer(MODELS[0], "2", 1)) < \
        body.index(ITEMS["2"]["turns"][1]) < body.index(answer(MODELS[0], "2", 2))
    assert bold_from_data == 0
    assert "LLM judge scores" in body and "Turn 2 · user" in body
