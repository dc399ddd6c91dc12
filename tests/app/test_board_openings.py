"""What the pages open on, on three stores (demo only; ten real PACUTE models plus two stubs; demo plus real): the
benchmark and prompt with the most ranked, non-stub models, the leaders preselected, never a baseline against itself,
and a stub never ranked (services.board_view states the rules)."""
from __future__ import annotations

import pytest

from tests.helpers.board_stores import LMEVAL_STUB, PACUTE_STUB, REAL, mixed_store, pacute_store
from tests.helpers.fixtures_store import app_test, pages_on
from tests.helpers.samples import REPO

pytestmark = pytest.mark.needs_samples

BASELINES = ("Baseline · majority class (demo)", "Baseline · random choice, seed 0 (demo)")
GEMMA_DEMO = "Gemma 3 270M base · Q4_K_M (demo run)"


@pytest.fixture(scope="module")
def real_db(tmp_path_factory):
    return pacute_store(tmp_path_factory.mktemp("real") / "t.duckdb")


@pytest.fixture(scope="module")
def mixed_db(tmp_path_factory):
    return mixed_store(tmp_path_factory.mktemp("mixed") / "t.duckdb")


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


def _board(at):
    return at.dataframe[0].value


def _systems(at) -> list[str]:
    return at.multiselect(key="sys").value


def test_demo_store_opens_on_the_demo_board_with_gemma_before_the_baselines(demo_db):
    with pages_on(demo_db):
        at = _ok(app_test("leaderboard"))
        assert at.segmented_control(key="bench").value == "BHASA"
        assert at.segmented_control(key="prompt").value == "English"
        assert (_board(at)["rank"] == float("-inf")).all()  # demo rows are reference points, never ranked
        at = _ok(app_test("pacute"))
        assert at.multiselect(key="models").value == [GEMMA_DEMO, *BASELINES]
        at = _ok(app_test("compare"))
        systems = _systems(at)
        assert len(systems) == 2 and systems[0].startswith(GEMMA_DEMO + "|")
        assert len({s.split("|")[0] for s in systems}) == 2  # two models, never one against itself
        at = _ok(app_test("model"))
        assert at.selectbox(key="model").value == GEMMA_DEMO
        at = _ok(app_test("lindsea"))
        assert at.selectbox(key="model").value == GEMMA_DEMO


def test_real_store_opens_on_pacute_with_the_leader_first_and_stubs_unranked(real_db):
    with pages_on(real_db):
        at = _ok(app_test("leaderboard"))
        assert at.segmented_control(key="bench").value == "PACUTE"
        assert at.segmented_control(key="prompt").value == "English"
        board = _board(at)
        assert board["model"].tolist()[:3] == REAL[:3]
        assert board.loc[0, "rank"] == 1
        stub = board[board["model"] == PACUTE_STUB].iloc[0]
        assert stub["overall"] == 100.0 and stub["rank"] == float("-inf")  # shown as "—": not ranked
        assert stub["rank range"] == "too few items"
        # scores before rank ranges: a phone-width grid shows rank, model and overall first
        assert list(board.columns[:4]) == ["rank", "model", "overall", "controls (ceiling)"]

        at = _ok(app_test("leaderboard", bench="BHASA"))
        bhasa = _board(at)
        assert bhasa["model"].tolist() == [LMEVAL_STUB]
        assert bhasa.loc[0, "rank"] == float("-inf") and bhasa.loc[0, "rank range"] == "too few items"

        at = _ok(app_test("pacute"))
        assert at.multiselect(key="models").value == REAL[:4]
        at = _ok(app_test("compare"))
        assert _systems(at) == ["real-0|en", "real-1|en"]
        assert at.selectbox(key="task").value.startswith("pacute-")
        at = _ok(app_test("model"))
        assert at.selectbox(key="model").value == "real-0"


def test_mixed_store_ranks_the_real_models_and_hides_no_leader(mixed_db):
    with pages_on(mixed_db):
        at = _ok(app_test("leaderboard"))
        assert at.segmented_control(key="bench").value == "PACUTE"
        board = _board(at)
        assert board["model"].tolist()[:3] == ["real-0", "real-4", "real-8"]
        assert board.loc[0, "rank"] == 1
        at = _ok(app_test("pacute"))
        assert at.multiselect(key="models").value == ["real-0", "real-4", "real-8", GEMMA_DEMO]
        at = _ok(app_test("compare"))
        assert _systems(at) == ["real-0|en", "real-4|en"]
        at = _ok(app_test("model"))
        assert at.selectbox(key="model").value == "real-0"
        at = _ok(app_test("lindsea"))
        assert at.selectbox(key="model").value == GEMMA_DEMO  # no real LINDSEA results: the demo run, not a baseline


def _banner(db) -> list[str]:
    from streamlit.testing.v1 import AppTest

    with pages_on(db):
        at = _ok(AppTest.from_file(str(REPO / "app.py"), default_timeout=120).run())
        return [i.value for i in at.info if i.value.startswith("**Demo data.**")]


def test_demo_banner_only_when_the_ranked_rows_are_demo(demo_db, mixed_db):
    assert len(_banner(demo_db)) == 1
    assert _banner(mixed_db) == []  # real models are ranked: the demo rows are reference points, no banner
