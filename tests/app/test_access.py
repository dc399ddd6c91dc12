"""Every write authorised, locked and audited (docs/security.md, "Roles and tokens" and "Ratings and admin actions"): on a public Space
(SPACE_ID set) each action is closed without its own token; ratings go through the writer lock with an audit row, and
a rater can only add or replace their own ratings."""
from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from services.ratings import save_ratings
from store import access, campaigns, db, ratings
from store.writer_lock import WriterBusy, lock_path
from tests.helpers.fixtures_store import fixture_db, pages_on

REPO = Path(__file__).resolve().parents[2]
TOKENS = ("SPACE_ID", *access.TOKENS.values())
ALICE_CSV = b"item,model,rater,lang,accuracy\n0,Gemma-2B,alice,ta,2\n1,Closed-XL,alice,ta,5\n"


@pytest.fixture
def clean_env(monkeypatch):
    for k in TOKENS:
        monkeypatch.delenv(k, raising=False)
    return monkeypatch


@pytest.mark.parametrize("action", ["queue", "upload", "rate", "admin"])
def test_each_action_is_closed_on_a_space_without_its_token(action):
    space = {"SPACE_ID": "tanaw/leaderboard"}
    assert access.mode(action, space) == "closed"
    assert access.authorise(action, "anything", space) is None
    assert access.authorise(action, "", space) is None
    other_tokens = {**space, **{v: "tok:en" for a, v in access.TOKENS.items() if a != action}}
    assert access.mode(action, other_tokens) == "closed"  # another action's token opens nothing here


def test_self_hosted_is_open_except_admin():
    assert [access.mode(a, {}) for a in ("queue", "upload", "rate", "admin")] == ["open", "open", "open", "closed"]
    assert access.authorise("upload", None, {}).actor == "web:anonymous"


def test_tokens_name_their_holder():
    env = {"SPACE_ID": "s", "TANAW_RATER_TOKENS": "alice:tokA, bob:tokB", "TANAW_ADMIN_TOKEN": "adm",
           "TANAW_UPLOAD_TOKEN": "up"}
    assert access.authorise("rate", "tokB", env).rater == "bob"
    assert access.authorise("rate", "tokB", env).actor == "rater:bob"
    assert access.authorise("rate", "tokC", env) is None
    assert access.authorise("rate", "adm", env) is None
    assert access.authorise("admin", "adm", env).actor == "admin"
    assert access.authorise("upload", "up", env).actor == "web:upload-token"
    assert access.mode("rate", {"TANAW_RATER_TOKENS": "no-colon"}) == "closed"  # malformed: closed, not open


# ---- ratings: locked, audited, own rows only ------------------------------------------------------------------

@pytest.fixture
def store_copy(tmp_path):
    path = tmp_path / "ratings.duckdb"
    path.write_bytes(fixture_db().read_bytes())
    return path


def _ratings(path) -> list[tuple]:
    con = db.connect(path)
    try:
        return con.execute(f"SELECT item_id, model_id, rater, value FROM ({campaigns.RATINGS_SQL}) "
                           "ORDER BY ALL").fetchall()  # ratings are a 'ratings' campaign's judgements
    finally:
        con.close()


def _audit(path) -> list[tuple]:
    con = db.connect(path)
    try:
        return con.execute("SELECT actor, action, source_hash IS NOT NULL, file_name FROM audit "
                           "ORDER BY happened_at").fetchall()
    finally:
        con.close()


def test_save_ratings_writes_an_audit_row_and_refuses_other_raters(store_copy):
    save_ratings(store_copy, ALICE_CSV, "alice.csv", actor="rater:alice", rater="alice")
    before = _ratings(store_copy)
    assert before == [("0", "Gemma-2B", "alice", 2.0), ("1", "Closed-XL", "alice", 5.0)]
    overwrite = b"item,model,rater,lang,accuracy\n0,Gemma-2B,alice,ta,1\n"
    with pytest.raises(ratings.RatingsError, match="^bob.csv:2: rater: signed in as 'bob': rows for 'alice'"):
        save_ratings(store_copy, overwrite, "bob.csv", actor="rater:bob", rater="bob")
    assert _ratings(store_copy) == before
    assert _audit(store_copy) == [("rater:alice", "ratings", True, "alice.csv"), ("rater:bob", "reject", True,
                                                                                   "bob.csv")]


