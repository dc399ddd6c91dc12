"""`python -m evaluator uploader add|revoke|list`: the operator issues personal upload tokens.

An uploader's token (shown once; only its sha256 is stored) opens the Upload page and names its holder: the models
they create belong to "uploader:<name>", and no other uploader (nor the shared TANAW_UPLOAD_TOKEN, nor the command
line) can add runs to them or change their cards. `add` for a known name issues a new token (the old one stops
working); `revoke` closes the page to them (their models stay theirs).
"""
from __future__ import annotations

import argparse
import sys

from cli.common import print_table

EXAMPLE = """examples:
  python -m evaluator uploader add --name sealion-team
  python -m evaluator uploader list
  python -m evaluator uploader revoke --name sealion-team"""


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("uploader", help="issue, list or revoke personal upload tokens", description=__doc__,
                       epilog=EXAMPLE, formatter_class=argparse.RawTextHelpFormatter)
    actions = p.add_subparsers(dest="uploader_command", required=True)
    for name, helptext, func in (("add", "issue a token (a new one for a known name)", cmd_add),
                                 ("revoke", "revoke an uploader's token", cmd_revoke)):
        a = actions.add_parser(name, help=helptext)
        a.add_argument("--name", required=True, help="the uploader (letters, digits, '-', '_', '.')")
        a.add_argument("--db", help="DuckDB file (default: $TANAW_DB, else ~/.tanaw/tanaw.duckdb)")
        a.set_defaults(func=func)
    ls = actions.add_parser("list", help="uploaders with a token and how many models they own")
    ls.add_argument("--db", help="DuckDB file (default: $TANAW_DB, else ~/.tanaw/tanaw.duckdb)")
    ls.set_defaults(func=cmd_list)


def _actor() -> str:
    from services.upload import default_actor

    return default_actor()


def cmd_add(args: argparse.Namespace) -> int:
    from services.gate import issue_uploader
    from store.writer_lock import WriterBusy

    try:
        token = issue_uploader(args.db, args.name, actor=_actor())
    except (ValueError, WriterBusy) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"uploader {args.name.strip()}: token (shown once; give it to them privately):")
    print(token)
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    from services.gate import revoke_uploader
    from store.writer_lock import WriterBusy

    try:
        found = revoke_uploader(args.db, args.name, actor=_actor())
    except WriterBusy as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not found:
        print(f"error: no uploader {args.name.strip()!r}", file=sys.stderr)
        return 2
    print(f"uploader {args.name.strip()}: token revoked")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from cli.common import read_store
    from store import owners

    con = read_store(args.db)
    try:
        rows = owners.uploaders(con)
    finally:
        con.close()
    print_table([(n, by, str(at)[:19], k) for n, by, at, k in rows], ["uploader", "issued by", "issued at", "models"])
    return 0
