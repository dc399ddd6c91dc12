"""Markup from data is shown as text (docs/security.md, "Uploads and rendering"): a model named in Streamlit's Markdown
(tests/helpers/hostile_names.py) reaches every page only through `pages._ui.md_escape` (Markdown bodies and labels)
or `plot_text` (Plotly), and a results repo whose manifest names a Markdown table gets a fixed banner, with the
detail and the server's paths kept for the operator's log."""
from __future__ import annotations

import json
import logging

import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers.fixtures_store import app_test, pages_on
from tests.helpers.hostile_names import ESCAPED, NAME, REPO, TABLE, hostile_manifest, hostile_store, hub_env
from tests.helpers.hub_standin import HubStandin

PLAIN = {"selectbox", "multiselect", "code", "text", "arrow_data_frame", "plotly_chart", "json", "text_input"}
"""Element types Streamlit shows as plain text (their values are the raw name); all others read Markdown."""
RAW_MARKUP = ("](https", ":red[", "**VERIFIED**", ":material/verified:", "$x^2$", ":smile:", "<b>")
"""Pieces of NAME that would be drawn as markup if they reached Markdown unescaped."""


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory):
    path = hostile_store(tmp_path_factory.mktemp("markup") / "hostile.duckdb")
    with pages_on(path):
        yield path


NOT_SHOWN = {"id", "form_id", "url", "file_name", "key"}
"""Proto fields that are not drawn (widget ids embed the widget's key)."""


def _strings(message, out: list[str]) -> list[str]:
    """Every string field of a protobuf message that is drawn, nested messages included."""
    for field, value in message.ListFields():
        if field.name in NOT_SHOWN:
            continue
        scalar = isinstance(value, (str, bytes, int, float)) or hasattr(value, "ListFields")
        values = [value] if scalar else list(value)  # a repeated field
        for v in values:
            if isinstance(v, str):
                out.append(v)
            elif hasattr(v, "ListFields"):
                _strings(v, out)
    return out


def markdown_strings(at: AppTest) -> list[str]:
    """What the page hands Streamlit to render as Markdown: bodies, captions, alerts, and the labels and options of
    widgets, buttons, download buttons, metrics, expanders and tabs (plain-text elements left out)."""
    found: list[str] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None and getattr(node, "type", None) not in PLAIN:
            _strings(proto, found)
        for child in getattr(node, "children", {}).values():
            walk(child)
    walk(at._tree)
    return found


def plotly_specs(at: AppTest) -> str:
    return " ".join(c.proto.spec for c in at.get("plotly_chart"))


def _run(page: str, **params) -> AppTest:
    at = app_test(page, **params)
    assert not at.exception, [e.value for e in at.exception]
    return at


def _assert_shown_as_text(at: AppTest) -> list[str]:
    texts = markdown_strings(at)
    raw = [t for t in texts if any(piece in t for piece in RAW_MARKUP)]
    assert raw == [], raw  # no piece of the name reached Markdown unescaped
    spec = plotly_specs(at)
    assert "<b>" not in spec and "\\u003cb\\u003e" not in spec.lower()  # Plotly shows `<b>` as text, never bold
    return texts


def test_md_escape_neutralises_every_markdown_form_streamlit_reads():
    from pages._ui import md_escape

    assert md_escape(NAME) == ESCAPED
    assert md_escape(TABLE).count("\\[") == 3 and "](" not in md_escape(TABLE)
    assert md_escape(":streamlit: :material/home:") == "\\:\u2060streamlit\\: \\:\u2060material/home\\:"


def test_model_page_download_labels_and_card_hold_the_name_escaped(hostile_db):
    at = _run("model", model=NAME)
    assert at.selectbox(key="model").value == NAME  # a selectbox shows its options as plain text
    texts = _assert_shown_as_text(at)
    labels = [b.proto.label for b in at.get("download_button")]
    assert f"Download model\\_{ESCAPED}\\_cells (CSV)" in labels
    assert f"Download model\\_{ESCAPED}\\_runs (CSV)" in labels
    assert all(ESCAPED in label for label in labels)
    assert any(ESCAPED in t for t in texts)
    fails = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert {t["name"] for t in fails["data"]} == {"en", "native"}


