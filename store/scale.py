"""Query a Parquet export directly when results outgrow one DuckDB file: views named like the store's tables.

`connect_parquet(root)` opens an in-memory DuckDB whose `models`, `runs`, `predictions`, `scores`, `aggregates`, ...
are views over `<root>/<table>/**/*.parquet` (the layout of store/parquet.py), so every function in store/queries
runs unchanged. `root` is a local folder, `hf://datasets/<org>/<repo>[@<rev>]` (the results repo itself) or
`s3://bucket/prefix`. Partition folders are read as hive partitions: filters on `model_id` / `task` skip whole
files, and per-run tables (predictions, scores) gain `model_id` and `task` columns for such filters.

The manifest is data (docs/security.md, "No SQL from data"): tables must be tables of the store's schema and partition
keys among parquet.PARTITION_KEYS (`parquet.checked_manifest`) before any name reaches a statement, quoted.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb

from store import parquet
from store.schema_figures import ANSWERS_FROM_V7

REMOTE_PREFIXES = ("hf://", "s3://", "gs://", "http://", "https://")


class ScaleError(RuntimeError):
    """A remote Parquet store cannot be opened (DuckDB's httpfs extension unavailable)."""


def is_remote(root: str) -> bool:
    """Whether `root` is read over the network (needs DuckDB's httpfs extension)."""
    return str(root).startswith(REMOTE_PREFIXES)


def _enable_remote(con: duckdb.DuckDBPyConnection, root: str, token: str | None) -> None:
    try:
        con.execute("LOAD httpfs")
    except duckdb.Error:
        try:
            con.execute("INSTALL httpfs")
            con.execute("LOAD httpfs")
        except duckdb.Error as e:
            raise ScaleError(f"{root}: DuckDB's httpfs extension is needed for remote Parquet and could not be "
                             f"installed ({str(e).splitlines()[0]}); install it once with INSTALL httpfs") from e
    if root.startswith("hf://") and token:
        con.execute("CREATE OR REPLACE SECRET tanaw_hf (TYPE huggingface, TOKEN ?)", [token])
    if root.startswith("s3://"):
        con.execute("CREATE OR REPLACE SECRET tanaw_s3 (TYPE s3, PROVIDER credential_chain)")


def _quote(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def table_glob(root: str, table: str, partition_by: tuple[str, ...] | list[str]) -> str:
    """The glob of one table's Parquet files under `root`."""
    return f"{root.rstrip('/')}/{table}/{'**/' if partition_by else ''}*.parquet"


def view_sql(root: str, table: str, partition_by: tuple[str, ...] | list[str] = ("model_id", "task"),
             select: str = "*") -> str:
    """The CREATE VIEW statement for one table under `root`; partition values stay strings (a model named
    "123" is not a number). Every file of one export has the same schema, so the first file's is used
    (union_by_name would read every footer on every query: 4-16x slower at 1M rows). `table` must be a table of
    the schema and `partition_by` among parquet.PARTITION_KEYS (ValueError otherwise: a view parameter cannot be
    bound, so only checked names are written into the statement, quoted). `select`: the view's columns (a
    constant of this code, e.g. item outcomes of an export before schema V14 converted)."""
    if not str(table).replace("_", "").isalnum() or any(k not in parquet.PARTITION_KEYS for k in partition_by):
        raise ValueError(f"table {table!r} / partition keys {list(partition_by)!r} are not names of the store")
    glob = table_glob(root, table, partition_by)
    types = ", ".join(f"{_quote(k)}: VARCHAR" for k in partition_by)
    hive = f"hive_partitioning = true, hive_types = {{{types}}}" if partition_by else "hive_partitioning = false"
    return (f"CREATE OR REPLACE VIEW {parquet.quote_ident(table)} AS SELECT {select} FROM "
            f"read_parquet({_quote(glob)}, {hive})")


def _columns_of(con: duckdb.DuckDBPyConnection, root: str, table: str, partition_by: tuple[str, ...] | list[str]
                ) -> str:
    """What a view or load selects from one table's files: every column, item outcomes' answers of an export
    written before schema V14 (each answer's order as text) converted to the store's shape."""
    if table == "item_outcomes" and parquet.legacy_answers(con, table_glob(root, table, partition_by)):
        return f"* REPLACE ({ANSWERS_FROM_V7} AS answers)"
    return "*"


def manifest_tables(con: duckdb.DuckDBPyConnection, root: str) -> dict[str, dict]:
    """The manifest's tables (name -> rows, partition_by, ...), read locally or through DuckDB for remote roots,
    every name checked against the schema of `con` (parquet.checked_manifest; ParquetStoreError otherwise)."""
    where = f"{root.rstrip('/')}/{parquet.MANIFEST}"
    if is_remote(root):
        text = con.execute("SELECT content FROM read_text(?)", [where]).fetchone()[0]
        try:
            manifest = json.loads(text)
        except json.JSONDecodeError as e:
            raise parquet.ParquetStoreError(f"{where}: line {e.lineno}: invalid JSON ({e.msg})") from None
        if manifest.get("format") != parquet.FORMAT or not isinstance(manifest.get("tables"), dict):
            raise parquet.ParquetStoreError(f"{where}: field 'format' must be {parquet.FORMAT!r} with 'tables'")
    else:
        manifest = parquet.read_manifest(root)
    return parquet.checked_manifest(con, manifest, where)


PER_ITEM_TABLES = ("predictions", "scores", "self_reported", "item_outcomes")
"""Tables that grow with every answer: left in Parquet as views. The rest (models, runs, aggregates, items, ...)
is small enough to load into memory, which spares every page query a listing of thousands of files."""


def attach_parquet(con: duckdb.DuckDBPyConnection, root: str | os.PathLike, *, token: str | None = None,
                   views: tuple[str, ...] | None = PER_ITEM_TABLES) -> dict[str, str]:
    """Bring the export at `root` into `con` under the store's table names; returns {table: "view" | "loaded"}.

    Tables in `views` (None = all) become views over their files, replacing a table of the same name; the others
    are loaded into the existing (empty) tables of the schema. Tables the export left empty are skipped.
    """
    root = str(root)
    if is_remote(root):
        _enable_remote(con, root, token or os.environ.get("HF_TOKEN"))
    con.execute("SET parquet_metadata_cache = true")
    present = set(parquet.tables(con))
    made = {}
    for table, meta in sorted(manifest_tables(con, root).items()):
        if not meta.get("rows"):
            continue
        keys = meta.get("partition_by") or ()
        create = view_sql(root, table, keys, _columns_of(con, root, table, keys))
        if table in present and (views is None or table in views):
            con.execute(f"DROP TABLE {parquet.quote_ident(table)}")
        if table in present and views is not None and table not in views:
            glob = table_glob(root, table, meta.get("partition_by") or ())
            parquet.check_footers(con, glob, meta["rows"], glob, table)  # counts and size before reading a row
            if not is_remote(root):  # the files' bytes against the manifest, then their decoded size, before loading
                files = parquet.table_files(Path(root), table)
                parquet.check_files(Path(root), table, files, meta)
                parquet.check_decoded_size(files)
            # the columns the export has: an older one lacks the later ones (run counts' sums before V15), NULL here
            cols = ", ".join(parquet.quote_ident(c) for c in meta["columns"])
            source = create.split(" AS ", 1)[1]
            con.execute(f"INSERT INTO {parquet.quote_ident(table)} ({cols}) SELECT {cols} FROM ({source})")
            made[table] = "loaded"
        else:
            con.execute(create)
            made[table] = "view"
    return made


def connect_parquet(root: str | os.PathLike, *, token: str | None = None, threads: int | None = None,
                    views: tuple[str, ...] | None = PER_ITEM_TABLES) -> duckdb.DuckDBPyConnection:
    """An in-memory store (the full schema) over the Parquet export at `root`: per-item tables as views, the
    rest loaded (see attach_parquet). The same queries run as on the DuckDB file."""
    from store.db import connect

    con = connect(":memory:")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    attach_parquet(con, root, token=token, views=views)
    return con
