"""Fuzz: 520 malformed or hostile files are each refused with a message naming the file, and the store is unchanged."""
from __future__ import annotations

from collections import Counter

import pytest

from services.upload import ingest_upload
from evaluator.formats.limits import Limits
from evaluator.formats.mapping import ItemIndex
from evaluator.formats.read import read_upload
from store.db import connect
from tests import upload_files as U
from tests.fuzz_files import hostile_files

pytestmark = pytest.mark.needs_samples

# Small limits keep the hostile files small (and the test fast); the code paths are those of the defaults.
LIMITS = Limits(max_bytes=1024 * 1024, max_line_bytes=64 * 1024, max_unpacked_bytes=4 * 1024 * 1024,
                max_ratio=100.0, max_members=50)


def _all_counts(con) -> dict[str, int]:
    tables = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
    return {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}


def test_hostile_files_are_refused_and_every_table_unchanged(tmp_path):
    db = tmp_path / "fuzz.duckdb"
    index = ItemIndex(U.DATA)
    seed = read_upload(U.jsonl(U.seahelm_sentiment_rows(5)), "m_sentiment_id.jsonl", index=index)
    assert ingest_upload(db, seed, model={"model_id": "baseline"}).status == "imported"
    app = connect(db)  # held open as the app's cached connection is: writers share its database instance
    before = _all_counts(app.cursor())
    kinds: Counter = Counter()
    for kind, name, data in hostile_files(520):
        up = read_upload(data, name, limits=LIMITS, index=index)
        out = ingest_upload(db, up, model={"model_id": "fuzz"}, actor="fuzz")
        assert out.status == "rejected", (kind, name, out.message)
        first = out.errors[0]
        assert first.problem and first.file.split("!")[0] == name.split("!")[0], (kind, name, str(first))
        kinds[kind] += 1
    assert sum(kinds.values()) == 520 and len(kinds) == 20
    after = _all_counts(app.cursor())
    app.close()
    assert after.pop("audit") == before.pop("audit") + 520  # one "reject" audit row per refused file
    assert after == before
