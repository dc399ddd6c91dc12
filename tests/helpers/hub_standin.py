"""A local stand-in for the Hugging Face Hub: the HTTP endpoints huggingface_hub calls for snapshot_download and
create_commit / upload_folder, over an in-memory git-like store (commits, `main`, `refs/pr/N`).

Endpoints: repo info (`/api/datasets/<repo>[/revision/<rev>]`), tree listing (`/api/datasets/<repo>/tree/<rev>`),
file resolve (`HEAD|GET /datasets/<repo>/resolve/<rev>/<path>`), preupload (every file "regular", with the remote
blob oid so unchanged files are skipped) and commit (NDJSON; `?create_pr=1` opens `refs/pr/N`). Tokens are
"write" or "read"; a read token may only open pull requests, as on the Hub. Set `down = True` to answer 503.
A repo created with `private=True` is reported private (`"private": true`, huggingface_hub's `.private`) and, as on
the Hub, answers 404 to a request without a valid token.
"""
from __future__ import annotations

import base64
import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit


def git_oid(data: bytes) -> str:
    """Git blob id of `data`, as the Hub reports for regular files."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Repo:
    """One repository: commits by sha (each a full file map) and refs by name."""

    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)
    messages: dict[str, str] = field(default_factory=dict)
    private: bool = False

    def commit(self, files: dict[str, bytes], message: str, ref: str) -> str:
        sha = hashlib.sha1(json.dumps([message, sorted((p, git_oid(b)) for p, b in files.items()),
                                       len(self.commits)]).encode()).hexdigest()
        self.commits[sha], self.messages[sha], self.refs[ref] = dict(files), message, sha
        return sha

    def resolve(self, rev: str) -> str | None:
        rev = unquote(rev)
        return self.refs.get(rev) or (rev if rev in self.commits else None)


class HubStandin:
    """Serve the stand-in on 127.0.0.1 (context manager); `url` goes into HF_ENDPOINT."""

    def __init__(self, tokens: dict[str, str] | None = None):
        self.tokens = tokens if tokens is not None else {"write-token": "write", "read-token": "read"}
        self.repos: dict[str, Repo] = {}
        self.requests: list[tuple[str, str]] = []
        self.commit_log: list[tuple[str, str, list[str]]] = []
        """(ref, summary, paths added or deleted) of every commit received."""
        self.down = False
        self._server: ThreadingHTTPServer | None = None

    def create_repo(self, repo_id: str, files: dict[str, bytes] | None = None, private: bool = False) -> Repo:
        repo = self.repos[repo_id] = Repo(private=private)
        repo.commit(files or {".gitattributes": b"*.parquet filter=lfs\n"}, "initial commit", "main")
        return repo

    def files(self, repo_id: str, ref: str = "main") -> dict[str, bytes]:
        repo = self.repos[repo_id]
        return repo.commits[repo.refs[ref]]

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> "HubStandin":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self, port: int = 0) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


def _handler(hub: HubStandin):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # keep test output quiet
            pass

        def _send(self, status: int, body: bytes = b"", headers: dict | None = None, head: bool = False) -> None:
            self.send_response(status)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")  # no keep-alive: a stopped stand-in refuses at once
            self.close_connection = True
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def _json(self, status: int, obj, headers: dict | None = None) -> None:
            self._send(status, json.dumps(obj).encode(), {"Content-Type": "application/json", **(headers or {})})

        def _error(self, status: int, message: str, code: str | None = None) -> None:
            self._json(status, {"error": message}, {"X-Error-Code": code} if code else None)

        def _role(self) -> str | None:
            auth = self.headers.get("Authorization", "")
            return hub.tokens.get(auth.removeprefix("Bearer ").strip()) if auth else None

        def _route(self, method: str) -> None:
            hub.requests.append((method, self.path))
            if hub.down:
                return self._error(503, "stand-in is down")
            parts = urlsplit(self.path)
            path, query = parts.path, parse_qs(parts.query)
            segs = path.strip("/").split("/")
            if segs[0] == "api" and len(segs) >= 4 and segs[1] in ("datasets", "models"):
                repo_id, rest = "/".join(segs[2:4]), segs[4:]
                return self._api(method, repo_id, rest, query)
            if len(segs) >= 6 and segs[0] == "datasets" and segs[3] == "resolve":
                return self._resolve(method, "/".join(segs[1:3]), segs[4], unquote("/".join(segs[5:])))
            return self._error(404, f"no route {path}")

        def _repo(self, repo_id: str) -> Repo | None:
            repo = hub.repos.get(repo_id)
            if repo is not None and repo.private and self._role() is None:
                repo = None  # the Hub hides a private repo from anyone without a token
            if repo is None:
                self._error(404, f"Repository {repo_id} not found", "RepoNotFound")
            return repo

        def _api(self, method: str, repo_id: str, rest: list[str], query: dict) -> None:
            repo = self._repo(repo_id)
            if repo is None:
                return
            kind = rest[0] if rest else "revision"
            rev = unquote("/".join(rest[1:])) if len(rest) > 1 else "main"
            if kind == "tree":
                rev = unquote(rest[1])
            sha = repo.resolve(rev)
            if sha is None and kind != "commit" and kind != "preupload":
                return self._error(404, f"Revision {rev} not found", "RevisionNotFound")
            if method == "GET" and kind == "revision":
                files = repo.commits[sha]
                return self._json(200, {"id": repo_id, "sha": sha, "private": repo.private,
                                        "siblings": [{"rfilename": p} for p in sorted(files)]})
            if method == "GET" and kind == "tree":
                files = repo.commits[sha]
                prefix = "/".join(unquote(s) for s in rest[2:])
                entries = [{"type": "file", "oid": git_oid(b), "size": len(b), "path": p}
                           for p, b in sorted(files.items()) if not prefix or p.startswith(prefix + "/")]
                return self._json(200, entries)
            if method == "POST" and kind == "preupload":
                body = json.loads(self._body())
                current = repo.commits.get(repo.resolve(rev) or "", {})
                return self._json(200, {"files": [
                    {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False,
                     "oid": git_oid(current[f["path"]]) if f["path"] in current else None}
                    for f in body.get("files", [])]})
            if method == "POST" and kind == "commit":
                return self._commit(repo_id, repo, rev, query)
            return self._error(404, f"no route {method} {kind}")

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def _commit(self, repo_id: str, repo: Repo, rev: str, query: dict) -> None:
            create_pr = query.get("create_pr", ["0"])[0] == "1"
            role = self._role()
            if role is None:
                return self._error(401, "Invalid credentials in Authorization header")
            if role != "write" and not create_pr:
                return self._error(403, "You don't have the rights to create a commit on this repo; open a PR")
            base = repo.resolve(rev)
            if base is None:
                return self._error(404, f"Revision {rev} not found", "RevisionNotFound")
            files = dict(repo.commits[base])
            summary, touched = "", []
            for line in self._body().splitlines():
                op = json.loads(line)
                key, value = op["key"], op["value"]
                if key == "header":
                    summary = value["summary"]
                    parent = value.get("parentCommit")
                    if parent and parent != base:
                        return self._error(412, "A commit has happened since. Please refresh and try again.")
                elif key == "file":
                    touched.append(value["path"])
                    files[value["path"]] = base64.b64decode(value["content"])
                elif key == "deletedFile":
                    touched.append(value["path"])
                    files.pop(value["path"], None)
                elif key == "deletedFolder":
                    files = {p: b for p, b in files.items() if not p.startswith(value["path"].rstrip("/") + "/")}
                else:
                    return self._error(400, f"stand-in does not support {key!r} operations")
            prefix = f"{hub.url}/datasets/{repo_id}"
            num = 1 + sum(1 for r in repo.refs if r.startswith("refs/pr/"))
            ref = f"refs/pr/{num}" if create_pr else rev
            sha = repo.commit(files, summary, ref)
            hub.commit_log.append((ref, summary, touched))  # after the files: a test that sees it reads them
            if create_pr:
                return self._json(200, {"commitOid": sha, "commitUrl": f"{prefix}/commit/{sha}",
                                        "pullRequestUrl": f"{prefix}/discussions/{num}"})
            return self._json(200, {"commitOid": sha, "commitUrl": f"{prefix}/commit/{sha}", "pullRequestUrl": None})

        def _resolve(self, method: str, repo_id: str, rev: str, path: str) -> None:
            repo = self._repo(repo_id)
            if repo is None:
                return
            sha = repo.resolve(rev)
            if sha is None:
                return self._error(404, f"Revision {rev} not found", "RevisionNotFound")
            data = repo.commits[sha].get(path)
            if data is None:
                return self._error(404, f"Entry {path} not found", "EntryNotFound")
            etag = f'"{git_oid(data)}"'
            self._send(200, data, {"X-Repo-Commit": sha, "ETag": etag, "Content-Type": "application/octet-stream"},
                       head=method == "HEAD")

        def do_GET(self) -> None:
            self._route("GET")

        def do_HEAD(self) -> None:
            self._route("HEAD")

        def do_POST(self) -> None:
            self._route("POST")

    return Handler
