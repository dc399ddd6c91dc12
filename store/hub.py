"""Results on the Hugging Face Hub: pull the results dataset repo into the store on start, push each accepted change.

The repo (`TANAW_RESULTS_REPO`, a dataset repo) holds a Parquet export of the store (see store/parquet.py). A pull
resolves the branch head, downloads that commit with `snapshot_download` and imports it in one transaction; a push
exports the store and sends one `create_commit` (unchanged files are skipped by the Hub's preupload check), falling
back to a pull request when the token may not write. Every attempt is logged in `hub_sync`; a failed pull changes
nothing, so the app keeps serving its last good data (visitors see a fixed sentence; the reason is in `hub_sync`,
`last_status` and the operator's log).

The same code syncs the evaluation queue through a second, private repo (`TANAW_QUEUE_REPO`, `HubConfig.queue`):
it carries QUEUE_TABLES only, is always merged (`store.queue.merge_staged`: by request id, the later status wins),
and is refused, before anything is read or sent, unless the Hub reports it private.
"""
from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import duckdb
from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi, snapshot_download
from huggingface_hub.errors import HfHubHTTPError

from store import parquet

REPO_TYPE = "dataset"
QUEUE_REPO_ENV = "TANAW_QUEUE_REPO"
QUEUE_TABLES = ("submissions",)
"""What the queue repo carries: the private submission queue (submitters, endpoint URLs, key variable names)."""
log = logging.getLogger("tanaw.hub")


@dataclass(frozen=True)
class HubConfig:
    """Where results live on the Hub and how to reach it."""

    repo_id: str | None
    """Results dataset repo, e.g. "tanaw/results"; None disables Hub sync."""
    token: str | None = None
    """Access token ($HF_TOKEN); a read-only token can still pull and open pull requests."""
    endpoint: str | None = None
    """Hub URL ($HF_ENDPOINT); None = huggingface.co. Tests point it at a local stand-in."""
    revision: str = "main"
    """Branch pulled from and pushed to."""
    work_dir: Path = field(default_factory=lambda: Path(tempfile.gettempdir()) / "tanaw-hub")
    """Local folder for downloaded snapshots and export staging."""
    tables: tuple[str, ...] | None = None
    """Pull only these tables ($TANAW_PULL_TABLES, comma list); None = all. A Space serving a large store pulls
    the small tables and reads per-item rows from hf:// through store.scale; such a partial store never pushes."""
    carries: tuple[str, ...] | None = None
    """Tables this repo holds: None = the public tables (store.schema.PUBLIC_TABLES); the queue repo QUEUE_TABLES."""
    private: bool = False
    """Refuse the repo unless the Hub reports it private (the queue repo: its tables must never be published)."""
    variable: str = "TANAW_RESULTS_REPO"
    """The variable naming the repo, for messages."""

    @classmethod
    def from_env(cls, env: dict | None = None) -> "HubConfig":
        """Read TANAW_RESULTS_REPO, HF_TOKEN, HF_ENDPOINT, TANAW_RESULTS_REVISION, TANAW_PULL_TABLES, TANAW_HOME."""
        env = os.environ if env is None else env
        home = Path(env.get("TANAW_HOME") or Path.home() / ".tanaw")
        return cls(repo_id=env.get("TANAW_RESULTS_REPO") or None, token=env.get("HF_TOKEN") or None,
                   endpoint=env.get("HF_ENDPOINT") or None, revision=env.get("TANAW_RESULTS_REVISION") or "main",
                   work_dir=home / "hub",
                   tables=tuple(t.strip() for t in env["TANAW_PULL_TABLES"].split(",") if t.strip())
                   if env.get("TANAW_PULL_TABLES") else None)

    @classmethod
    def queue(cls, env: dict | None = None) -> "HubConfig":
        """The private queue repo ($TANAW_QUEUE_REPO; token, endpoint and home as `from_env`, branch main)."""
        env = os.environ if env is None else env
        return replace(cls.from_env(env), repo_id=env.get(QUEUE_REPO_ENV) or None, revision="main", tables=None,
                       carries=QUEUE_TABLES, private=True, variable=QUEUE_REPO_ENV)

    def api(self) -> HfApi:
        """An HfApi bound to this endpoint and token."""
        return HfApi(endpoint=self.endpoint, token=self.token)


@dataclass(frozen=True)
class SyncStatus:
    """Outcome of one pull or push, as logged in `hub_sync` and shown in the UI."""

    action: str
    """"pull", "push" or "disabled"."""
    ok: bool
    """False when the Hub could not be reached or refused; the store is then unchanged."""
    message: str
    """One line for `hub_sync` and the operator; it may quote the results repo, so the app shows it only as a table
    cell (queue page), never as Markdown or in a banner."""
    repo_id: str | None = None
    revision: str | None = None
    """Commit sha pulled or pushed."""
    pr_url: str | None = None
    """Pull request opened instead of a commit (token without write access)."""


