"""Fuzz (docs/security.md, "Uploads and rendering"): 1,040 malformed or hostile uploads in every format (native,
pacute-bench, SEA-HELM, lm-eval, their summaries; many as zip members; lone UTF-16 surrogates in every string field)
are each refused with a message naming the upload (the surrogates with their line and field), none raises or hits an
internal error, and the store is unchanged but for one audit row per refusal ingested; a valid file under 60
spellings that only look like an existing model's name is refused, naming it; re-encoded valid files (CR, CRLF, BOM,
U+2028 in strings, zipped) import every row."""
from __future__ import annotations

import itertools
from collections import Counter

import pytest

from evaluator.formats.limits import Limits
from evaluator.formats.mapping import ItemIndex
from evaluator.formats.read import read_upload
from services.upload import ingest_upload
from store.db import connect
from tests.helpers import upload_files as U
from tests.helpers.fuzz_files import hostile_files
from tests.helpers.fuzz_uploads import KINDS, SURROGATE_KINDS, lookalike_names, more_hostile, valid_variants

pytestmark = pytest.mark.needs_samples

# Small limits keep the hostile files small (and the test fast); the code paths are those of the defaults.
LIMITS = Limits(max_bytes=1024 * 1024, max_line_bytes=64 * 1024, max_unpacked_bytes=4 * 1024 * 1024,
                max_ratio=100.0, max_members=50)
INGEST_EVERY = 8
"""Every refusal is read; one in this many also goes through the store's write path (the rest would only add the
same audit row, and the writer lock costs tens of milliseconds each)."""


def _all_counts(con) -> dict[str, int]:
    tables = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
    return {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}


def test_hostile_uploads_are_refused_and_every_table_unchanged(tmp_path):
    db = tmp_path / "fuzz.duckdb"
    index = ItemIndex(U.DATA)
    seed = read_upload(U.jsonl(U.seahelm_sentiment_rows(5)), "m_sentiment_id.jsonl", index=index)
    assert ingest_upload(db, seed, model={"model_id": "baseline-model-e1"}).status == "imported"
    app = connect(db)  # held open as the app's cached connection is: writers share its database instance
    before = _all_counts(app.cursor())
    kinds: Counter = Counter()
    ingested = 0
    for i, (kind, name, data) in enumerate(itertools.chain(hostile_files(520), more_hostile(520))):
        up = read_upload(data, name, limits=LIMITS, index=index)  # raising here fails the test: no traceback
        assert not up.ok, (kind, name, [str(w) for w in up.warnings][:3])
        first = up.errors[0]
        assert first.problem and first.file.split("!")[0] == name.split("!")[0], (kind, name, str(first))
        assert not any("internal error" in e.problem for e in up.errors), (kind, name, [str(e) for e in up.errors])
        assert len(up.errors) <= LIMITS.max_errors + 2, (kind, name, len(up.errors))
        if kind in SURROGATE_KINDS:  # refused at read time, naming the line and field
            assert any("lone UTF-16 surrogate" in e.problem and e.line and e.field for e in up.errors), \
                (kind, name, [str(e) for e in up.errors][:3])
        if i % INGEST_EVERY == 0:
            out = ingest_upload(db, up, model={"model_id": "fuzz"}, actor="fuzz")
            assert out.status == "rejected", (kind, name, out.message)
            ingested += 1
        kinds[kind] += 1
    assert sum(kinds.values()) == 1040 and len(kinds) == 21 + len(KINDS)
    valid = read_upload(U.jsonl(U.seahelm_sentiment_rows(6)), "m_sentiment_id.jsonl", index=index)
    for how, name in lookalike_names("baseline-model-e1", 60):
        out = ingest_upload(db, valid, model={"model_id": name}, actor="fuzz")
        assert out.status == "rejected" and [str(e) for e in out.errors] == [
            f"m_sentiment_id.jsonl: model: {name.strip()!r} looks like the existing model 'baseline-model-e1'; "
            "choose a name that cannot be mistaken for it"], (how, name, out.message)
        ingested += 1
    after = _all_counts(app.cursor())
    app.close()
    assert after.pop("audit") == before.pop("audit") + ingested  # one "reject" audit row per refusal written
    assert after == before


def test_reencoded_valid_files_import_every_row():
    index = ItemIndex(U.DATA)
    for name, data, rows in valid_variants(100):
        up = read_upload(data, name, limits=LIMITS, index=index)
        assert up.ok and len(up.predictions) == rows, (name, [str(e) for e in up.errors][:3])
        assert sorted(p.line for p in up.predictions) == sorted(set(p.line for p in up.predictions))
