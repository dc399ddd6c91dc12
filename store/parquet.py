"""Export the store's public tables as Parquet partitioned by model and task, and import them back, checked by
checksums.

Layout of an export folder (also the layout of the results dataset repo on the Hub):

    manifest.json                          format, schema version, per table: rows, checksum, partition keys
    <table>/model_id=<m>/task=<t>/data_0.parquet   per-item tables (predictions, scores, self_reported): model
                                           and task come from the row's run and are not written into the files
    <table>/model_id=<m>/data_0.parquet    tables with a model column (models, runs, aggregates, rollups, ...)
    <table>/task=<t>/data_0.parquet        tables with a task but no model column (items, tasks, reported)
    <table>/data_0.parquet                 everything else

Partition values are URL-encoded by DuckDB ("meta/llama 3" -> "meta%2Fllama%203"). A checksum is the order-independent
sum of DuckDB's `hash()` of every row, so an import that reproduces the same rows reproduces the same checksum.

A manifest is data from whoever can push to the results repo (docs/security.md, "No SQL from data"): every table, column
and partition key it names is checked against this store's own schema (`checked_manifest`) and only the schema's
names, quoted, reach SQL; row counts and uncompressed sizes are read from the Parquet footers and checked against the
manifest and TANAW_IMPORT_MAX_GB before any row is read. The manifest lists each table's files with their sha256,
checked before a file is decoded, and an import's decoded size is counted while streaming its files before any row
is materialised (`check_decoded_size`).

Only public tables (store.schema.PUBLIC_TABLES) are exported, pushed or imported; private ones (the audit trail,
the submission queue, the human evaluation's blind key and judgements, ...) never leave their store, and an export
or results repo that holds them has them skipped unread.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import duckdb

from store.queue import merge_staged
from store.schema import PUBLIC_TABLES, VIEWS, current_version
from store.schema_figures import ANSWERS_FROM_V7, ANSWERS_V14

FORMAT = "tanaw-parquet"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
PARTITION_KEYS = ("model_id", "task")
"""The only partition keys an export uses (see `partitioning`)."""
MAX_IMPORT_GB_ENV = "TANAW_IMPORT_MAX_GB"
"""Ceiling on the uncompressed size of one import, from the Parquet footers (default 20 GB)."""
MAX_DECODE_RATIO = 200
"""Ceiling on an import's decoded bytes per byte of its Parquet files (exports of real stores decode to at most
~20 times their size); a file that decodes to far more (2,000,000 copies of one dictionary value) is a bomb."""
DECODE_FLOOR_BYTES = 64 * 1024 ** 2
"""Decoded bytes an import may always reach, whatever its files' size (small stores)."""


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