def _log(con: duckdb.DuckDBPyConnection, s: SyncStatus) -> SyncStatus:
    con.execute("INSERT INTO hub_sync (action, repo_id, revision, ok, message, pr_url) VALUES (?, ?, ?, ?, ?, ?)",
                [s.action, s.repo_id, s.revision, s.ok, s.message, s.pr_url])
    return s


def last_pulled(con: duckdb.DuckDBPyConnection, repo_id: str) -> str | None:
    """Commit sha of the last successful pull or push of `repo_id` into this store."""
    row = con.execute("SELECT revision FROM hub_sync WHERE ok AND repo_id = ? AND action IN ('pull', 'push') "
                      "AND pr_url IS NULL ORDER BY rowid DESC LIMIT 1", [repo_id]).fetchone()
    return row[0] if row else None


def unpushed(con: duckdb.DuckDBPyConnection, repo_id: str) -> bool:
    """Whether a push failed after the last successful one (local changes the Hub does not have yet)."""
    return con.execute(
        "SELECT count(*) > 0 FROM hub_sync WHERE repo_id = ? AND action = 'push' AND NOT ok AND rowid > "
        "coalesce((SELECT max(rowid) FROM hub_sync WHERE repo_id = ? AND action = 'push' AND ok), -1)",
        [repo_id, repo_id]).fetchone()[0]


def pull(con: duckdb.DuckDBPyConnection, config: HubConfig | None = None, *, mode: str = "auto") -> SyncStatus:
    """Bring the store up to the repo's branch head; on any failure keep the current data and say why.

    mode "replace" makes the store identical to the repo; "merge" only adds rows the store lacks (see
    parquet.import_store); "auto" merges when a push failed since the last sync, so local uploads survive, and
    always for a repo of chosen tables (the queue, which every writer adds to).
    """
    config = config or HubConfig.from_env()
    if not config.repo_id:
        return SyncStatus("disabled", True, f"Hub sync off ({config.variable} not set): serving local data.")
    repo = config.repo_id
    try:
        sha = _head(config)
        if sha and sha == last_pulled(con, repo):
            return _log(con, SyncStatus("pull", True, f"Results from {repo}@{sha[:8]} are current.", repo, sha))
        target = config.work_dir / "snapshots" / f"{repo.replace('/', '--')}-{sha}"
        shutil.rmtree(target, ignore_errors=True)
        patterns = None if config.tables is None else [parquet.MANIFEST, *(f"{t}/*" for t in config.tables)]
        local = Path(snapshot_download(repo, repo_type=REPO_TYPE, revision=sha, local_dir=target,
                                       token=config.token, endpoint=config.endpoint, allow_patterns=patterns))
        if not (local / parquet.MANIFEST).exists():
            return _log(con, SyncStatus("pull", True, f"{repo}@{sha[:8]} holds no results yet.", repo, sha))
        if mode == "auto":
            mode = "merge" if config.carries is not None or unpushed(con, repo) else "replace"
        imported = parquet.import_store(con, local, mode=mode, only=config.tables, carries=config.carries)
        shutil.rmtree(target, ignore_errors=True)
    except PublicRepo as e:
        return _log(con, SyncStatus("pull", False, str(e), repo))
    except Exception as e:  # network, HTTP, or a bad export: the transaction rolled back, data unchanged
        return _log(con, SyncStatus("pull", False, f"Could not pull results from {repo} ({_reason(e)}); "
                                    "serving the last good data.", repo))
    rows = sum(t.rows for t in imported.values())
    verb = "Merged" if mode == "merge" else "Pulled"
    return _log(con, SyncStatus("pull", True, f"{verb} {rows:,} rows from {repo}@{sha[:8]}.", repo, sha))


def push(con: duckdb.DuckDBPyConnection, message: str, config: HubConfig | None = None) -> SyncStatus:
    """Export the store and commit it to the repo (a pull request when the token cannot write).

    The commit names the head it was built on (`parent_commit`): when someone else pushed since our last sync,
    their rows are merged in first, and a push that loses a race is rebuilt once on the new head.
    """
    config = config or HubConfig.from_env()
    if not config.repo_id:
        return SyncStatus("disabled", True, f"Hub sync off ({config.variable} not set): nothing pushed.")
    repo = config.repo_id
    if config.tables is not None:
        return SyncStatus("push", False, f"Not pushed to {repo}: this store pulls only some tables "
                          "(TANAW_PULL_TABLES), and a push would drop the others; push from a full store "
                          "(a worker or `python -m evaluator export --hub`).", repo)
    try:
        try:
            return _push_once(con, message, config)
        except HfHubHTTPError as e:
            if e.response is None or e.response.status_code not in (409, 412):
                raise
            return _push_once(con, message, config)  # lost a race to another writer: rebuild on the new head
    except PublicRepo as e:
        return _log(con, SyncStatus("push", False, str(e), repo))
    except Exception as e:
        return _log(con, SyncStatus("push", False, f"Could not push to {repo} ({_reason(e)}); "
                                    "the results are kept locally.", repo))


