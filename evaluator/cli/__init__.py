"""CLI subcommands, one module each: `add(subparsers)` registers the parser and sets `func(args) -> int`."""
COMMANDS = ("tasks", "items", "ingest", "leaderboard", "queue", "worker", "export", "run", "data", "campaign",
            "uploader")
"""Module names under evaluator/cli, in help order; add yours here."""
MODULES = {"worker": "services.worker"}
"""Commands whose module lives outside evaluator/cli (the wiring in `services/`)."""