def test_save_ratings_takes_the_writer_lock(store_copy):
    """Another writer (a CLI import) holds the store: the ratings wait for it, then give up with WriterBusy."""
    fd = os.open(lock_path(store_copy.resolve()), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(WriterBusy):
            save_ratings(store_copy, ALICE_CSV, "a.csv", actor="rater:alice", rater="alice", timeout=0.3)
    finally:
        os.close(fd)
    assert _ratings(store_copy) == []


def _cultural(path, monkeypatch, **env) -> AppTest:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    at = AppTest.from_file(str(REPO / "pages" / "cultural.py"), default_timeout=90)
    at.query_params.update(lang="ta", item="0", models=["Gemma-2B"])
    return at.run()


def _upload(at: AppTest, data: bytes, token: str | None) -> AppTest:
    if token is not None:
        at.text_input(key="rater_token").set_value(token)
    at.file_uploader(key="ratings_upload").set_value(("r.csv", data, "text/csv"))
    at.run()
    at.button(key="ratings_add").click()
    return at.run()


def test_anonymous_ratings_refused_on_a_space(store_copy, clean_env):
    with pages_on(store_copy):
        at = _cultural(store_copy, clean_env, SPACE_ID="tanaw/leaderboard")
        assert not at.exception
        assert any("Rating uploads are closed" in i.value for i in at.info)
        assert not at.file_uploader
    assert _ratings(store_copy) == [] and _audit(store_copy) == []


def test_rater_replacing_anothers_rating_refused_on_the_page(store_copy, clean_env):
    env = {"SPACE_ID": "tanaw/leaderboard", "TANAW_RATER_TOKENS": "alice:tokA,bob:tokB"}
    with pages_on(store_copy):
        at = _upload(_cultural(store_copy, clean_env, **env), ALICE_CSV, "wrong-token")
        assert any("valid rater token" in e.value for e in at.error)
        assert _ratings(store_copy) == []
        at = _upload(at, ALICE_CSV, "tokA")
        assert not at.error and any("Added 2 scores" in s.value for s in at.success)
        at = _upload(at, b"item,model,rater,lang,accuracy\n0,Gemma-2B,alice,ta,1\n", "tokB")
        assert any("rows for" in e.value and "refused" in e.value for e in at.error)
    assert _ratings(store_copy) == [("0", "Gemma-2B", "alice", 2.0), ("1", "Closed-XL", "alice", 5.0)]
    rows = _audit(store_copy)  # the wrong token is audited (never the token itself)
    assert [a[1] for a in rows] == ["refuse", "ratings", "reject"] and rows[0][0].startswith("web:session:")
    assert [a[:2] for a in rows[1:]] == [("rater:alice", "ratings"), ("rater:bob", "reject")]


def test_upload_page_closed_on_a_space_without_a_token(store_copy, clean_env):
    clean_env.setenv("SPACE_ID", "tanaw/leaderboard")
    with pages_on(store_copy):
        at = AppTest.from_file(str(REPO / "pages" / "upload.py"), default_timeout=90).run()
    assert not at.exception
    assert any("Uploads are closed" in i.value for i in at.info)
    assert not at.file_uploader and not at.text_input  # no upload, no admin section


def test_queued_imports_need_the_admin_token(store_copy, clean_env):
    """Importing the files the operator queued is an admin action (docs/security.md, roles): an uploader sees no button."""
    from store import inbox

    inbox.drop(store_copy, b'{"x": 1}\n', {"model": "queued-model", "name": "q.jsonl"})
    clean_env.setenv("SPACE_ID", "tanaw/leaderboard")
    clean_env.setenv("TANAW_UPLOAD_TOKEN", "up")
    clean_env.setenv("TANAW_ADMIN_TOKEN", "adm")
    with pages_on(store_copy):
        at = AppTest.from_file(str(REPO / "pages" / "upload.py"), default_timeout=90).run()
        assert not at.exception
        assert not [b for b in at.button if b.key == "drain"]
        at.text_input(key="admin_token").set_value("adm").run()
        assert not at.exception
        assert [b for b in at.button if b.key == "drain"]
    assert len(inbox.pending(store_copy)) == 1
