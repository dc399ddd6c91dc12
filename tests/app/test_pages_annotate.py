"""The annotation page (AppTest): three annotators complete an MT and a summarisation campaign through their links;
nothing on the page names a system; a reload resumes at the first unjudged item; hostile input stays text."""
from __future__ import annotations

import json

import pytest

from evaluator.human import spans
from services import campaigns as svc
from store import campaigns, db
from store.schema import row_counts
from tests.helpers.fixtures_store import app_test, pages_on
from tests.helpers.human_fixture import MODELS, human_store

SYSTEMS = [(MODELS[0], "native"), (MODELS[1], "native")]
NAMES = ["ann", "bo", "cy"]
MARKUP = "<b>bold</b> <script>alert(1)</script> [link](javascript:x)"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("annotate") / "h.duckdb"
    human_store(path)
    mt = svc.create_campaign(path, campaign_id="mt", task="translation-en-xx", lang="th", systems=SYSTEMS,
                             annotators=NAMES, n_items=2, k=3, seed=1, n_repeats=1)
    summ = svc.create_campaign(path, campaign_id="summ", task="abssum", lang="ta", systems=SYSTEMS,
                               annotators=NAMES, n_items=2, k=3, seed=2, n_repeats=0)
    with pages_on(path):
        yield path, mt, summ


def _texts(at) -> str:
    """Everything the page shows as text (markdown, text, captions, labels, alerts)."""
    parts = [e.value for kind in ("markdown", "text", "caption", "title", "success", "info", "error")
             for e in getattr(at, kind)]
    parts += [p.proto.text for p in at.get("progress")]
    parts += [w.label for w in (*at.radio, *at.checkbox, *at.text_area, *at.number_input, *at.button)]
    return "\n".join(str(p) for p in parts)


def _forbidden():
    return [*MODELS, *(m.split("/")[1] for m in MODELS), "reference", "corrupted", "|native"]


def _judge(at, protocol: str, comment: str = "") -> None:
    if protocol == "mt":
        for r in at.radio:
            r.set_value("correct")
    else:
        for r in at.radio:
            r.set_value(1 if r.label.startswith("Faithful") else 4)
    if comment:
        at.text_area[0].input(comment)
    at.button[0].click().run()


@pytest.mark.parametrize("cid,protocol,total", [("mt", "mt", 3), ("summ", "summarisation", 2)])
def test_three_annotators_complete_a_campaign_blind(store, cid, protocol, total):
    path, mt, summ = store
    tokens = mt if cid == "mt" else summ
    for name in NAMES:
        at = app_test("annotate", token=tokens[name])
        for step in range(total):
            assert not at.exception and not at.error, _texts(at)
            shown = _texts(at)
            assert f"{step} of {total} items judged" in shown
            assert not any(bad in shown for bad in _forbidden())
            _judge(at, protocol, MARKUP if step == 0 else "")
        assert not at.exception and at.success and f"{total} of {total} items judged" in _texts(at)
    con = db.connect(path)
    assert [r[1:] for r in campaigns.progress(con, cid)] == [(total, total)] * 3
    frame = campaigns.judgements(con, cid)
    assert set(frame.loc[frame["criterion"] == "comment", "note"]) == {MARKUP}
    con.close()


def _single(path, cid, name, seed):
    """A one-annotator, one-system campaign of two items; its token."""
    return svc.create_campaign(path, campaign_id=cid, task="translation-en-xx", lang="th", systems=SYSTEMS[:1],
                               annotators=[name], n_items=2, k=1, seed=seed, n_repeats=0)[name]


def test_reload_resumes_at_first_unjudged_item(store):
    path = store[0]
    token = _single(path, "resume", "eve", 4)
    at = app_test("annotate", token=token)
    first_source = at.text[0].value
    _judge(at, "mt")
    con = db.connect(path)
    second = campaigns.assignments(con, "resume", "eve")[1]
    want = campaigns.item_inputs(con, "translation-en-xx", "th", second.item_id)[0]["text"]
    con.close()
    again = app_test("annotate", token=token)  # a reload: a fresh session on the same link
    assert "1 of 2 items judged" in _texts(again) and again.text[0].value == want != first_source


def test_bad_token_and_refused_judgement_change_nothing(store):
    path = store[0]
    at = app_test("annotate", token="not-a-token")
    assert at.info and "personal link" in at.info[0].value and not at.radio
    token = _single(path, "refuse", "dee", 9)
    con = db.connect(path)
    before = row_counts(con)
    con.close()
    at = app_test("annotate", token=token)
    at.radio[0].set_value("incorrect")
    at.button[0].click().run()  # the other candidates have no verdict: refused, named
    assert at.error and "not given" in at.error[0].value and "0 of 2 items judged" in _texts(at)
    con = db.connect(path)
    assert row_counts(con) == before
    con.close()


def test_error_spans_and_esa_score_are_stored_as_offsets(store):
    path = store[0]
    token = _single(path, "spans", "fay", 6)
    at = app_test("annotate", token=token)
    for r in at.radio:
        r.set_value("incorrect")
    minor, major = at.multiselect[0], at.multiselect[1]
    assert minor.label.startswith("Minor error words") and major.label.startswith("Major error words")
    text = at.text[1].value  # the first candidate (after the source), Thai: words as newmm segments them
    words = [text[a:b] for a, b in spans.segments(text, "th")]
    assert len(words) >= 2 and minor.options[:2] == [f"1. {words[0]}", f"2. {words[1]}"]
    minor.set_value([0])
    major.set_value([1])
    at.number_input[0].set_value(35)
    at.button[0].click().run()
    assert not at.error and "1 of 2 items judged" in _texts(at)
    con = db.connect(path)
    got = campaigns.judgements(con, "spans").set_index(["seq", "criterion"])
    con.close()
    stored = json.loads(got.loc[(0, "spans"), "note"])
    assert [(s["severity"], text[s["start"]:s["end"]]) for s in stored] == [("minor", words[0]), ("major", words[1])]
    assert stored[0]["start"] == 0
    assert got.loc[[(0, "esa")], "value"].tolist() == [35.0]  # the first candidate's only
    assert set(got.loc[[(0, "correct")], "value"]) == {0.0}
