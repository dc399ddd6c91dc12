"""Compare page on the fixture store: deep link to a filtered item, slices, outputs as text, next failing item."""
from __future__ import annotations


from pages._ui import md_escape
from tests.helpers import fixture_data
from tests.helpers.fixtures_store import CELLS, app_test, cell_items, is_right, is_unparsed

A, B = "SeaLion-9B-it|en", "Gemma-2B|en"


def _right(model: str, i: int, item) -> bool:
    return all(is_right(model, "lindsea-mp", "en", i, item, o) and not is_unparsed(model, i) for o in ("ab", "ba"))


def _mp_items():
    sample = next(s for t, lg, s, _ in CELLS if t == "lindsea-mp" and lg == "id")
    return list(enumerate(cell_items("lindsea-mp", "id", sample)))


def test_deep_link_opens_two_models_on_a_filtered_item(db):
    at = app_test("compare", task="lindsea-mp", lang="id", sys=[A, B], slice="a_right_b_wrong",
                  item="morphology-13")
    assert not at.exception
    assert at.multiselect[0].value == [A, B]
    assert next(s for s in at.selectbox if s.label == "Item").value == "morphology-13"
    expected = sorted(it.item_id for i, it in _mp_items() if _right("SeaLion-9B-it", i, it)
                      and not _right("Gemma-2B", i, it))
    table = next(d.value for d in at.dataframe if "score_A" in d.value.columns)
    assert sorted(table["item_id"]) == expected
    assert at.markdown[0].value.startswith(f"**{len(expected)} items**")
    texts = [m.value for m in at.markdown]
    # A answered A then B (right in both orders); Gemma's output is prose: unparseable, wrong
    assert sum("✓ right" in t for t in texts) == 2
    assert sum("✗ wrong" in t and "answer: unparseable" in t for t in texts) == 2
    codes = [c.value for c in at.code]
    assert "Hmm, both could be fine depending on context." in codes


def _score(model: str, i: int, item) -> float:
    return sum(is_right(model, "lindsea-mp", "en", i, item, o) and not is_unparsed(model, i) for o in ("ab", "ba")) / 2


def test_paired_test_is_the_whole_cells_whatever_the_slice(db):
    """The test is on every item both systems answered (the difference counted by hand); an outcome slice or a
    search narrows the table only, and the caption says why."""
    items = _mp_items()
    diff = 100 * sum(_score("SeaLion-9B-it", i, it) - _score("Gemma-2B", i, it) for i, it in items) / len(items)
    shown = []
    for params in ({"slice": "all"}, {"slice": "a_right_b_wrong"}, {"slice": "all", "q": "morphology"}):
        at = app_test("compare", task="lindsea-mp", lang="id", sys=[A, B], **params)
        assert not at.exception
        shown.append(next(m.value for m in at.markdown if m.value.startswith("**Paired test")))
        assert any("only narrow the table" in c.value for c in at.caption)
    assert shown[0].startswith(f"**Paired test, A vs B on all {len(items)} items of the cell both answered** "
                               f"({md_escape('paired-bootstrap')}): A − B = {diff:+.1f} points")
    assert shown[1] == shown[2] == shown[0]


def test_slices_count_by_hand(db):
    items = _mp_items()
    all_wrong = [it for i, it in items if not _right("SeaLion-9B-it", i, it) and not _right("Gemma-2B", i, it)]
    at = app_test("compare", task="lindsea-mp", lang="id", sys=[A, B], slice="all_wrong")
    assert at.markdown[0].value.startswith(f"**{len(all_wrong)} items**")
    unparsed = [it for i, it in items if is_unparsed("Gemma-2B", i)]
    at = app_test("compare", task="lindsea-mp", lang="id", sys=[A, B], slice="unparseable")
    assert at.markdown[0].value.startswith(f"**{len(unparsed)} items**")


def test_prompt_disagreement_and_next_failing_item(db):
    at = app_test("compare", task="lindsea-mp", lang="id", sys=[A, "SeaLion-9B-it|native"], slice="prompt_disagree")
    assert not at.exception
    items = _mp_items()
    native = [all(is_right("SeaLion-9B-it", "lindsea-mp", "native", i, it, o) for o in ("ab", "ba"))
              for i, it in items]
    expected = sorted(it.item_id for (i, it), nat in zip(items, native) if _right("SeaLion-9B-it", i, it) != nat)
    table = next(d.value for d in at.dataframe if "score_A" in d.value.columns)
    assert sorted(table["item_id"]) == expected
    at = app_test("compare", task="lindsea-mp", lang="id", sys=[A, B], slice="all", item="morphology-0")
    at.button[0].click().run()  # the first item after morphology-0 that any system gets wrong
    failing = sorted(it.item_id for i, it in items
                     if not (_right("SeaLion-9B-it", i, it) and _right("Gemma-2B", i, it)))
    assert next(s for s in at.selectbox if s.label == "Item").value == next(x for x in failing if x > "morphology-0")


def test_thai_search_and_word_diff(db):
    at = app_test("compare", task="sentiment", lang="th", sys=["Closed-XL|en", "Gemma-2B|native"], q=fixture_data.THAI_SEARCH_WORD)
    assert not at.exception
    table = next(d.value for d in at.dataframe if "score_A" in d.value.columns)
    assert sorted(table["item_id"]) == sorted(fixture_data.THAI_SEARCH_IDS)
    assert any(m.value.startswith("**Word-level difference") for m in at.markdown)
