"""Model ownership and look-alike names (docs/security.md, "Model names and owners"), through the Upload page (AppTest)
and the command line: an uploader cannot add runs to another identity's model or change its card, and a new name
that only looks like another model's or a paper-reported system's is refused with the existing name."""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from cli.main import main as cli
from evaluator.datasets import load_items
from store import access, db
from tests.helpers.fixtures_store import DATA_DIR, fixture_db, pages_on

REPO = Path(__file__).resolve().parents[2]
LOOKALIKES = ("GPT\u20115.5", "GPT-5.5\u200b", "GP\u0422-5.5", "GPT\u22125.5")
"""U+2011 non-breaking hyphen, a trailing zero-width space, Cyrillic Te, U+2212 minus sign."""
CARD = ("model_id", "organisation", "url", "origin", "params_b", "licence", "hidden")


@pytest.fixture
def store_copy(tmp_path, monkeypatch):
    for k in ("SPACE_ID", *access.TOKENS.values()):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("SPACE_ID", "tanaw/leaderboard")
    path = tmp_path / "owners.duckdb"
    path.write_bytes(fixture_db().read_bytes())
    return path


def native(n: int = 4, answer: str = "Positive", prompt_lang: str = "en") -> bytes:
    """A native predictions file answering the fixture's first `n` Thai sentiment items."""
    rows = [{"task": "sentiment", "lang": "th", "item_id": it.item_id, "prompt_lang": prompt_lang,
             "prediction": answer} for it in load_items("sentiment", "th", limit=n, data_dir=DATA_DIR)]
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli(list(argv))
    return code, out.getvalue(), err.getvalue()


def issue(path: Path, name: str) -> str:
    code, out, _ = run_cli("uploader", "add", "--name", name, "--db", str(path))
    assert code == 0
    return out.strip().splitlines()[-1]


def card(path: Path, model_id: str) -> tuple | None:
    con = db.connect(path)
    try:
        return con.execute(f"SELECT {', '.join(CARD)} FROM models WHERE model_id = ?", [model_id]).fetchone()
    finally:
        con.close()


def owner(path: Path, model_id: str) -> str | None:
    con = db.connect(path)
    try:
        return con.execute("SELECT owner FROM models WHERE model_id = ?", [model_id]).fetchone()[0]
    finally:
        con.close()


def runs(path: Path, model_id: str | None = None) -> list[tuple]:
    con = db.connect(path)
    try:
        return con.execute("SELECT run_id, model_id, superseded, source_hash FROM runs WHERE ? IS NULL OR "
                           "model_id = ? ORDER BY ALL", [model_id, model_id]).fetchall()
    finally:
        con.close()


def upload_page(token: str, data: bytes, name: str = "preds.jsonl") -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / "upload.py"), default_timeout=90).run()
    next(t for t in at.text_input if t.label == "Upload token").set_value(token).run()
    at.file_uploader(key="file").upload(name, data, "application/json")
    return at.run()


def submit(at: AppTest, model: str, organisation: str = "", url: str = "") -> AppTest:
    field = {t.label: t for t in at.text_input}
    field["Model name"].set_value(model)
    field["Organisation"].set_value(organisation)
    field["URL"].set_value(url)
    next(b for b in at.button if b.label == "Score and import").click()
    return at.run()


def problems(at: AppTest) -> list[str]:
    """The problem column of the refusal's table (data, not Markdown)."""
    return [p for df in at.dataframe if "problem" in df.value.columns for p in df.value["problem"]]


