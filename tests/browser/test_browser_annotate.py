"""The annotation page in headless Chromium: three annotators complete a small MT campaign and a summarisation
campaign through their links; the rendered HTML never names a system or model; markup in a comment stays text; a
reload resumes at the first unjudged item; Ctrl+Enter saves. Small campaigns (two MT items, three summaries; AppTest,
tests/app/test_pages_annotate.py, covers longer ones). Every step waits on state, never on a sleep: Streamlit's
own end-of-run attributes (tests/helpers/browser.py `wait_for_run`), the progress text, and the form's whole set of
radio groups (the page streams its elements: before the run has finished only some groups exist). Screenshots show the
whole form down to the save button and its shortcut (MT: a second item, progress half way):
tests/_screenshots/annotate_mt.png (Thai) and annotate_summ.png (Tamil)."""
from __future__ import annotations

import pytest

from services import campaigns as svc
from store import campaigns, db
from tests.helpers.browser import (chromium_available, chromium_page, click_after_typing, screenshot, serve_app,
                                   wait_for_run)
from tests.helpers.human_fixture import MODELS, human_store

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not chromium_available(), reason="needs /usr/bin/chromium and playwright")]

NAMES = ["ann", "bo", "cy"]
MARKUP = "<img src=x onerror=alert(1)> <b>bold</b>"
FORBIDDEN = [*MODELS, *(m.split("/")[1] for m in MODELS), "|native", "corrupted"]
RADIOS = {"mt": 1, "summarisation": 4}
"""Radio groups per candidate: the MT verdict; relevance, fluency, coherence and faithfulness."""
WAIT_MS = 60_000
RADIO = '[data-testid="stRadio"]'


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One server for the module on a store with two small campaigns of one system each (with the reference and a
    corrupted candidate that makes 2-3 candidates: a lighter page; AppTest covers two systems): MT (Thai) of two
    items, each judged by two of the three annotators (one of them judges both); summarisation (Tamil) of three
    items, one per annotator."""
    path = tmp_path_factory.mktemp("annotate_browser") / "h.duckdb"
    human_store(path)
    systems = [(MODELS[0], "native")]
    tokens = {"mt": svc.create_campaign(path, campaign_id="mt", task="translation-en-xx", lang="th", systems=systems,
                                        annotators=NAMES, n_items=2, k=2, seed=1, n_repeats=0),
              "summ": svc.create_campaign(path, campaign_id="summ", task="abssum", lang="ta", systems=systems,
                                          annotators=NAMES, n_items=3, k=1, seed=2, n_repeats=0)}
    con = db.connect(path)  # the server owns the store file while it runs: read what the tests expect first
    mine = {(cid, name): campaigns.assignments(con, cid, name) for cid in tokens for name in NAMES}
    twice = [name for name in NAMES if len(mine["mt", name]) == 2]
    assert len(twice) == 1 and all(len(mine["summ", name]) == 1 for name in NAMES)
    sources = [campaigns.item_inputs(con, "translation-en-xx", "th", a.item_id)[0]["text"] for a in mine["mt", *twice]]
    con.close()
    shown = {key: [len(a.cand_order) for a in got] for key, got in mine.items()}
    with serve_app(path) as url, chromium_page(1280, 2400) as page:  # tall: the whole form in a screenshot
        yield url, page, tokens, shown, (twice[0], sources)
    con = db.connect(path)  # the server has stopped: every judgement and comment is in the store, as text
    try:
        for cid in tokens:
            got = {r[0]: r[1:] for r in campaigns.progress(con, cid)}
            want = {name: (len(shown[cid, name]),) * 2 for name in NAMES}
            assert got == want, f"{cid}: {got}; audit: {_judgement_audit(con)}"
            assert set(campaigns.judgements(con, cid).query("criterion == 'comment'")["note"]) == {MARKUP}
    finally:
        con.close()


def _judgement_audit(con) -> list:
    """The audit trail of judgements (written in the same transaction as each judgement): tells a judgement that
    was never written (no row) from one written and then lost (a row without its judgement)."""
    return con.execute("SELECT actor, action, detail FROM audit WHERE actor LIKE 'annotator:%' ORDER BY 1").fetchall()


def _at_step(page, done: int, total: int, groups: int = 0) -> None:
    """Wait until the page shows `done of total`, the run has finished, and the next item's form is all there:
    `groups` radio groups, none answered."""
    try:
        page.get_by_text(f"{done} of {total} items judged").wait_for(timeout=WAIT_MS)
        wait_for_run(page, WAIT_MS)
        if done < total:
            page.wait_for_function(f"""n => {{ const r = document.querySelectorAll('{RADIO}');
                return r.length === n && !document.querySelector('{RADIO} input:checked'); }}""",
                                   arg=groups, timeout=WAIT_MS)
    except Exception as e:  # noqa: BLE001 - say what the page shows instead
        screenshot(page, "annotate_failed")
        raise AssertionError(f"{done} of {total} with {groups} fresh radio groups never shown; page: "
                             f"{page.inner_text('body')[:3000]}") from e


def _answer(page, protocol: str) -> None:
    """Pick an option in every radio group (inside the page's form: a pick starts no script run) and check that
    each shows as picked."""
    groups = page.locator(RADIO).all()
    for group in groups:
        index = 0 if protocol == "mt" or "Faithful" in group.inner_text() else 3
        group.locator("label:has(input[type=radio])").nth(index).click()
    assert page.locator(f"{RADIO} input:checked").count() == len(groups)


def _judge_item(page, protocol: str, comment: str, done: int, total: int, *, keyboard: bool = False) -> None:
    """Answer every group, write the comment, save (button or Ctrl+Enter); the page must advance, not refuse."""
    _answer(page, protocol)
    if comment:
        page.locator("textarea").first.fill(comment)
    if keyboard:  # from a comment box: a focused radio keeps the keys to itself (its arrow-key handling)
        page.locator("textarea").last.focus()
        page.keyboard.press("Control+Enter")
    elif comment:
        click_after_typing(page, page.get_by_role("button", name="Save and next"))
    else:
        page.get_by_role("button", name="Save and next").click()
    advanced = page.get_by_text(f"{done + 1} of {total} items judged")
    refused = page.locator('[data-testid="stAlert"]').filter(has_not_text="All your items are judged")
    advanced.or_(refused).first.wait_for(timeout=WAIT_MS)
    assert not refused.count(), f"save refused: {refused.first.inner_text()}"


def _assert_blind(page) -> None:
    html = page.content()
    assert not [bad for bad in FORBIDDEN if bad in html]


@pytest.mark.parametrize("cid,protocol", [("mt", "mt"), ("summ", "summarisation")])
def test_three_annotators_complete_in_the_browser(served, cid, protocol):
    """Each annotator opens their link and judges their items (a second item and the last annotator's with Ctrl+Enter). On the MT campaign the
    annotator with two items reloads the page after their first: it resumes at their second, unjudged item."""
    url, page, tokens, shown, (twice, sources) = served
    for name in NAMES:
        page.goto(f"{url}/annotate?token={tokens[cid][name]}")
        total = len(shown[cid, name])
        for step, n_candidates in enumerate(shown[cid, name]):
            _at_step(page, step, total, n_candidates * RADIOS[protocol])
            if name == (twice if cid == "mt" else NAMES[-1]) and step == total - 1:  # the whole form, progress
                screenshot(page, f"annotate_{cid}")
            if cid == "mt" and name == twice:
                assert page.locator('[data-testid="stText"]').first.inner_text() == sources[step]
            _assert_blind(page)
            _judge_item(page, protocol, MARKUP if step == 0 else "", step, total, keyboard=step == 1 or name == NAMES[-1])
            if cid == "mt" and name == twice and step == 0:
                _at_step(page, 1, total, shown[cid, name][1] * RADIOS[protocol])
                page.reload()  # resumes at the first unjudged item (its source is checked above)
                assert "<img src=x" not in page.content()  # nothing of the comment is rendered back as HTML
        _at_step(page, total, total)
        page.get_by_text("All your items are judged").wait_for(timeout=WAIT_MS)
        _assert_blind(page)
        # an annotator's page has no site navigation: no menu leads to the leaderboards and their model names
        assert page.locator('[data-testid="stTopNavSection"], [data-testid="stSidebarNav"]').count() == 0
        assert page.get_by_text("Leaderboards", exact=True).count() == 0