def test_lindsea_page_labels_hold_the_name_escaped(hostile_db):
    at = _run("lindsea", model=NAME, lang="id")
    assert at.selectbox(key="model").value == NAME
    _assert_shown_as_text(at)
    labels = [b.proto.label for b in at.get("download_button")]
    assert f"Download lindsea\\_{ESCAPED}\\_id\\_tasks (CSV)" in labels
    assert f"Download lindsea\\_{ESCAPED}\\_id\\_items (CSV)" in labels


def test_leaderboard_shows_the_name_only_as_text(hostile_db):
    at = _run("leaderboard", bench="BHASA")
    _assert_shown_as_text(at)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "![t](https://evil.example/t.png) :red[**VERIFIED**] :material/verified: $x^2$ :smile: &lt;b>bold&lt;/b>" \
        in spec["data"][0]["y"]
    assert NAME in set(at.dataframe[0].value["model"])  # the grid holds the name as text


@pytest.mark.parametrize("page, params", [
    ("pacute", {"models": NAME}),
    ("cultural", {"lang": "id", "models": NAME}),
    ("compare", {"task": "lindsea-mp", "lang": "id", "sys": f"{NAME}|en"}),
])
def test_other_pages_with_the_name_escape_it(hostile_db, page, params):
    at = _run(page, **params)
    texts = _assert_shown_as_text(at)
    plain = [t.value for t in at.text]  # st.text: plain text, no Markdown to escape
    assert any(ESCAPED in t for t in texts) or any(t[2:].startswith(NAME) for t in plain), texts


def _banner_script():
    from pages._hub import sync_banner

    sync_banner()


def test_hub_banner_is_a_fixed_sentence_and_the_detail_goes_to_the_log(hostile_db, tmp_path, monkeypatch, caplog):
    from pages import _hub

    home = tmp_path / "home"
    with HubStandin() as standin:
        standin.create_repo(REPO, {"manifest.json": hostile_manifest()})
        for key, value in hub_env(standin.url, home).items():
            monkeypatch.setenv(key, value)
        _hub._pull.clear()
        _hub._state.clear()
        with caplog.at_level(logging.WARNING, logger="tanaw.hub"):
            at = AppTest.from_function(_banner_script, default_timeout=60).run()
    _hub._pull.clear()
    assert not at.exception, [e.value for e in at.exception]
    assert [w.value for w in at.warning] == ["The results repository could not be read; serving the last good data."]
    logged = caplog.text
    assert str(home) in logged and "ALL RESULTS VERIFIED" in logged  # the operator's log has the whole refusal

    at = _run("queue")  # the sync log on the queue page: the refusal without the server's folders
    log = at.dataframe[-1].value
    message = log.loc[log["ok"] == False, "message"].iloc[0]  # noqa: E712 (a pandas mask)
    assert str(home) not in message and "/hub/" not in message
    assert message.startswith(f"Could not pull results from {REPO} (ParquetStoreError: manifest.json: tables [")


def _push_script():
    from pages._hub import push_changes, sync_banner

    sync_banner()
    push_changes()


@pytest.mark.parametrize("ok", [True, False])
def test_push_outcomes_are_fixed_sentences(hostile_db, monkeypatch, ok):
    """A push's status (a pull request URL from the Hub, a refusal quoting the repo) is logged, never shown."""
    from pages import _hub
    from services import hub_sync

    said = f"Opened pull request https://evil.example/pr on {REPO}: {TABLE} /srv/tanaw/hub/snapshots/x"
    monkeypatch.setenv("TANAW_RESULTS_REPO", REPO)
    monkeypatch.setattr(_hub, "_pull", lambda: hub_sync.SyncStatus("pull", True, "current"))
    monkeypatch.setattr(hub_sync, "changed", lambda state, con: True)
    monkeypatch.setattr(hub_sync, "push_changes", lambda state: hub_sync.SyncStatus("push", ok, said, REPO))
    _hub._state.clear()
    at = AppTest.from_function(_push_script, default_timeout=60).run()
    _hub._state.clear()
    assert not at.exception, [e.value for e in at.exception]
    if ok:
        assert [t.value for t in at.toast] == ["Saved to the results repository."] and not at.warning
    else:
        assert [w.value for w in at.warning] == [
            "The latest changes could not be saved to the results repository; they are kept here."]