def schema_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every base table of the main schema, public or private, sorted."""
    rows = con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
        "AND table_type = 'BASE TABLE' ORDER BY table_name").fetchall()
    return [r[0] for r in rows]


def tables(con: duckdb.DuckDBPyConnection, carries: Sequence[str] | None = None) -> list[str]:
    """The store's public tables (store.schema.PUBLIC_TABLES present in it), sorted: the only tables an export or a
    Hub push writes and an import or a pull reads; every other table is private and stays in its store. `carries`
    names other tables instead, for the private queue repo only (store.hub.QUEUE_TABLES)."""
    chosen = set(PUBLIC_TABLES if carries is None else carries)
    return [t for t in schema_tables(con) if t in chosen]


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


def export_store(con: duckdb.DuckDBPyConnection, dest: str | os.PathLike,
                 carries: Sequence[str] | None = None) -> dict[str, TableExport]:
    """Write every public table (`tables`) under `dest` (replaced as a whole) plus manifest.json; returns what was
    written per table. Private tables (store.schema.PRIVATE_TABLES) are never written, unless named by `carries`
    (the private queue repo's tables, written instead of the public ones).

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
        done = {t: _export_table(con, t, tmp) for t in tables(con, carries)}
        manifest = {
            "format": FORMAT, "format_version": FORMAT_VERSION, "schema_version": current_version(con),
            "tables": {t: {"rows": e.rows, "checksum": e.checksum, "partition_by": list(e.partition_by),
                           "derived_partitions": e.derived, "columns": columns(con, t),
                           "files": {f.relative_to(tmp / t).as_posix(): file_sha256(f)
                                     for f in table_files(tmp, t)}} for t, e in done.items()},
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


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in chunks."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def table_files(root: Path, table: str) -> list[Path]:
    """The Parquet files of one table of an export folder, sorted."""
    return sorted((root / table).rglob("*.parquet")) if (root / table).is_dir() else []


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


def checked_manifest(con: duckdb.DuckDBPyConnection, manifest: dict, where: str,
                     carries: Sequence[str] | None = None) -> dict[str, dict]:
    """The manifest's public tables with every name checked against this store's schema: tables must exist here
    (private ones, store.schema.PRIVATE_TABLES, and the tables of figures that are views now, store.schema.VIEWS,
    are left out unread), columns must be columns of that table, partition keys one of PARTITION_KEYS, rows a count
    and checksum a number.
    Raises ParquetStoreError naming the manifest field; nothing from the manifest is ever formatted into SQL.
    `carries`: read these tables instead of the public ones (the private queue repo)."""
    known, public = set(schema_tables(con)), set(tables(con, carries))
    out: dict[str, dict] = {}
    for table, meta in manifest["tables"].items():
        if table in VIEWS:  # an older export's stored figures, a view of the imported rows here
            continue
        field = f"{where}: tables.{table!r}"
        if table not in known:
            raise _fail(where, f"tables {sorted(set(manifest['tables']) - known)} do not exist in this store "
                               f"(export schema v{manifest.get('schema_version')}, store v{current_version(con)})")
        if table not in public:  # a private table in the repo (an older export, or planted): never read
            continue
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
        files = meta.get("files")
        if files is not None and (not isinstance(files, dict) or any(
                not isinstance(k, str) or not isinstance(v, str) or len(v) != 64 for k, v in files.items())):
            raise _fail(f"{field}.files", "must map each file's path to its sha256 (64 hex digits)")
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


def check_files(src: Path, table: str, files: list[Path], meta: dict) -> None:
    """Refuse before decoding anything: when the manifest lists the table's files with their sha256 (exports
    since the list was added), the files on disk must be exactly those, byte for byte."""
    listed = meta.get("files")
    if listed is None:
        return
    where = src / table
    found = {f.relative_to(where).as_posix(): f for f in files}
    extra, missing = sorted(set(found) - set(listed)), sorted(set(listed) - set(found))
    if extra or missing:
        raise _fail(str(where), f"files {extra or missing} are {'not in' if extra else 'missing from'} the "
                                "manifest's list; nothing was read")
    for name, path in found.items():
        if file_sha256(path) != listed[name]:
            raise _fail(str(path), "sha256 differs from the manifest's; nothing was read")


def _byte_leaves(pf) -> list[str]:
    return [c.path for c in pf.schema if c.physical_type == "BYTE_ARRAY"]


def decoded_bytes(array) -> int:
    """Bytes an Arrow array holds once its values are decoded, counted without decoding dictionary values: a
    dictionary array counts each index as its value's length (plus a 4-byte offset), nested arrays their children
    (a file's own Arrow schema may declare any type)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array, pa.DictionaryArray):
        try:
            lengths = pc.binary_length(pc.cast(array.dictionary, pa.large_binary()))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):  # not text: values of one width each
            return len(array) * -(-decoded_bytes(array.dictionary) // max(len(array.dictionary), 1))
        return int(pc.sum(lengths.take(array.indices)).as_py() or 0) + 4 * len(array)
    if isinstance(array, pa.MapArray):
        return decoded_bytes(array.keys) + decoded_bytes(array.items) + 4 * len(array)
    if isinstance(array, (pa.ListArray, pa.LargeListArray, pa.FixedSizeListArray)):
        return decoded_bytes(array.flatten()) + 4 * len(array)
    if isinstance(array, pa.StructArray):
        return sum(decoded_bytes(array.field(i)) for i in range(array.type.num_fields)) + len(array) // 8
    return array.nbytes


def check_decoded_size(files: list[Path]) -> int:
    """Refuse an import whose files decode to more than MAX_DECODE_RATIO times their bytes (at least
    DECODE_FLOOR_BYTES) or TANAW_IMPORT_MAX_GB, before any row is materialised: first by the pages' uncompressed
    size the footers declare (a file is not read past a declared excess), then by streaming the files in batches
    with every string column kept dictionary-encoded (pyarrow) and counting the decoded size, not building it, so
    peak memory stays at one batch's indices and dictionaries. Returns the decoded size."""
    import pyarrow.parquet as pq

    size = sum(f.stat().st_size for f in files)
    budget = min(max(DECODE_FLOOR_BYTES, MAX_DECODE_RATIO * size), _max_import_bytes())
    total = declared = 0
    for path in files:
        try:
            plain = pq.ParquetFile(path)
            meta = plain.metadata
            declared += sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
            reader = pq.ParquetFile(path, metadata=meta, read_dictionary=_byte_leaves(plain), pre_buffer=False)
            batches = reader.iter_batches(batch_size=8192) if declared <= budget else ()  # pages as they say
            for batch in batches:
                total += sum(decoded_bytes(column) for column in batch.columns)
                if total > budget:
                    break
            if max(total, declared) > budget:
                raise _fail(str(path), f"the import's files decode to more than {budget / 1024 ** 2:,.0f} MB "
                                       f"by this one (at most {MAX_DECODE_RATIO} times their "
                                       f"{size / 1024 ** 2:,.2f} MB, at least {DECODE_FLOOR_BYTES // 1024 ** 2} "
                                       f"MB, at most {MAX_IMPORT_GB_ENV}); nothing was imported")
        except (OSError, ValueError) as e:  # pyarrow's errors derive from these; ParquetStoreError is a ValueError
            if isinstance(e, ParquetStoreError):
                raise
            raise _fail(str(path), f"unreadable Parquet file ({str(e).splitlines()[0] if str(e) else e})") from None
    return total


DERIVED_TABLES = ("drill_cells", "drill_nodes", "item_outcomes", "run_counts",
                  "campaign_provisional", "campaign_quality", "language_alphas", "campaign_computed",
                  "model_usage", "drill_levels", "pair_tests", "reported_normalized", "cell_field",
                  "control_ceilings")
"""Drill-down pre-aggregates (schema V7), derived from runs and answers with per-store cell numbers, the
human-evaluation figures (V9), derived from judgements, the usage and drill-down levels per model (V10, V11),
derived from runs and node counts, the stored page figures (V12: normalised reported rows, a cell's field, control
ceilings), derived from reported rows and aggregates,
and the paired tests between systems (V13), derived from item outcomes: never merged (a merge would mix two stores'
numbering, or keep figures of rows that the merge changed); emptied by a replace whose export lacks them. The wiring
(`services.hub_sync.rollup_all`: roll-ups with usage, levels and page figures, `backfill_drilldowns`,
`refresh_stale`, `backfill_page_figures`, `backfill_pair_tests`) recomputes what is left without them."""

def primary_key(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    """Primary-key columns of `table` (empty when it has none)."""
    row = con.execute("SELECT constraint_column_names FROM duckdb_constraints() WHERE schema_name = 'main' "
                      "AND table_name = ? AND constraint_type = 'PRIMARY KEY'", [table]).fetchone()
    return list(row[0]) if row else []


def _stage(con: duckdb.DuckDBPyConnection, src: Path, table: str, meta: dict) -> str:
    """Load one table's files into a temp table shaped like `table`, checked against the (checked) manifest."""
    staged = f"_import_{table}"
    con.execute(f"CREATE OR REPLACE TEMP TABLE {quote_ident(staged)} AS SELECT * FROM {quote_ident(table)} LIMIT 0")
    files = table_files(src, table)
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
    if table == "submissions":  # the queue: by request id, the later status wins
        return merge_staged(con, staged)
    key = primary_key(con, table)
    t, x = quote_ident(table), quote_ident(staged)
    if not key:
        con.execute(f"INSERT INTO {t} SELECT * FROM {x} EXCEPT SELECT * FROM {t}")
        return
    con.execute(f"INSERT OR IGNORE INTO {t} SELECT * FROM {x}")


def import_store(con: duckdb.DuckDBPyConnection, src: str | os.PathLike, *, mode: str = "replace",
                 only: Sequence[str] | None = None, carries: Sequence[str] | None = None) -> dict[str, TableExport]:
    """Load an export into the store in one transaction; returns what the export held per table.

    Before anything is decoded, every table's files are checked against the manifest's list of files and their
    sha256 (`check_files`), their footers against its row counts (`check_footers`), and their decoded size against
    MAX_DECODE_RATIO (`check_decoded_size`). Then every table's files are staged and checked against the
    manifest's row count and row checksum. Private tables named by the manifest are never read. Then
    mode "replace" makes each table named in the manifest identical to the export, and mode "merge" adds the
    rows whose primary key the store lacks (keeping local rows). Any mismatch, unknown
    table or unreadable file rolls everything back and raises ParquetStoreError naming the table. `only` limits
    the import to some tables (e.g. a Space that pulls the small tables and reads per-item rows from hf://);
    `carries` reads other tables instead of the public ones (the private queue repo, store.hub.QUEUE_TABLES).
    """
    if mode not in ("replace", "merge"):
        raise ValueError(f"mode must be 'replace' or 'merge', not {mode!r}")
    src = Path(src)
    manifest = read_manifest(src)
    if only is not None:
        manifest["tables"] = {t: m for t, m in manifest["tables"].items() if t in set(only)}
    manifest["tables"] = checked_manifest(con, manifest, str(src / MANIFEST), carries)
    if mode == "merge":
        manifest["tables"] = {t: m for t, m in manifest["tables"].items() if t not in DERIVED_TABLES}
    stale = [t for t in DERIVED_TABLES if mode == "replace" and "runs" in manifest["tables"]
             and t not in manifest["tables"] and t in tables(con)]
    every: list[Path] = []
    for table, meta in sorted(manifest["tables"].items()):  # before anything is decoded: bytes, footers, size
        files = table_files(src, table)
        check_files(src, table, files, meta)
        check_footers(con, files, meta["rows"], str(src / table), table)
        every += files
    check_decoded_size(every)
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
