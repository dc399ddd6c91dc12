"""Spreadsheet-safe CSV: the one neutraliser of formula cells, used by the pages' downloads and grids (pages._ui)
and by the command line's CSV exports (`python -m evaluator campaign export --format csv`).

A text cell starting with `=`, `+`, `-`, `@`, tab or CR is read by spreadsheets as a formula (OWASP CSV injection:
`=HYPERLINK(...)`, `+cmd|...`, `@SUM(...)`); such cells get a leading `'`, which spreadsheets show as text. Numbers
are untouched. See docs/security.md, "Uploads and rendering"."""
from __future__ import annotations

import os

import pandas as pd

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula (OWASP CSV injection)."""


def sheet_cell(value: object) -> object:
    """A text cell a spreadsheet would run as a formula, prefixed with `'`; anything else unchanged."""
    return "'" + value if isinstance(value, str) and value.startswith(_FORMULA_START) else value


def sheet_safe(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of `df` whose text cells and column names are neutralised with `sheet_cell` (numbers untouched)."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col].dtype):
            out[col] = out[col].map(sheet_cell)
    out.columns = [sheet_cell(c) for c in out.columns]
    return out


def csv_bytes(df: pd.DataFrame) -> bytes:
    """CSV of `df` (UTF-8, no index) with formula cells neutralised."""
    return sheet_safe(df).to_csv(index=False).encode()


def write_csv(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write `df` as CSV to `path` with formula cells neutralised (`csv_bytes`)."""
    with open(path, "wb") as f:
        f.write(csv_bytes(df))