def test_an_uploader_cannot_take_over_a_model_that_is_not_theirs(store_copy):
    """The attack: rows under the demo Gemma's name, organisation "Evil Corp" and a phishing URL. Refused; the card,
    the runs and which runs are current are all as before, and the refusal is audited."""
    eve = issue(store_copy, "eve")
    before_card, before_runs = card(store_copy, "Gemma-2B"), runs(store_copy)
    assert before_card[:4] == ("Gemma-2B", "Google", "https://example.org/gemma", "demo")
    assert owner(store_copy, "Gemma-2B") == "operator"
    with pages_on(store_copy):
        at = submit(upload_page(eve, native()), "Gemma-2B", "Evil Corp", "https://evil.example/login")
    assert card(store_copy, "Gemma-2B") == before_card and owner(store_copy, "Gemma-2B") == "operator"
    assert runs(store_copy) == before_runs
    assert not at.exception and not at.success
    assert any("'Gemma-2B' belongs to another uploader" in p for p in problems(at)), problems(at)
    con = db.connect(store_copy)
    try:
        audit = con.execute("SELECT actor, action, model_id FROM audit WHERE action <> 'uploader-token'").fetchall()
        assert con.execute("SELECT count(*) FROM audit WHERE contains(concat_ws(' ', actor, action, detail, "
                           "file_name), ?)", [eve]).fetchone() == (0,)
    finally:
        con.close()
    assert audit == [("uploader:eve (anonymous)", "reject", "Gemma-2B")]


def test_the_shared_upload_token_cannot_take_over_an_operator_model(store_copy, monkeypatch):
    monkeypatch.setenv("TANAW_UPLOAD_TOKEN", "shared-token")
    before_card, before_runs = card(store_copy, "Closed-XL"), runs(store_copy)
    with pages_on(store_copy):
        at = submit(upload_page("shared-token", native()), "Closed-XL", "Evil Corp", "https://evil.example/")
    assert (card(store_copy, "Closed-XL"), runs(store_copy)) == (before_card, before_runs)
    assert any("'Closed-XL' belongs to another uploader" in p for p in problems(at)), problems(at)


def test_a_model_belongs_to_the_uploader_who_created_it(store_copy):
    """Eve creates a model and adds to it; Mallory (her own token) and the command line cannot."""
    eve, mallory = issue(store_copy, "eve"), issue(store_copy, "mallory")
    with pages_on(store_copy):
        at = submit(upload_page(eve, native(4)), "Eve-7B", "Eve Labs", "https://eve.example/")
        assert any("imported 4 predictions" in s.value for s in at.success)
        at = submit(upload_page(eve, native(6, "Negative")), "Eve-7B", "Eve Labs")
        assert any("imported 6 predictions" in s.value for s in at.success)
        mine = card(store_copy, "Eve-7B"), runs(store_copy, "Eve-7B")
        at = submit(upload_page(mallory, native(8)), "Eve-7B", "Mallory Inc", "https://mallory.example/")
        assert any("'Eve-7B' belongs to another uploader" in p for p in problems(at)), problems(at)
    assert mine[0][:4] == ("Eve-7B", "Eve Labs", "https://eve.example/", "uploaded")
    assert owner(store_copy, "Eve-7B") == "uploader:eve"
    assert sorted(r[2] for r in mine[1]) == [False, True]  # her second file superseded her first (same cell)
    assert (card(store_copy, "Eve-7B"), runs(store_copy, "Eve-7B")) == mine
    path = store_copy.parent / "preds.jsonl"
    path.write_bytes(native(10))
    code, _, err = run_cli("ingest", str(path), "--model", "Eve-7B", "--format", "native", "--db", str(store_copy),
                           "--data-dir", str(DATA_DIR))
    assert code == 2 and "preds.jsonl: model: 'Eve-7B' belongs to another uploader" in err
    assert runs(store_copy, "Eve-7B") == mine[1]


def test_uploader_tokens_from_the_space_secret_name_their_uploader(store_copy, monkeypatch):
    """TANAW_UPLOADER_TOKENS ("name:token,..."; a Space secret, so it survives a restart) gives each uploader an
    identity of their own: Ann's model is hers and Bob's token cannot add to it or change its card."""
    monkeypatch.setenv("SPACE_ID", "tanaw/board")
    monkeypatch.setenv("TANAW_UPLOADER_TOKENS", "ann:ann-secret-token, bob:bob-secret-token")
    with pages_on(store_copy):
        at = submit(upload_page("ann-secret-token", native(4)), "Ann-3B", "Ann Lab", "https://ann.example/")
        assert any("imported 4 predictions" in s.value for s in at.success)
        mine = card(store_copy, "Ann-3B"), runs(store_copy, "Ann-3B")
        at = submit(upload_page("bob-secret-token", native(6)), "Ann-3B", "Bob Inc", "https://bob.example/")
        assert any("'Ann-3B' belongs to another uploader" in p for p in problems(at)), problems(at)
    assert owner(store_copy, "Ann-3B") == "uploader:ann"
    assert (card(store_copy, "Ann-3B"), runs(store_copy, "Ann-3B")) == mine


