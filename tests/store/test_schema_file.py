"""store/schema.sql is the current schema: a new store created from it has exactly the tables, columns, types,
defaults, keys and views that an old store gets by applying every migration, and records every version."""
from __future__ import annotations

import duckdb

from store.schema import MIGRATIONS, VIEWS, ensure_schema


def _shape(con) -> dict:
    cols = con.execute("""SELECT table_name, column_index, column_name, data_type, column_default, is_nullable
                          FROM duckdb_columns() WHERE schema_name = 'main' ORDER BY ALL""").fetchall()
    keys = con.execute("""SELECT table_name, constraint_type, constraint_column_names FROM duckdb_constraints()
                          WHERE schema_name = 'main' ORDER BY ALL""").fetchall()
    kinds = con.execute("SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'main' "
                        "ORDER BY ALL").fetchall()
    return {"columns": cols, "keys": keys, "kinds": kinds}


def test_a_new_store_from_schema_sql_is_an_old_store_after_every_migration():
    new = duckdb.connect(":memory:")
    ensure_schema(new)
    old = duckdb.connect(":memory:")
    for version, stmts in MIGRATIONS:
        for stmt in stmts:
            old.execute(stmt)
        old.execute("INSERT INTO schema_version (version) VALUES (?)", [version])
    assert _shape(new) == _shape(old)
    assert new.execute("SELECT list(version ORDER BY version) FROM schema_version").fetchone()[0] == \
        [v for v, _ in MIGRATIONS]
    kinds = dict(_shape(new)["kinds"])
    assert VIEWS and all(kinds[v] == "VIEW" for v in VIEWS)
    assert sum(k == "BASE TABLE" for k in kinds.values()) == 43 - len(VIEWS) + 3  # 43 before V17; V19 2, V20 1


def _before_views(con) -> dict:
    """Turn a current store back into one written before V17: the views' figures stored in tables of their names
    (as V7 and V12 made them); returns those figures."""
    figures = {v: con.execute(f"SELECT * FROM {v} ORDER BY ALL").fetchall() for v in VIEWS}
    for view in VIEWS:
        con.execute(f"DROP VIEW {view}")
        con.execute(next(s for _, stmts in MIGRATIONS for s in stmts if f"EXISTS {view} (" in s))
        for row in figures[view]:
            con.execute(f"INSERT INTO {view} VALUES ({', '.join(['?'] * len(row))})", list(row))
    con.execute("DELETE FROM schema_version WHERE version >= 17")
    return figures


def test_an_old_store_and_an_old_export_get_the_views_with_the_same_figures(tmp_path, monkeypatch):
    """A store written before V17 (its parse failures, own-score means and failed flags in tables) is upgraded to the
    views, with the same rows; its export (which holds those tables' files) imports into a current store, whose
    views give them too."""
    from store import db, parquet
    from store.parquet import export_store, import_store
    from tests.helpers.store_fixture import filled_store

    con = filled_store()
    con.execute("INSERT INTO run_counts (run_id, answers, unparsed) SELECT run_id, 4, 1 FROM runs")
    con.execute("INSERT INTO self_reported SELECT run_id, 'x' || k, 'acc', k / 4 FROM runs, range(3) t(k)")
    con.execute("INSERT INTO metrics VALUES ('acc', 'Accuracy', true, true)")
    con.execute("INSERT INTO item_outcomes (cell_no, model_id, task, lang, prompt_lang, metric, item_id, value, "
                "right_all) SELECT 1, r.model_id, r.task, r.lang, r.prompt_lang, s.metric, s.item_id, s.value, "
                "s.value >= 1 FROM scores s JOIN runs r ON r.run_id = s.run_id")
    figures = _before_views(con)
    assert all(figures[v] for v in VIEWS)
    with monkeypatch.context() as m:  # exported as the code before the views did: those tables were public
        m.setattr(parquet, "PUBLIC_TABLES", (*parquet.PUBLIC_TABLES, *VIEWS))
        manifest = export_store(con, tmp_path / "old")
    assert all(v in manifest for v in VIEWS)  # the old export holds them as tables
    ensure_schema(con)
    assert {v: con.execute(f"SELECT * FROM {v} ORDER BY ALL").fetchall() for v in VIEWS} == figures
    assert con.execute("SELECT count(*) FROM information_schema.tables WHERE table_type = 'VIEW'").fetchone()[0] == \
        len(VIEWS)
    fresh = db.connect(":memory:")
    import_store(fresh, tmp_path / "old")
    assert {v: fresh.execute(f"SELECT * FROM {v} ORDER BY ALL").fetchall() for v in VIEWS} == figures
