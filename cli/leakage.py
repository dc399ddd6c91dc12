"""`tanaw leakage`: probe a model for benchmark leakage (opt-in; it asks the model, unlike the signals read from
stored outputs). Probes: guided vs general instance completion, TS-Guessing, Min-K%++ (docs/methodology.md,
"Leakage probes"). Each verdict is stored as a leakage signal of the model's (task, language), shown on every
prompt language's cell of it (a probe asks about the dataset's items, not about one prompt)."""
from __future__ import annotations

import argparse
import re
import sys

from evaluator import runspec
from evaluator.runspec import ConfigError

EXAMPLE = """example (a vLLM server; Min-K%++ needs its /v1/completions with echo + logprobs):
  python -m evaluator leakage --model sea-lion-v4-27b --served-model aisingapore/Gemma-SEA-LION-v4-27B-IT \\
      --base-url http://localhost:8000/v1 --tasks abssum,qa --langs id,th --limit 100 --db tanaw.duckdb"""


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("leakage", help="probe a model for benchmark leakage (guided completion, TS-Guessing, "
                                       "Min-K%%++) into the store",
                       description=__doc__, epilog=EXAMPLE, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--config", help="YAML run spec (the `run` command's settings: model, base_url, ...)")
    p.add_argument("--model", help="model name as stored and shown")
    p.add_argument("--served-model", help="model id the server expects, if different from --model")
    p.add_argument("--base-url", help="OpenAI-compatible base URL including /v1")
    p.add_argument("--api-key-env", help="environment variable holding the API key (default: none sent)")
    p.add_argument("--backend", choices=("http", "llamacpp"),
                   help="http (default): an OpenAI-compatible server; llamacpp: in-process GGUF")
    p.add_argument("--model-path", help="GGUF file for --backend llamacpp")
    p.add_argument("--n-ctx", type=int, help="context window for --backend llamacpp (default 4096)")
    p.add_argument("--chat-format", help="chat format for --backend llamacpp when the GGUF carries no template")
    p.add_argument("--tasks", help="comma list of task ids, aliases or families (default: all)")
    p.add_argument("--langs", help="comma list of languages (default: every language of a task)")
    p.add_argument("--limit", type=int, help="at most N items per task and language")
    p.add_argument("--probes", default="guided,ts,minkpp",
                   help="comma list of guided, ts, minkpp (default: all three; each skips the cells it cannot "
                        "probe, saying why)")
    p.add_argument("--split", default="test", help="split named in the guided prompt (default: test)")
    p.add_argument("--calibration-dir",
                   help="data folder of texts the model cannot have seen, laid out like --data-dir (default: the "
                        "repo's demo items, data/demo)")
    p.add_argument("--top-k", type=int, default=20, help="alternatives per prompt token for Min-K%%++ (default 20)")
    p.add_argument("--max-tokens", type=int, help="generation budget of a completion or a guessed option "
                                                  "(default 256)")
    p.add_argument("-c", "--concurrency", type=int, help="requests in flight at most (default 8)")
    p.add_argument("--timeout", type=float, help="per-request timeout in seconds (default 120)")
    p.add_argument("--max-retries", type=int, help="retries on 429/5xx/connection errors/timeouts (default 6)")
    p.add_argument("--rpm", type=float, help="at most this many requests per minute (default: no limit)")
    p.add_argument("--db", help="DuckDB file (default: $TANAW_DB, else ~/.tanaw/tanaw.duckdb)")
    p.add_argument("--data-dir", help="data folder or hf:OWNER/NAME@COMMIT")
    p.add_argument("--public-endpoint", action="store_true", default=None,
                   help="apply the queue's endpoint policy (evaluator/endpoints.py) to the URL and the key")
    p.set_defaults(func=cmd_leakage)


def _options(args: argparse.Namespace):
    from evaluator.leakage.probe_run import PROBES, ProbeOptions

    probes = tuple(x.strip() for x in args.probes.split(",") if x.strip())
    bad = [x for x in probes if x not in PROBES]
    if bad or not probes:
        raise ConfigError(f"--probes: unknown probe {bad[0] if bad else args.probes!r} (choose from "
                          f"{', '.join(PROBES)})")
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,32}", args.split):
        raise ConfigError("--split: a split name of letters, digits, '_', '.' or '-' (at most 32), e.g. test")
    if not 1 <= args.top_k <= 100:
        raise ConfigError("--top-k: between 1 and 100")
    return ProbeOptions(probes=probes, split=args.split, calibration_dir=args.calibration_dir, top_k=args.top_k)


def cmd_leakage(args: argparse.Namespace) -> int:
    from services.leakage_probes import run_and_report

    try:
        spec = runspec.from_args(args)
        popts = _options(args)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return run_and_report(spec, popts)


def main(argv: list[str] | None = None) -> int:
    """Run this command on its own: `python -m cli.leakage ...`."""
    parser = argparse.ArgumentParser(prog="python -m evaluator")
    add(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["leakage", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
