"""The By-language page on a store with Thai results: the sentence names the leader, its lead and how clear it is;
the tasks are ranked with the leader and the runner-up; "where it fails" opens Compare on the leader's wrong items."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.helpers.board_stores import thai_store
from tests.helpers.fixtures_store import app_test, pages_on

pytestmark = pytest.mark.needs_samples


@pytest.fixture(scope="module")
def thai_db(tmp_path_factory):
    return thai_store(tmp_path_factory.mktemp("thai") / "t.duckdb")


def test_thai_answers_who_leads_and_where_it_fails(thai_db):
    with pages_on(thai_db):
        at = app_test("language", lang="Thai")
        assert not at.exception, [e.value for e in at.exception]
        assert at.segmented_control(key="prompt").value == "English prompt"
        sentence = next(m.value for m in at.markdown if m.value.startswith("In Thai"))
        assert sentence.startswith("In Thai \\(English prompt\\), thai\\-strong leads")
        assert "points ahead of thai\\-middle" in sentence and "statistically clear on" in sentence
        tasks = at.dataframe[0].value.set_index("task")
        assert set(tasks.index) == {"qa", "abssum", "translation-xx-en", "ner", "translation-en-xx", "toxicity",
                                    "sentiment", "nli", "causal"}
        assert (tasks["leader"] == "thai-strong").all()
        assert tasks.loc["nli", "competency"] == "reasoning (NLR)"
        assert tasks["normalized"].is_monotonic_decreasing  # the leader's strongest task first
        link = urlsplit(tasks.loc["nli", "fails"])
        assert link.path == "/compare"
        params = {k: v[0] for k, v in parse_qs(link.query).items()}
        assert params == {"task": "nli", "lang": "th", "sys": "thai-strong|en", "slice": "any_wrong"}

        at = app_test("compare", **params)  # the link opens the leader's wrong items
        assert not at.exception, [e.value for e in at.exception]
        assert at.multiselect(key="sys").value == ["thai-strong|en"]
        assert at.selectbox(key="slice").value == "any_wrong"
        items = at.dataframe[0].value
        assert len(items) and not items["right_A"].any()
