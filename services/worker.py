"""`python -m evaluator worker`: take PENDING requests from the submission queue and evaluate them.

Each request becomes a run specification (`evaluator.runspec.from_request`) that a child process,
`python -m services.run_child`, reads as JSON on stdin and hands to the runner unchanged (the child keeps a crash or
a time-out to one request, not the worker, and holds only a scrubbed environment); a request of mode "leakage" has
the child probe the model (`services.leakage_probes`) under the same checks instead. Requests for Hub models need
`--serve-cmd`, a command that serves
the model behind an OpenAI-compatible API (vLLM, SGLang); the worker starts it, waits for `/v1/models`, runs, and
stops it. With TANAW_RESULTS_REPO set, the worker pulls the results repo before claiming and pushes after each
status change; a push carries only the public tables (store.schema.PUBLIC_TABLES), so the results it stored reach
the repo while the queue itself (submitters, endpoints, key variables) does not. With TANAW_QUEUE_REPO set (a
private dataset repo; a public one is refused), the worker merges the requests queued there (on a Space) into its
store before claiming, and pushes the `submissions` table back there after each status change.

Every request is hostile until checked (docs/security.md, "The worker"): its fields are validated again, its endpoint and
key go through `evaluator.endpoints.check` (and the run connects only to addresses the policy checked), the child
process gets a scrubbed environment holding only the one allow-listed key, and the error stored on a FAILED request
is generic: connection errors and status codes from the endpoint go to this worker's log only.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import os
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from typing import Iterable, Iterator, Mapping

from evaluator import runspec
from evaluator.runspec import ConfigError, RunSpec

log = logging.getLogger("tanaw.worker")

KEY_VAR = "ENDPOINT_API_KEY"
"""The only variable holding a key in the run's environment (the allow-listed key, copied under this name)."""
CHILD_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "PYTHONPATH", "PYTHONHASHSEED",
             "VIRTUAL_ENV", "TANAW_DB", "TANAW_HOME", "TANAW_DATA_DIR", "TANAW_COMET_PATH",
             "TANAW_METRICX_CHECKPOINT", "TANAW_METRICX_TOKENIZER",
             "TANAW_ALLOW_PRIVATE_ENDPOINTS", "SPACE_ID", "TANAW_UPLOAD_MAX_MB", "HF_HOME", "HF_HUB_CACHE",
             "HF_HUB_OFFLINE", "HF_ENDPOINT", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
             "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH")
"""Variables a run, and a model server started by --serve-cmd, inherit from the worker (`scrubbed_env`);
everything else (HF_TOKEN, TANAW_* tokens, OPENAI_*, other keys) stays behind. SPACE_ID goes along so that the run's
endpoint policy is the Space's (TANAW_ALLOW_PRIVATE_ENDPOINTS ignored there, `endpoints.private_allowed`)."""
RUN_FAILED = "the run failed; the operator can read why in the worker's log"

