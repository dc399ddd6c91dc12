"""`tanaw`, the installed command: `tanaw app` serves the Streamlit app, every other command is
`python -m evaluator`'s (`cli.main`; `tanaw ingest FILE --model M` is `python -m evaluator ingest FILE --model M`).

Paths come from this file's location, never the working directory: the app is the `app.py` beside this module
(in a clone or in site-packages), and Streamlit reads the `.streamlit/config.toml` beside it.
"""
from __future__ import annotations

import sys
from pathlib import Path

APP = Path(__file__).resolve().with_name("app.py")
USAGE = "tanaw app [STREAMLIT OPTIONS]: serve the app (e.g. tanaw app --server.port 8501 --server.headless true)"


def serve(argv: list[str]) -> int:
    """`streamlit run <app.py> ARGV` in this process (Ctrl+C or SIGTERM stops it)."""
    from streamlit.web import cli as streamlit_cli

    try:
        streamlit_cli.main(args=["run", str(APP), *argv], prog_name="tanaw app")
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """The console script's entry point."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["app"]:
        return serve(args[1:])
    if not args or args[0] in ("-h", "--help"):
        print(USAGE + "\ntanaw COMMAND ...: the commands below (`tanaw COMMAND --help` for one)\n")
    from cli.main import run

    return run(args or ["--help"], prog="tanaw")


if __name__ == "__main__":
    sys.exit(main())