def test_lookalike_names_are_refused_naming_the_existing_model(store_copy, monkeypatch):
    """`GPT-5.5` exists (the operator's); the four spellings that only look like it are refused on the page (the
    shared upload token here), each naming `GPT-5.5`, and so is a look-alike of a paper-reported system."""
    from store.reference import load_reported

    path = store_copy.parent / "gpt.jsonl"
    path.write_bytes(native(3))
    code, out, err = run_cli("ingest", str(path), "--model", "GPT-5.5", "--format", "native", "--db",
                             str(store_copy), "--data-dir", str(DATA_DIR))
    assert code == 0, err
    con = db.connect(store_copy)
    try:
        load_reported(con)
    finally:
        con.close()
    monkeypatch.setenv("TANAW_UPLOAD_TOKEN", "shared-token")
    models = {r for r in runs(store_copy)}
    with pages_on(store_copy):
        at = upload_page("shared-token", native(5))
        for name in LOOKALIKES:
            at = submit(at, name, "Totally OpenAI")
            assert not at.success, name
            assert problems(at)[-1] == (f"{name!r} looks like the existing model 'GPT-5.5'; choose a name that "
                                        "cannot be mistaken for it"), name
        at = submit(at, "Claude\u2011Sonnet\u20114.6")
        assert problems(at)[-1].endswith("looks like 'Claude-Sonnet-4.6', a system the papers report results "
                                         "for; choose a name that cannot be mistaken for it")
        at = submit(at, "Claude-Sonnet-4.6")
        assert problems(at)[-1] == ("'Claude-Sonnet-4.6' is a system the papers report results for; choose a name "
                                    "of your own")
    assert set(runs(store_copy)) == models
    con = db.connect(store_copy)
    try:
        assert con.execute("SELECT count(*) FROM models WHERE model_id LIKE 'GP%'").fetchone() == (1,)
    finally:
        con.close()
    code, _, err = run_cli("ingest", str(path), "--model", "gpt-5.5", "--format", "native", "--db", str(store_copy),
                           "--data-dir", str(DATA_DIR))
    assert code == 2 and "'gpt-5.5' looks like the existing model 'GPT-5.5'" in err


def test_an_old_store_upgrades_with_every_model_the_operators(tmp_path):
    """A store written before ownership (migration 16) opens with an owner column: every model the operator's."""
    from store.schema import ensure_schema

    path = tmp_path / "old.duckdb"
    path.write_bytes(fixture_db().read_bytes())
    con = db.connect(path)
    try:
        con.execute("ALTER TABLE models DROP COLUMN owner")
        con.execute("DROP TABLE uploader_tokens")
        con.execute("DELETE FROM schema_version WHERE version = 16")
    finally:
        con.close()
    con = db.connect(path)  # applies the missing migration
    try:
        assert ensure_schema(con) >= 16
        assert con.execute("SELECT model_id, owner FROM models ORDER BY 1").fetchall() == [
            ("Closed-XL", "operator"), ("Gemma-2B", "operator"), ("SeaLion-9B-it", "operator")]
        assert con.execute("SELECT count(*) FROM uploader_tokens").fetchone() == (0,)
    finally:
        con.close()


