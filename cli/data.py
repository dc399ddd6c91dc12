"""`python -m evaluator data pull [--only FAMILY] [--dest DIR]`: the public datasets, from their own sources."""
from __future__ import annotations

import sys

from evaluator.datasets import pulled_data_dir
from evaluator.datasets.pull import FAMILIES, PullError, pull


def add(sub) -> None:
    p = sub.add_parser("data", help="get the public benchmark data (data pull)")
    data_sub = p.add_subparsers(dest="data_command", required=True)
    q = data_sub.add_parser("pull", help="download the public datasets at pinned revisions into Tanaw's layout")
    q.add_argument("--only", default=None, metavar="FAMILY",
                   help=f"one family ({', '.join(FAMILIES)}) or one source name (see sources.toml)")
    q.add_argument("--dest", default=None, help=f"data folder to write (default: {pulled_data_dir()})")
    q.add_argument("--base-url", default=None,
                   help="raw-file mirror for GitHub-hosted sources (default: $TANAW_PULL_BASE_URL or "
                        "https://raw.githubusercontent.com)")
    q.add_argument("--no-progress", action="store_true", help="no progress bars")
    q.set_defaults(func=run)


def run(args) -> int:
    try:
        report = pull(args.dest, only=args.only, base_url=args.base_url, progress=not args.no_progress,
                      say=lambda line: print(line, file=sys.stderr))
    except PullError as e:
        print(str(e) if str(e).startswith("data pull:") else f"data pull: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"data pull: cannot write {args.dest or pulled_data_dir()}: {e.strerror}; nothing was changed",
              file=sys.stderr)
        return 2
    n_files = sum(len(v) for v in report.written.values())
    print(f"wrote {n_files} files from {len(report.written)} sources into {report.dest}")
    for name, why in report.unavailable.items():
        print(f"unavailable: {name}: {why}")
    if report.recorded:
        print(f"recorded the checksum of {len(report.recorded)} file(s) the lock could not verify "
              f"(checked on later pulls)")
    print("licences: see tanaw-pull.json in the data folder (several datasets are non-commercial)")
    return 0
