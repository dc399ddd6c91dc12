"""A command line never ends in a traceback: a file that is not a store, or an unexpected error, is one `error:`
line with a non-zero exit (the traceback only with TANAW_DEBUG set)."""
from __future__ import annotations

import pytest

import cli.leaderboard
from cli.main import run


def test_a_file_that_is_not_a_store_is_one_line(tmp_path, capsys):
    path = tmp_path / "notes.duckdb"
    path.write_text("not a database\n")
    assert run(["leaderboard", "--db", str(path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: the store could not be used: ")


def test_an_unexpected_error_is_one_line_unless_debugging(tmp_path, capsys, monkeypatch):
    def broken(args):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(cli.leaderboard, "run", broken)
    monkeypatch.delenv("TANAW_DEBUG", raising=False)
    assert run(["leaderboard", "--db", str(tmp_path / "x.duckdb")]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: internal error (RuntimeError: boom); a write in progress was rolled back. Set TANAW_DEBUG=1 to see "
        "the traceback."]
    monkeypatch.setenv("TANAW_DEBUG", "1")
    with pytest.raises(RuntimeError, match="boom"):
        run(["leaderboard", "--db", str(tmp_path / "x.duckdb")])
