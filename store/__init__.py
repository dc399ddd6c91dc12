"""DuckDB store: schema and migrations, ingest, every query the pages use, Hub sync."""