EXAMPLE = """examples:
  python -m evaluator worker --db worker.duckdb --once
  TANAW_RESULTS_REPO=org/tanaw-results TANAW_QUEUE_REPO=org/tanaw-queue HF_TOKEN=... \\
      python -m evaluator worker --db worker.duckdb \\
      --serve-cmd 'vllm serve {model} --revision {revision} --port {port}' --poll 60"""


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("worker", help="evaluate PENDING requests from the submission queue",
                       description=__doc__, epilog=EXAMPLE, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--db", help="DuckDB file (default: $TANAW_DB, else ~/.tanaw/tanaw.duckdb)")
    p.add_argument("--name", default=f"{socket.gethostname()}-{os.getpid()}",
                   help="worker name recorded on claims (default HOST-PID; a restarted worker puts requests left "
                        "RUNNING by its own name, and by default-named workers of this host whose process is gone, "
                        "back to PENDING)")
    p.add_argument("--once", action="store_true", help="handle at most one request, then exit")
    p.add_argument("--max-jobs", type=int, default=0, help="stop after N requests (0 = no limit)")
    p.add_argument("--poll", type=float, default=30.0, help="seconds between queue checks when idle (default 30)")
    p.add_argument("--exit-when-empty", action="store_true", help="exit instead of waiting when the queue is empty")
    p.add_argument("-c", "--concurrency", type=int, default=8, help="requests in flight per run (default 8)")
    p.add_argument("--data-dir", help="data folder of every run (as `evaluator run --data-dir`)")
    p.add_argument("--serve-cmd", help="command serving a Hub model; {model}, {revision} and {port} are filled in; "
                                       "it runs with the run's scrubbed environment (CHILD_ENV: no HF_TOKEN, no keys)")
    p.add_argument("--serve-url", default="http://127.0.0.1:{port}/v1", help="base URL of --serve-cmd's server")
    p.add_argument("--serve-timeout", type=float, default=900.0, help="seconds to wait for the server to answer")
    p.add_argument("--job-timeout", type=float, default=24 * 3600.0, help="seconds before a run is stopped")
    p.set_defaults(func=cmd_worker)


def _open(path: str | None):
    from store.writer_lock import writer

    return writer(path)


def _sync(con, action: str, message: str = "") -> None:
    """Pull (or push) the results repo's public tables and the private queue repo's requests, when set."""
    from store import hub

    for config in (hub.HubConfig.from_env(), hub.HubConfig.queue()):
        if config.repo_id:
            status = hub.pull(con, config) if action == "pull" else hub.push(con, message, config)
            print(f"hub: {status.message}", file=sys.stderr)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_ready(url: str, proc: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the model server exited with code {proc.returncode} before answering")
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(f"{url}/models", timeout=5) as r:
                if r.status == 200:
                    return
        time.sleep(0.5)
    raise RuntimeError(f"the model server did not answer {url}/models within {timeout:.0f}s")


@contextlib.contextmanager
def served(sub, args) -> Iterator[tuple[str, str | None]]:
    """(base URL, served model name) for a request; starts and stops --serve-cmd for Hub models."""
    if sub.backend == "openai":
        yield sub.base_url, sub.hub_model
        return
    if not args.serve_cmd:
        raise RuntimeError("this worker cannot serve Hub models: start it with --serve-cmd (e.g. vLLM)")
    port = _free_port()
    fill = {"model": sub.hub_model, "revision": sub.revision or "main", "port": port}
    cmd = [part.format(**fill) for part in shlex.split(args.serve_cmd)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=scrubbed_env())
    try:
        url = args.serve_url.format(**fill)
        _wait_ready(url, proc, args.serve_timeout)
        yield url, sub.hub_model
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def run_spec(sub, url: str, served_model: str | None, args) -> RunSpec:
    """The run specification of a claimed request, served at `url`: the request's own settings (checked again) and
    this worker's store, data folder and concurrency; its key, if any, is read from KEY_VAR in the child."""
    from store.owners import QUEUE

    spec = runspec.from_request(sub, base_url=url, served_model=served_model, key_env=KEY_VAR,
                                concurrency=args.concurrency, data_dir=args.data_dir, db=args.db)
    return dataclasses.replace(spec, model_info={**spec.model_info, "owner": QUEUE})  # the model is the queue's


def run_child(spec: RunSpec, env: Mapping[str, str], timeout: float, mode: str | None = None
              ) -> subprocess.CompletedProcess:
    """Run a spec in a child process (`python -m services.run_child`, the spec as JSON on stdin) with `env` only;
    mode "leakage" probes the spec's model instead (`--leakage`: the request's values never reach the command)."""
    flags = ["--leakage"] if mode == "leakage" else []
    return subprocess.run([sys.executable, "-m", "services.run_child", *flags], input=runspec.to_json(spec),
                          capture_output=True, text=True, timeout=timeout, env=dict(env))


def scrubbed_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The worker's environment cut to CHILD_ENV: what a model server started by --serve-cmd gets, and what a run
    gets before its own additions (`run_env`)."""
    environ = os.environ if environ is None else environ
    return {k: v for k, v in environ.items() if k in CHILD_ENV}


def run_env(sub, args, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The run's environment: CHILD_ENV only, plus the request's allow-listed key as KEY_VAR, plus HF_TOKEN only
    when the operator's --data-dir reads a Hub dataset (it is never sent to an endpoint: no key variable names it)."""
    environ = os.environ if environ is None else environ
    env = scrubbed_env(environ)
    if sub.api_key_env and environ.get(sub.api_key_env):
        env[KEY_VAR] = environ[sub.api_key_env]
    if str(args.data_dir or "").startswith("hf:") and environ.get("HF_TOKEN"):
        env["HF_TOKEN"] = environ["HF_TOKEN"]
    return env


def admit(sub) -> None:
    """Check a claimed request again before running it (it may come from the queue repo, not the page):
    fields, endpoint and key. Raises EndpointRefused or QueueError with a message safe to store publicly."""
    from evaluator import endpoints
    from store import queue

    queue.validate(sub)
    try:
        runspec.check_request(sub)
    except ConfigError as exc:
        raise queue.QueueError(str(exc).removeprefix(f"request {sub.request_id}: ")) from None
    if sub.backend == "openai":
        endpoints.check(sub.base_url, sub.api_key_env)
    elif sub.api_key_env:
        raise endpoints.EndpointRefused("api_key_env: Hub models are served by the worker; no key is sent",
                                        f"hub request names {sub.api_key_env}")


def handle(sub, args) -> tuple[bool, str]:
    """Run one claimed request; (succeeded, message). Messages are stored publicly, so they never carry the
    endpoint's answers: those go to the log."""
    from evaluator.endpoints import EndpointRefused
    from store.queue import QueueError

    try:
        admit(sub)
    except (EndpointRefused, QueueError) as e:
        log.warning("request %s refused: %s", sub.request_id, getattr(e, "detail", e))
        return False, f"refused: {e}"
    try:
        with served(sub, args) as (url, served_model):
            res = run_child(run_spec(sub, url, served_model, args), run_env(sub, args), args.job_timeout, sub.mode)
    except subprocess.TimeoutExpired:
        return False, f"the run took longer than {args.job_timeout:.0f}s and was stopped"
    except ConfigError as e:
        log.warning("request %s: %s", sub.request_id, e)
        return False, RUN_FAILED
    except (RuntimeError, OSError) as e:
        log.warning("request %s: %s", sub.request_id, e)
        return False, str(e) if isinstance(e, RuntimeError) else RUN_FAILED
    tail = "\n".join((res.stderr or res.stdout).strip().splitlines()[-15:])
    if res.returncode == 0:
        return True, ""
    log.warning("request %s: the run exited with %s:\n%s", sub.request_id, res.returncode, tail)
    print(f"worker: the run exited with {res.returncode}:\n{tail}", file=sys.stderr)
    if res.returncode == 1:
        return True, "some answers failed; the operator can read why in the worker's log"
    return False, RUN_FAILED


def _stored(con, model_id: str, mode: str | None = None) -> int:
    """What a request stored for its model: evaluated answers, or (mode "leakage") probe verdicts."""
    if mode == "leakage":
        from evaluator.leakage import EVERY_PROMPT
        from store.leakage import read_signals

        return len(read_signals(con, model_id=model_id, prompt_lang=EVERY_PROMPT))
    return con.execute("SELECT count(*) FROM predictions p JOIN runs r USING (run_id) WHERE r.model_id = ? "
                       "AND r.source = 'evaluated'", [model_id]).fetchone()[0]


def work_one(args) -> bool:
    """Claim and run one request; False when the queue is empty."""
    from services.ownership import name_refusal
    from store import queue
    from store.owners import QUEUE

    with _open(args.db) as con:
        _sync(con, "pull")
        sub = queue.claim_next(con, args.name)
        if sub is None:
            return False
        refusal = name_refusal(con, sub.model_id, QUEUE)  # a request may come from the queue repo, not the page
        if refusal is not None:
            done = queue.fail(con, sub.request_id, f"refused: model_id: {refusal}")
            _sync(con, "push", f"Queue: {sub.model_id} {done.status} ({sub.request_id})")
            return True
        _sync(con, "push", f"Queue: {sub.model_id} RUNNING ({sub.request_id})")
    print(f"worker: running {sub.model_id} ({sub.request_id})", file=sys.stderr)
    ok, message = handle(sub, args)
    with _open(args.db) as con:
        n = _stored(con, sub.model_id, sub.mode)
        if ok and n:
            done = queue.finish(con, sub.request_id, n, message or None)
        else:
            done = queue.fail(con, sub.request_id, message if not ok else RUN_FAILED if message else
                              "the run stored no probe verdicts" if sub.mode else "the run stored no answers")
        _sync(con, "push", f"Queue: {sub.model_id} {done.status} ({sub.request_id})")
    print(f"worker: {sub.model_id} {done.status}, {n} {'probe verdicts' if sub.mode else 'answers'} stored" + (f": {message}" if message else ""),
          file=sys.stderr)
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def orphaned(workers: Iterable[str], host: str | None = None) -> list[str]:
    """The default-named workers (`HOST-PID`, see --name) of this host among `workers` whose process is gone: a
    worker restarted without --name gets a new PID, so it could never release those by its own name."""
    host = socket.gethostname() if host is None else host
    out = []
    for name in sorted(set(workers)):
        prefix, _, pid = name.rpartition("-")
        if prefix == host and pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            out.append(name)
    return out


def release_claims(con, name: str) -> tuple[int, list[str]]:
    """Put back to PENDING the requests left RUNNING by `name` (this worker, restarted) or by a default-named worker
    of this host whose process is gone; (how many, the names they were claimed by)."""
    from store import queue

    names = [name] + orphaned(s.worker for s in queue.listing(con, "RUNNING") if s.worker and s.worker != name)
    counts = {n: queue.release_stale(con, n) for n in names}
    return sum(counts.values()), [n for n, k in counts.items() if k]


def cmd_worker(args: argparse.Namespace) -> int:
    with _open(args.db) as con:
        _sync(con, "pull")
        released, names = release_claims(con, args.name)
        if released:
            _sync(con, "push", f"Queue: {released} request(s) of {', '.join(names)} back to PENDING")
    if released:
        print(f"worker: {released} request(s) left RUNNING by {', '.join(names)} put back to PENDING",
              file=sys.stderr)
    done = 0
    while True:
        if work_one(args):
            done += 1
            if args.once or (args.max_jobs and done >= args.max_jobs):
                return 0
        elif args.once or args.exit_when_empty:
            print("worker: queue empty", file=sys.stderr)
            return 0
        else:
            time.sleep(args.poll)