class PublicRepo(RuntimeError):
    """A repo that must be private (the queue repo) which the Hub reports public, or does not say."""


def _head(config: HubConfig) -> str:
    """The branch head's commit sha; PublicRepo when the repo must be private and the Hub does not report it so
    (checked before anything is downloaded or committed)."""
    info = config.api().dataset_info(config.repo_id, revision=config.revision)
    if config.private and info.private is not True:
        raise PublicRepo(f"Refused {config.variable}={config.repo_id}: the Hub reports this dataset repo as public, "
                         f"and it would publish {', '.join(config.carries or ())} (submitters, endpoint URLs, key "
                         "variable names). Make the repo private on the Hub, or unset the variable.")
    return info.sha


def _push_once(con: duckdb.DuckDBPyConnection, message: str, config: HubConfig) -> SyncStatus:
    repo, api = config.repo_id, config.api()
    head = _head(config)
    if head != last_pulled(con, repo):
        merged = pull(con, config, mode="merge")
        if not merged.ok:
            raise RuntimeError(merged.message)
    staging = config.work_dir / "staging" / repo.replace("/", "--")
    parquet.export_store(con, staging, carries=config.carries)
    local = sorted(p.relative_to(staging).as_posix() for p in staging.rglob("*") if p.is_file())
    remote = api.list_repo_files(repo, repo_type=REPO_TYPE, revision=head)
    stale = [f for f in remote if (f == parquet.MANIFEST or f.endswith(".parquet")) and f not in set(local)]

    def ops() -> list:  # operations are single-use: build them afresh for each attempt
        return ([CommitOperationAdd(path_in_repo=f, path_or_fileobj=str(staging / f)) for f in local]
                + [CommitOperationDelete(path_in_repo=f) for f in stale])

    try:
        info = api.create_commit(repo, ops(), commit_message=message, repo_type=REPO_TYPE,
                                 revision=config.revision, parent_commit=head)
    except HfHubHTTPError as e:
        if e.response is None or e.response.status_code not in (401, 403):
            raise
        info = api.create_commit(repo, ops(), commit_message=message, repo_type=REPO_TYPE,
                                 revision=config.revision, parent_commit=head, create_pr=True)
    if info.pr_url:
        return _log(con, SyncStatus("push", True, f"Opened pull request {info.pr_url} on {repo} "
                                    "(the token cannot write to the branch).", repo, info.oid, info.pr_url))
    return _log(con, SyncStatus("push", True, f"Pushed {repo}@{info.oid[:8]}: {message}", repo, info.oid))


def fingerprint(con: duckdb.DuckDBPyConnection, full_below: int = 100_000) -> tuple:
    """(table, rows, checksum) of every exported table, changing whenever something worth pushing changed; tables
    above `full_below` rows are summarised by their row count only (they only grow by appends)."""
    out = []
    for t in parquet.tables(con):
        n = con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
        out.append((t, n, parquet.checksum(con, t)[1] if n <= full_below else None))
    return tuple(out)


def last_status(con: duckdb.DuckDBPyConnection) -> SyncStatus | None:
    """The most recent pull or push, or None when Hub sync never ran on this store."""
    row = con.execute("SELECT action, ok, message, repo_id, revision, pr_url FROM hub_sync "
                      "ORDER BY rowid DESC LIMIT 1").fetchone()
    return SyncStatus(*row) if row else None


_DIRECTORIES = re.compile(r"(?<![\w:/.~-])~?/(?:[^\s/'\"]+/)+")
"""The directories of an absolute (or ~) path in an error message: "/srv/home/hub/snapshots/x/manifest.json" loses
all but "manifest.json"; URLs ("https://host/path") and relative paths ("runs/x.parquet") are left whole."""


def _reason(e: Exception) -> str:
    """The failure in one line for `hub_sync` and the app (the exception's type and first line, without the server's
    directories); the whole exception, paths and traceback included, goes to the operator's log."""
    log.warning("Hub sync failed", exc_info=e)
    text = str(e).splitlines()[0] if str(e) else ""
    return _DIRECTORIES.sub("", f"{type(e).__name__}: {text}")[:300]
