"""Refusals are audited and slowed down (docs/security.md, "Roles and tokens"): a wrong token on the upload, queue,
rating or admin form leaves an audit row naming the action and the client (never the token), and a client that
keeps trying is locked out for longer and longer, even with the right token, until the lock-out has passed
(AppTest, with the limiter's clock injected: nothing here waits). Ratings outside the protocol's scale are
refused with FILE:LINE: field."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pages._ui import md_escape
from services.ratings import RatingsError, save_ratings
from store import access, campaigns, db
from tests.helpers.fixtures_store import fixture_db, pages_on

REPO = Path(__file__).resolve().parents[2]
ENV = {"SPACE_ID": "tanaw/leaderboard", "TANAW_UPLOAD_TOKEN": "up-right", "TANAW_SUBMIT_TOKEN": "queue-right",
       "TANAW_RATER_TOKENS": "alice:rate-right", "TANAW_ADMIN_TOKEN": "admin-right"}
CSV = b"item,model,rater,lang,accuracy\n0,Gemma-2B,alice,ta,2\n"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    """A fresh limiter for each test, on a clock the test moves."""
    from services import gate
    from store.throttle import Limiter

    c = Clock()
    monkeypatch.setattr(gate, "LIMITER", Limiter(clock=c))
    return c


@pytest.fixture
def store_copy(tmp_path, monkeypatch):
    for k in ("SPACE_ID", *access.TOKENS.values()):
        monkeypatch.delenv(k, raising=False)
    for k, v in ENV.items():
        monkeypatch.setenv(k, v)
    path = tmp_path / "refusals.duckdb"
    path.write_bytes(fixture_db().read_bytes())
    with pages_on(path):
        yield path


def refusals(path: Path) -> list[tuple[str, str]]:
    con = db.connect(path)
    try:
        rows = con.execute("SELECT actor, detail FROM audit WHERE action = 'refuse' ORDER BY happened_at, detail"
                           ).fetchall()
        dump = " ".join(str(v) for r in con.execute("SELECT * FROM audit").fetchall() for v in r)
    finally:
        con.close()
    assert not any(t in dump for t in ("wrong-", "-right")), dump  # no token, wrong or right, is ever stored
    return rows


def page(name: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / f"{name}.py"), default_timeout=90)
    if name == "cultural":
        at.query_params.update(lang="ta", item="0", models=["Gemma-2B"])
    return at.run()


def try_upload(at: AppTest, token: str) -> AppTest:
    next(t for t in at.text_input if t.label == "Upload token").set_value(token)
    return at.run()


def try_queue(at: AppTest, token: str) -> AppTest:
    field = {t.label: t for t in at.text_input}
    field["Model name (as shown on the leaderboard)"].set_value("org/model")
    field["Endpoint base URL"].set_value("https://api.example.org/v1")
    field["Submission token"].set_value(token)
    next(b for b in at.button if b.label == "Queue the request").click()
    return at.run()


def try_rate(at: AppTest, token: str) -> AppTest:
    at.text_input(key="rater_token").set_value(token)
    at.file_uploader(key="ratings_upload").set_value(("r.csv", CSV, "text/csv"))
    at.run()
    at.button(key="ratings_add").click()
    return at.run()


def try_admin(at: AppTest, token: str) -> AppTest:
    at.text_input(key="admin_token").set_value(token)
    return at.run()


ATTEMPTS = {"upload": ("upload", try_upload), "queue": ("queue", try_queue), "rate": ("cultural", try_rate),
            "admin": ("upload", try_admin)}
SHOWN = {"upload": "Uploads need a valid upload token", "queue": "Requests need a valid submission token",
         "rate": "Ratings need a valid rater token", "admin": "Admin actions need the admin token"}


@pytest.mark.parametrize("action", list(ATTEMPTS))
def test_a_wrong_token_is_audited_without_the_token(store_copy, clock, action):
    name, attempt = ATTEMPTS[action]
    at = attempt(page(name), "wrong-1")
    assert not at.exception
    assert any(e.value.startswith(SHOWN[action]) for e in at.error), [e.value for e in at.error]
    at = attempt(at, "wrong-2")
    assert refusals(store_copy) == [
        ("web:session:test session id", f"{action}: wrong token (failure {n} from this client within 10 min)")
        for n in (1, 2)]


def test_repeated_wrong_tokens_lock_the_client_out_for_longer_each_time(store_copy, clock):
    """Five wrong upload tokens are only refused; the sixth locks the client out for 30 s, during which even the
    right token is refused unchecked; after the lock-out the right token opens the page; a seventh failure within
    the ten minutes locks out for 60 s."""
    at = page("upload")
    for n in range(1, 6):
        at = try_upload(at, f"wrong-{n}")
        assert [e.value for e in at.error] == ["Uploads need a valid upload token; ask the maintainers."]
    at = try_upload(at, "wrong-6")
    assert [e.value for e in at.error] == ["Uploads need a valid upload token; ask the maintainers. Too many wrong "
                                           "tokens from this connection; try again in 30 s."]
    clock.now += 10
    at = try_upload(at, "up-right")
    assert [e.value for e in at.error] == ["Too many wrong tokens from this connection; try again in 20 s."]
    assert not at.file_uploader
    clock.now += 21
    at = at.run()
    assert not at.error and at.file_uploader
    at = try_upload(at, "wrong-7")  # the right token cleared the count: a fresh start
    assert [e.value for e in at.error] == ["Uploads need a valid upload token; ask the maintainers."]
    details = [d for _, d in refusals(store_copy)]
    assert details[5:7] == ["upload: wrong token (failure 6 from this client within 10 min; locked out for 30 s)",
                            "upload: refused unchecked, locked out for 20 s more after repeated wrong tokens"]
    assert len(details) == 8


def test_the_limiter_by_hand():
    from store.throttle import Limiter

    c = Clock()
    lim = Limiter(failures=2, window=100.0, base_delay=10.0, max_delay=35.0, max_clients=2, clock=c)
    assert [lim.fail("a") for _ in range(5)] == [(1, 0.0), (2, 0.0), (3, 10.0), (4, 20.0), (5, 35.0)]
    assert lim.wait("a") == 35.0 and lim.wait("b") == 0.0
    c.now += 101  # the window has passed: the failures are forgotten, the count starts again
    assert lim.wait("a") == 0.0 and lim.fail("a") == (1, 0.0)
    lim.fail("a"), lim.fail("a")
    assert lim.wait("a") == 10.0
    lim.succeed("a")
    assert lim.wait("a") == 0.0 and lim.fail("a") == (1, 0.0)
    lim.fail("b"), lim.fail("c")  # at most two clients remembered: the least recently seen ("a") goes
    assert lim.fail("a") == (1, 0.0)


def test_the_client_key_is_the_first_forwarded_address():
    from services import gate

    assert gate.client_key({"X-Forwarded-For": "203.0.113.7, 10.0.0.2"}, "s1") == "ip:203.0.113.7"
    assert gate.client_key({"x-forwarded-for": "198.51.100.4"}, "s1") == "ip:198.51.100.4"
    assert gate.client_key({}, "s1") == "session:s1"
    assert gate.client_key(None, "x" * 500) == "session:" + "x" * 92


# ---- ratings on the protocol's scale ---------------------------------------------------------------------------

@pytest.mark.parametrize("cell", ["1e308", "0", "6", "-1", "5.5", "0.999"])
def test_ratings_outside_the_scale_are_refused_and_write_nothing(store_copy, cell):
    data = f"item,model,rater,lang,accuracy,fluency\n0,Gemma-2B,alice,ta,3,4\n1,Gemma-2B,alice,ta,4,{cell}\n"
    with pytest.raises(RatingsError) as e:
        save_ratings(store_copy, data, "scores.csv", actor="rater:alice", rater="alice")
    assert str(e.value) == f"scores.csv:3: fluency: '{cell}' is outside the rating scale 1-5"
    con = db.connect(store_copy)
    try:
        assert con.execute(f"SELECT count(*) FROM ({campaigns.RATINGS_SQL})").fetchone() == (0,)
    finally:
        con.close()


def test_the_ends_of_the_scale_are_accepted(store_copy):
    data = "item,model,rater,lang,accuracy\n0,Gemma-2B,alice,ta,1\n1,Gemma-2B,alice,ta,5\n2,Gemma-2B,alice,ta,2.5\n"
    assert save_ratings(store_copy, data, "ok.csv", actor="rater:alice", rater="alice").n_rows == 3


def test_an_out_of_scale_rating_is_refused_on_the_page(store_copy):
    at = page("cultural")
    at.text_input(key="rater_token").set_value("rate-right")
    at.file_uploader(key="ratings_upload").set_value(
        ("r.csv", b"item,model,rater,lang,accuracy\n0,Gemma-2B,alice,ta,1e308\n", "text/csv"))
    at.run()
    at.button(key="ratings_add").click()
    at = at.run()
    assert [e.value for e in at.error] == [md_escape("r.csv:2: accuracy: '1e308' is outside the rating scale 1-5")]
    assert not at.success
