"""`python -m evaluator run`: evaluate a model on the registry's tasks into the store, resumably."""
from __future__ import annotations

import argparse
import sys

from evaluator import runspec
from evaluator.runspec import ConfigError

EXAMPLE = """example (a vLLM server):
  vllm serve aisingapore/Gemma-SEA-LION-v4-27B-IT --port 8000
  python -m evaluator run --model sea-lion-v4-27b --served-model aisingapore/Gemma-SEA-LION-v4-27B-IT \\
      --base-url http://localhost:8000/v1 --tasks bhasa,lindsea,pacute --prompt-lang en,native -c 64 \\
      --db tanaw.duckdb
Interrupted runs resume: run the same command again (answers already stored are not asked again)."""


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="evaluate a model (OpenAI-compatible server or local GGUF) into the store",
                       description=__doc__ + " Settings come from --config (YAML) and the options below; "
                       "options win over the file.", epilog=EXAMPLE, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--config", help="YAML run spec with the same settings (see evaluator/runspec.py)")
    p.add_argument("--model", help="model name as stored and shown on the leaderboard")
    p.add_argument("--served-model", help="model id the server expects, if different from --model")
    p.add_argument("--base-url", help="OpenAI-compatible base URL including /v1, e.g. http://localhost:8000/v1; "
                                      "several comma-separated URLs (replicas of the same model) share the load, "
                                      "each request going to the least busy one")
    p.add_argument("--api-key-env", help="environment variable holding the API key (default: none sent)")
    p.add_argument("--backend", choices=("http", "llamacpp"),
                   help="http (default): any OpenAI-compatible server; llamacpp: in-process GGUF (needs "
                        "requirements-llama.txt)")
    p.add_argument("--model-path", help="GGUF file for --backend llamacpp")
    p.add_argument("--tasks", help="comma list of task ids, aliases or families: bhasa, lindsea, cultural, pacute "
                                   "(default: all)")
    p.add_argument("--langs", help="comma list of languages: id, vi, th, ta, tl (default: every language of a task)")
    p.add_argument("--prompt-lang", dest="prompt_langs", help="en, native or en,native (default: en,native)")
    p.add_argument("--runs", type=int, help="repeat every cell N times (run numbers 1..N; default 1)")
    p.add_argument("--limit", type=int, help="at most N items per task and language")
    p.add_argument("-c", "--concurrency", type=int, help="requests in flight at most (default 8)")
    p.add_argument("--timeout", type=float, help="per-request timeout in seconds (default 120)")
    p.add_argument("--max-retries", type=int, help="retries on 429/5xx/connection errors/timeouts (default 6)")
    p.add_argument("--rpm", type=float, help="at most this many requests per minute (default: no limit)")
    p.add_argument("--rerun", action="store_true", default=None, help="ask again even what is already stored")
    p.add_argument("--db", help="DuckDB file (default: $TANAW_DB, else ~/.tanaw/tanaw.duckdb)")
    p.add_argument("--data-dir", help="data folder or hf:OWNER/NAME@COMMIT (default: $TANAW_DATA_DIR or ../shared/data)")
    p.add_argument("--no-system-prompt", dest="system_prompt", action="store_false", default=None,
                   help="the model has no system role: prepend system prompts to the user turn")
    p.add_argument("--thinking", dest="thinking", action="store_true", default=None,
                   help="enable thinking mode (chat_template_kwargs.enable_thinking=true)")
    p.add_argument("--no-thinking", dest="thinking", action="store_false", help="disable thinking mode")
    p.add_argument("--logprob-choices", action="store_true", default=None,
                   help="score letter-choice tasks (NLI, causal, minimal pairs, coreference) by letter "
                        "log-probability instead of generation (needs /v1/completions with echo + logprobs)")
    p.add_argument("--max-tokens", type=int, help="override every task's generation budget (e.g. reasoning models)")
    p.add_argument("--temperature", type=float, help="override every task's temperature")
    p.add_argument("--n-ctx", type=int, help="context window for --backend llamacpp (default 4096)")
    p.add_argument("--n-threads", type=int, help="CPU threads for --backend llamacpp (default: llama.cpp's choice)")
    p.add_argument("--chat-format", help="chat format for --backend llamacpp when the GGUF carries no chat template "
                   "(a llama-cpp-python format: gemma, chatml, llama-3, ...; default: the GGUF's template, else its "
                   "known family; the backend refuses to guess)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars on stderr")
    p.add_argument("--public-endpoint", action="store_true", default=None,
                   help="apply the queue's endpoint policy (evaluator/endpoints.py) to every request: set by the "
                        "worker for queued requests, not needed for your own runs")
    p.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    from services.run import run_and_report

    try:
        spec = runspec.from_args(args)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return run_and_report(spec, progress=not args.no_progress)


def main(argv: list[str] | None = None) -> int:
    """Run this command on its own: `python -m cli.run ...`."""
    parser = argparse.ArgumentParser(prog="python -m evaluator")
    add(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["run", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
