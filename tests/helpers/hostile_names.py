"""Markup an attacker puts where a page shows data: a model name and a results-repo manifest table name written in
Streamlit's Markdown (image, link, colour, bold, LaTeX, emoji and Material-icon shortcodes, HTML), the fixture store
with one of its models renamed to that name, and the Hub stand-in serving that manifest (docs/security.md, "Uploads and
rendering")."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.helpers.fixtures_store import fixture_db

NAME = "![t](https://evil.example/t.png) :red[**VERIFIED**] :material/verified: $x^2$ :smile: <b>bold</b>"
"""A model name that Streamlit's Markdown would draw as an image, red bold text, an icon, a formula and an emoji."""

ESCAPED = ("\\!\\[t\\]\\(https\\:\u2060//evil\\.example/t\\.png\\) \\:\u2060red\\[\\*\\*VERIFIED\\*\\*\\] "
           "\\:\u2060material/verified\\: \\$x^2\\$ \\:\u2060smile\\: \\<b\\>bold\\</b\\>")
"""NAME as the pages must hand it to Streamlit, written out by hand: every Markdown character backslash-escaped,
a word joiner (U+2060) after each colon that a non-space follows, so no `:shortcode:` or `https://` survives."""

TABLE = ("![x](https://evil.example/hub.png) [ALL RESULTS VERIFIED](https://evil.example/ok) "
         ":green[**ALL RESULTS VERIFIED**]")
"""A table name in a results-repo manifest: an image, a live link and green bold text if it reached a banner."""

RENAMED = "Gemma-2B"
"""The fixture model that carries NAME (it has LINDSEA, PACUTE, sentiment and cultural answers)."""

REPO = "tanaw/results"


def hostile_store(path: Path) -> Path:
    """A copy of the fixture store at `path` with RENAMED called NAME in every column that names a model."""
    from store.db import connect

    shutil.copyfile(fixture_db(), path)
    con = connect(path)
    try:
        targets = con.execute("SELECT c.table_name, c.column_name FROM information_schema.columns c "
                              "JOIN information_schema.tables t USING (table_schema, table_name) "
                              "WHERE c.table_schema = 'main' AND t.table_type = 'BASE TABLE' "
                              "AND c.column_name IN ('model_id', 'model_a', 'model_b')").fetchall()
        con.execute("BEGIN")
        for table, column in targets:  # names from the schema, not from data
            con.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE "{column}" = ?', [NAME, RENAMED])
        con.execute("COMMIT")
    finally:
        con.close()
    return path


def hostile_manifest() -> bytes:
    """A manifest naming TABLE (the import refuses it, and the refusal names the table and the file)."""
    from store.parquet import FORMAT, FORMAT_VERSION

    return json.dumps({"format": FORMAT, "format_version": FORMAT_VERSION, "schema_version": 1,
                       "tables": {TABLE: {"rows": 0, "checksum": "0"}}}).encode()


def hub_env(standin_url: str, home: Path) -> dict[str, str]:
    """The app's environment for a results repo on the stand-in, with the Hub's work folder under `home`."""
    return {"TANAW_RESULTS_REPO": REPO, "HF_TOKEN": "read-token", "HF_ENDPOINT": standin_url,
            "TANAW_HOME": str(home)}