def test_uploader_tokens_are_stored_hashed_and_revocable(store_copy):
    token = issue(store_copy, "eve")
    issue(store_copy, "bob")  # uploads stay open to token holders
    con = db.connect(store_copy)
    try:
        assert con.execute("SELECT token_hash FROM uploader_tokens WHERE uploader = 'eve'").fetchall() == [
            (access.token_hash(token),)]
    finally:
        con.close()
    assert [r.split()[0] for r in run_cli("uploader", "list", "--db", str(store_copy))[1].splitlines()[2:]] == [
        "bob", "eve"]
    with pages_on(store_copy):
        at = AppTest.from_file(str(REPO / "pages" / "upload.py"), default_timeout=90).run()
        next(t for t in at.text_input if t.label == "Upload token").set_value(token).run()
        assert not at.error and at.file_uploader
        assert run_cli("uploader", "revoke", "--name", "eve", "--db", str(store_copy))[0] == 0
        at.run()  # the same browser session, the same token: looked up again
    assert any("Uploads need a valid upload token" in e.value for e in at.error) and not at.file_uploader


def test_a_queued_request_cannot_take_over_or_imitate_a_model(store_copy, monkeypatch):
    """`queue add` (the page's check) refuses another identity's model and a look-alike name; a request written
    behind the page's back (a results-repo co-writer) fails at the worker's claim and runs nothing."""
    import argparse

    from services import worker

    monkeypatch.delenv("TANAW_RESULTS_REPO", raising=False)
    hub = ("--hub-model", "org/model", "--tasks", "sentiment", "--langs", "th", "--db", str(store_copy))
    code, _, err = run_cli("queue", "add", "--model", "Gemma-2B", *hub)
    assert code == 2 and "model_id: 'Gemma-2B' belongs to another uploader" in err
    code, _, err = run_cli("queue", "add", "--model", "Gemma\u20112B", *hub)
    assert code == 2 and "looks like the existing model 'Gemma-2B'" in err
    assert run_cli("queue", "add", "--model", "Fresh-1B", *hub)[0] == 0
    con = db.connect(store_copy)
    try:  # each refusal audited
        assert con.execute("SELECT action, model_id FROM audit ORDER BY happened_at").fetchall() == [
            ("reject", "Gemma-2B"), ("reject", "Gemma\u20112B")]
    finally:
        con.close()
    before = runs(store_copy), card(store_copy, "Closed-XL")
    con = db.connect(store_copy)
    try:
        con.execute("DELETE FROM submissions")
        con.execute("INSERT INTO submissions (request_id, model_id, backend, base_url, tasks, langs, prompt_langs, "
                    "item_limit) VALUES ('r1', 'Closed-XL', 'openai', 'https://evil.example/v1', 'sentiment', "
                    "'th', 'en', 1)")
    finally:
        con.close()
    parser = argparse.ArgumentParser()
    worker.add(parser.add_subparsers())
    assert worker.cmd_worker(parser.parse_args(["worker", "--db", str(store_copy), "--exit-when-empty"])) == 0
    con = db.connect(store_copy)
    try:
        assert con.execute("SELECT status, error FROM submissions").fetchall() == [(
            "FAILED", "refused: model_id: 'Closed-XL' belongs to another uploader: only they can add runs to it or "
                      "change its card; choose a name of your own")]
    finally:
        con.close()
    assert (runs(store_copy), card(store_copy, "Closed-XL")) == before


def test_a_live_run_refuses_another_identitys_model(store_copy):
    """`evaluator run` writes as the operator (or the spec's owner: the worker's runs are the queue's)."""
    from evaluator.runspec import RunSpec
    from services.run import run_and_report

    con = db.connect(store_copy)
    try:
        con.execute("INSERT INTO models (model_id, origin, owner) VALUES ('Eve-1B', 'uploaded', 'uploader:eve')")
    finally:
        con.close()
    spec = RunSpec(model="Eve-1B", backend="openai", base_url="http://127.0.0.1:9/v1", tasks="sentiment", langs="th",
                   db=str(store_copy))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert run_and_report(spec) == 2
    assert err.getvalue() == ("error: model: 'Eve-1B' belongs to another uploader: only they can add runs to it or "
                              "change its card; choose a name of your own\n")
    assert runs(store_copy, "Eve-1B") == []
