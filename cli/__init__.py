"""The command line (`python -m cli`, also `python -m evaluator`): one module per subcommand, whose `add(subparsers)`
registers its parser and sets `func(args) -> int`. It sits above evaluator, store and services (it wires them, as
the app does) and nothing imports it; `cli.main` builds the parser and runs a command."""
COMMANDS = ("tasks", "items", "ingest", "leaderboard", "queue", "worker", "export", "run", "data", "results",
            "campaign", "uploader", "judge", "judge-import", "declare", "leakage")
"""Module names under cli/, in help order; add yours here."""
MODULES = {"worker": "services.worker"}
"""Commands whose module lives outside cli/ (the wiring in `services/`)."""
