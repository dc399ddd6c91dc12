"""Export the whole store as Parquet partitioned by model and task, and import it back, checked by checksums.

Layout of an export folder (also the layout of the results dataset repo on the Hub):

    manifest.json                          format, schema version, per table: rows, checksum, partition keys
    <table>/model_id=<m>/task=<t>/data_0.parquet   per-item tables (predictions, scores, self_reported): model
                                           and task come from the row's run and are not written into the files
    <table>/model_id=<m>/data_0.parquet    tables with a model column (models, runs, aggregates, submissions, ...)
    <table>/task=<t>/data_0.parquet        tables with a task but no model column (items, tasks, reported)
    <table>/data_0.parquet                 everything else

Partition values are URL-encoded by DuckDB ("meta/llama 3" -> "meta%2Fllama%203"). A checksum is the order-independent
sum of DuckDB's `hash()` of every row, so an import that reproduces the same rows reproduces the same checksum.

A manifest is data from whoever can push to the results repo (SECURITY.md, "No SQL from data"): every table, column
and partition key it names is checked against this store's own schema (`checked_manifest`) and only the schema's
names, quoted, reach SQL; row counts and uncompressed sizes are read from the Parquet footers and checked against the
manifest and TANAW_IMPORT_MAX_GB before any row is read.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import duckdb

from store.schema import current_version
from store.schema_figures import ANSWERS_FROM_V7, ANSWERS_V14

FORMAT = "tanaw-parquet"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
SKIP_TABLES = ("schema_version", "hub_sync", "campaign_tokens", "uploader_tokens")
"""Tables never exported: migrations and the local log of Hub syncs belong to each store."""
PARTITION_KEYS = ("model_id", "task")
"""The only partition keys an export uses (see `partitioning`)."""
MAX_IMPORT_GB_ENV = "TANAW_IMPORT_MAX_GB"
"""Ceiling on the uncompressed size of one import, from the Parquet footers (default 20 GB)."""


class ParquetStoreError(ValueError):
    """An export folder that cannot be imported (missing manifest, unknown table, checksum mismatch)."""


@dataclass(frozen=True)
class TableExport:
    """What was written (or read) for one table."""

    table: str
    """Table name."""
    rows: int
    """Row count."""
    checksum: str
    """Order-independent checksum of every row (decimal string of a 128-bit sum)."""
    partition_by: tuple[str, ...]
    """Partition keys, in folder order; empty for a single file."""
    derived: bool
    """True when the partition keys come from `runs` rather than the table's own columns."""


def quote_ident(name: str) -> str:
    """A SQL identifier in double quotes (inner quotes doubled); callers pass names from the schema only."""
    return '"' + str(name).replace('"', '""') + '"'


def tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every base table of the main schema except schema_version, sorted."""
    rows = con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
        "AND table_type = 'BASE TABLE' ORDER BY table_name").fetchall()
    return [r[0] for r in rows if r[0] not in SKIP_TABLES]


def columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    """Column names of `table` in declaration order."""
    rows = con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'main' AND table_name = ? "
        "ORDER BY ordinal_position", [table]).fetchall()
    return [r[0] for r in rows]


def checksum(con: duckdb.DuckDBPyConnection, table: str, cols: list[str] | None = None) -> tuple[int, str]:
    """(row count, checksum) of a table: the sum of `hash(row)` over every row, independent of row order. `cols`:
    only these columns of it (checked names), as an export written before the later ones were added hashed them."""
    source = quote_ident(table) if cols is None else \
        f"(SELECT {', '.join(quote_ident(c) for c in cols)} FROM {quote_ident(table)})"
    n, total = con.execute(f"SELECT count(*), coalesce(sum(hash(t)), 0) FROM {source} AS t").fetchone()
    return int(n), str(int(total))


def partitioning(con: duckdb.DuckDBPyConnection, table: str) -> tuple[tuple[str, ...], bool]:
    """(partition keys, derived from runs?) for a table, chosen from its columns.

    Per-item tables (a run_id, no model column) are split by the model and task of their run: they hold nearly
    all the rows, and a new run only touches its own files. Per-model tables (runs, aggregates, models, ...) are
    split by model only, per-task tables (items, tasks) by task: finer splits would only add thousands of tiny
    files that every reader has to open.
    """
    cols = set(columns(con, table))
    if "run_id" in cols and "model_id" not in cols and table != "runs" and "runs" in tables(con):
        return ("model_id", "task"), True
    if "model_id" in cols:
        return ("model_id",), False
    if "task" in cols:
        return ("task",), False
    return (), False


def _q(path: Path | str) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _export_table(con: duckdb.DuckDBPyConnection, table: str, dest: Path) -> TableExport:
    keys, derived = partitioning(con, table)
    n, digest = checksum(con, table)
    cols = columns(con, table)
    order = ", ".join(quote_ident(c) for c in cols)
    if n == 0:
        return TableExport(table, 0, digest, keys, derived)
    if derived:
        sel = ", ".join(f"t.{quote_ident(c)}" for c in cols)
        source = (f"SELECT {sel}, r.model_id AS model_id, r.task AS task FROM {quote_ident(table)} t "
                  f"LEFT JOIN runs r ON r.run_id = t.run_id ORDER BY {sel}")
    else:
        source = f"SELECT * FROM {quote_ident(table)} ORDER BY {order}"
    out = dest / table
    if keys:
        opts = (f"FORMAT parquet, PARTITION_BY ({', '.join(quote_ident(k) for k in keys)}), "
                f"WRITE_PARTITION_COLUMNS {'false' if derived else 'true'}")
        con.execute(f"COPY ({source}) TO {_q(out)} ({opts})")
    else:
        out.mkdir(parents=True, exist_ok=True)
        con.execute(f"COPY ({source}) TO {_q(out / 'data_0.parquet')} (FORMAT parquet)")
    return TableExport(table, n, digest, keys, derived)


def export_store(con: duckdb.DuckDBPyConnection, dest: str | os.PathLike) -> dict[str, TableExport]:
    """Write every table under `dest` (replaced as a whole) plus manifest.json; returns what was written per table.

    The export is built in a sibling temporary folder and renamed into place, so `dest` is never half-written.
    Rows are written in a fixed order with one thread, so unchanged data gives byte-identical files (the Hub then
    skips them on push).
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
    con.execute("SET threads = 1")
    try:
        done = {t: _export_table(con, t, tmp) for t in tables(con)}
        manifest = {
            "format": FORMAT, "format_version": FORMAT_VERSION, "schema_version": current_version(con),
            "tables": {t: {"rows": e.rows, "checksum": e.checksum, "partition_by": list(e.partition_by),
                           "derived_partitions": e.derived, "columns": columns(con, t)} for t, e in done.items()},
        }
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        if dest.exists():
            old = dest.with_name(f".{dest.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            dest.rename(old)
            tmp.rename(dest)
            shutil.rmtree(old, ignore_errors=True)
        else:
            tmp.rename(dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        con.execute(f"SET threads = {int(threads)}")
    return done


def read_manifest(src: str | os.PathLike) -> dict:
    """The parsed manifest.json of an export folder; ParquetStoreError naming the file when absent or invalid."""
    path = Path(src) / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ParquetStoreError(f"{path}: no manifest; not a Tanaw Parquet export") from None
    except json.JSONDecodeError as e:
        raise ParquetStoreError(f"{path}: line {e.lineno}: invalid JSON ({e.msg})") from None
    if manifest.get("format") != FORMAT or not isinstance(manifest.get("tables"), dict):
        raise ParquetStoreError(f"{path}: field 'format' must be {FORMAT!r} with a 'tables' object")
    return manifest


def _fail(where: str, message: str) -> ParquetStoreError:
    return ParquetStoreError(f"{where}: {message}")


def checked_manifest(con: duckdb.DuckDBPyConnection, manifest: dict, where: str) -> dict[str, dict]:
    """The manifest's tables with every name checked against this store's schema: tables must exist here, columns
    must be columns of that table, partition keys one of PARTITION_KEYS, rows a count and checksum a number.
    Raises ParquetStoreError naming the manifest field; nothing from the manifest is ever formatted into SQL."""
    known = set(tables(con))
    out: dict[str, dict] = {}
    for table, meta in manifest["tables"].items():
        field = f"{where}: tables.{table!r}"
        if table not in known:
            raise _fail(where, f"tables {sorted(set(manifest['tables']) - known)} do not exist in this store "
                               f"(export schema v{manifest.get('schema_version')}, store v{current_version(con)})")
        if not isinstance(meta, dict):
            raise _fail(field, "must be an object")
        rows, digest = meta.get("rows"), meta.get("checksum")
        if not isinstance(rows, int) or isinstance(rows, bool) or rows < 0:
            raise _fail(f"{field}.rows", f"must be a row count, not {rows!r}")
        if not isinstance(digest, str) or not digest.lstrip("-").isdigit():
            raise _fail(f"{field}.checksum", "must be a decimal number in a string")
        own = columns(con, table)
        cols = meta.get("columns") or own
        if not isinstance(cols, list) or any(not isinstance(c, str) or c not in own for c in cols):
            bad = [c for c in cols if c not in own] if isinstance(cols, list) else cols
            raise _fail(f"{field}.columns", f"{bad!r} are not columns of table {table!r} in this store")
        keys = meta.get("partition_by") or []
        if not isinstance(keys, list) or any(k not in PARTITION_KEYS for k in keys):
            raise _fail(f"{field}.partition_by", f"{keys!r}: partition keys are among {PARTITION_KEYS}")
        out[table] = {**meta, "columns": [c for c in own if c in set(cols)], "partition_by": list(keys)}
    return out


def _max_import_bytes() -> int:
    return int(float(os.environ.get(MAX_IMPORT_GB_ENV) or 20) * 1024 ** 3)


def check_footers(con: duckdb.DuckDBPyConnection, files: list[Path] | str, rows: int, where: str,
                  table: str) -> None:
    """Refuse before reading any row: the files' row counts (from their footers) must equal the manifest's, and
    their uncompressed size must stay under TANAW_IMPORT_MAX_GB. `files` is a list of paths or one glob."""
    if not files:
        if rows:
            raise _fail(where, f"table {table!r} has 0 rows (no Parquet files), manifest says {rows} rows")
        return
    names = files if isinstance(files, str) else [str(f) for f in files]
    try:
        n = con.execute("SELECT coalesce(sum(num_rows), 0) FROM parquet_file_metadata(?)", [names]).fetchone()[0]
        size = con.execute("SELECT coalesce(sum(total_uncompressed_size), 0) FROM parquet_metadata(?)",
                           [names]).fetchone()[0]
    except duckdb.Error as e:
        raise _fail(where, f"unreadable Parquet footer ({str(e).splitlines()[0]})") from None
    if int(n) != rows:
        raise _fail(where, f"table {table!r} has {n} rows in the files' footers, manifest says {rows} rows; "
                           "nothing was read")
    if int(size) > _max_import_bytes():
        raise _fail(where, f"{int(size) / 1024 ** 3:.1f} GB uncompressed is over the import limit "
                           f"({MAX_IMPORT_GB_ENV}={_max_import_bytes() / 1024 ** 3:g})")


DERIVED_TABLES = ("drill_cells", "drill_nodes", "item_outcomes", "run_counts", "failed_flags",
                  "campaign_provisional", "campaign_quality", "language_alphas", "campaign_computed",
                  "model_usage", "drill_levels", "pair_tests", "reported_normalized", "cell_field",
                  "parse_failures", "control_ceilings", "run_self_reported")
"""Drill-down pre-aggregates (schema V7), derived from runs and answers with per-store cell numbers, the
human-evaluation figures (V9), derived from judgements, the usage and drill-down levels per model (V10, V11),
derived from runs and node counts, the stored page figures (V12: normalised reported rows, a cell's field, parse
failures, control ceilings, per-run means of a file's own scores), derived from reported rows, aggregates and runs,
and the paired tests between systems (V13), derived from item outcomes: never merged (a merge would mix two stores'
numbering, or keep figures of rows that the merge changed); emptied by a replace whose export lacks them. The wiring
(`services.hub_sync.rollup_all`: roll-ups with usage, levels and page figures, `backfill_drilldowns`,
`refresh_stale`, `backfill_page_figures`, `backfill_pair_tests`) recomputes what is left without them."""

MERGE_PREFER = {"submissions": "CASE {t}.status WHEN 'PENDING' THEN 0 WHEN 'RUNNING' THEN 1 ELSE 2 END"}
"""Merge rule for rows present on both sides: the incoming row replaces the local one when this rank is higher
(a request the worker finished must not go back to PENDING). Other tables keep the local row."""


def primary_key(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    """Primary-key columns of `table` (empty when it has none)."""
    row = con.execute("SELECT constraint_column_names FROM duckdb_constraints() WHERE schema_name = 'main' "
                      "AND table_name = ? AND constraint_type = 'PRIMARY KEY'", [table]).fetchone()
    return list(row[0]) if row else []


def _stage(con: duckdb.DuckDBPyConnection, src: Path, table: str, meta: dict) -> str:
    """Load one table's files into a temp table shaped like `table`, checked against the (checked) manifest."""
    staged = f"_import_{table}"
    con.execute(f"CREATE OR REPLACE TEMP TABLE {quote_ident(staged)} AS SELECT * FROM {quote_ident(table)} LIMIT 0")
    files = sorted((src / table).rglob("*.parquet")) if (src / table).is_dir() else []
    check_footers(con, files, meta["rows"], str(src / table), table)
    before_v14 = table == "item_outcomes" and bool(files) and legacy_answers(con, [str(f) for f in files])
    if before_v14:  # staged as exported, so the checksum is the export's; converted below
        con.execute(f"ALTER TABLE {quote_ident(staged)} ALTER answers SET DATA TYPE {ANSWERS_V7}")
    if files:
        cols = ", ".join(quote_ident(c) for c in meta["columns"])
        con.execute(f"INSERT INTO {quote_ident(staged)} ({cols}) SELECT {cols} FROM "
                    "read_parquet(?, hive_partitioning = false, union_by_name = true)", [[str(f) for f in files]])
    own = columns(con, table)
    n, digest = checksum(con, staged, None if meta["columns"] == own else meta["columns"])  # an older export's
    if n != meta["rows"] or digest != meta["checksum"]:
        raise ParquetStoreError(
            f"{src / table}: table {table!r} has {n} rows / checksum {digest} in the files, manifest says "
            f"{meta['rows']} rows / checksum {meta['checksum']}")
    if before_v14:
        con.execute(f"ALTER TABLE {quote_ident(staged)} ALTER answers SET DATA TYPE {ANSWERS_V14} "
                    f"USING {ANSWERS_FROM_V7}")
    return staged


ANSWERS_V7 = "STRUCT(run_no INTEGER, ord VARCHAR, value DOUBLE)[]"
"""item_outcomes.answers as exports before schema V14 hold them (each answer's order as text)."""


def legacy_answers(con: duckdb.DuckDBPyConnection, files: list[str] | str) -> bool:
    """Whether item_outcomes files (a list or one glob; the first file's schema is read) hold answers as exports
    before schema V14 wrote them, with an `ord` text field (item_outcomes has no column of that name)."""
    return con.execute("SELECT count(*) FROM (DESCRIBE SELECT answers FROM read_parquet(?)) "
                       "WHERE column_type LIKE '%ord VARCHAR%'", [files]).fetchone()[0] > 0


def _merge(con: duckdb.DuckDBPyConnection, table: str, staged: str) -> None:
    key = primary_key(con, table)
    t, x = quote_ident(table), quote_ident(staged)
    if not key:
        con.execute(f"INSERT INTO {t} SELECT * FROM {x} EXCEPT SELECT * FROM {t}")
        return
    rank = MERGE_PREFER.get(table)
    if rank:
        on = " AND ".join(f"l.{quote_ident(k)} = x.{quote_ident(k)}" for k in key)
        con.execute(f"DELETE FROM {t} AS l USING {x} AS x WHERE {on} "
                    f'AND ({rank.format(t="x")}) > ({rank.format(t="l")})')
    con.execute(f"INSERT OR IGNORE INTO {t} SELECT * FROM {x}")


def import_store(con: duckdb.DuckDBPyConnection, src: str | os.PathLike, *, mode: str = "replace",
                 only: Sequence[str] | None = None) -> dict[str, TableExport]:
    """Load an export into the store in one transaction; returns what the export held per table.

    Every table's files are first staged and checked against the manifest's row count and checksum. Then
    mode "replace" makes each table named in the manifest identical to the export, and mode "merge" adds the
    rows whose primary key the store lacks (keeping local rows, except by MERGE_PREFER). Any mismatch, unknown
    table or unreadable file rolls everything back and raises ParquetStoreError naming the table. `only` limits
    the import to some tables (e.g. a Space that pulls the small tables and reads per-item rows from hf://).
    """
    if mode not in ("replace", "merge"):
        raise ValueError(f"mode must be 'replace' or 'merge', not {mode!r}")
    src = Path(src)
    manifest = read_manifest(src)
    if only is not None:
        manifest["tables"] = {t: m for t, m in manifest["tables"].items() if t in set(only)}
    manifest["tables"] = checked_manifest(con, manifest, str(src / MANIFEST))
    if mode == "merge":
        manifest["tables"] = {t: m for t, m in manifest["tables"].items() if t not in DERIVED_TABLES}
    stale = [t for t in DERIVED_TABLES if mode == "replace" and "runs" in manifest["tables"]
             and t not in manifest["tables"] and t in tables(con)]
    done: dict[str, TableExport] = {}
    staged: list[str] = []
    con.execute("BEGIN TRANSACTION")
    try:
        for table in stale:
            con.execute(f"DELETE FROM {quote_ident(table)}")
        for table, meta in sorted(manifest["tables"].items()):
            staged.append(_stage(con, src, table, meta))
            if mode == "replace":
                con.execute(f"DELETE FROM {quote_ident(table)}")
                con.execute(f"INSERT INTO {quote_ident(table)} SELECT * FROM {quote_ident(staged[-1])}")
            else:
                _merge(con, table, staged[-1])
            done[table] = TableExport(table, meta["rows"], meta["checksum"], tuple(meta.get("partition_by", ())),
                                      bool(meta.get("derived_partitions")))
        for name in staged:
            con.execute(f"DROP TABLE {quote_ident(name)}")
        con.execute("COMMIT")
    except BaseException as e:
        con.execute("ROLLBACK")
        if isinstance(e, duckdb.Error):
            raise ParquetStoreError(f"{src}: import failed: {e}") from e
        raise
    return done
