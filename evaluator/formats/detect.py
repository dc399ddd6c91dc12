"""Format auto-detection by content: the first JSON line (or the top-level keys of a JSON file); the file name
only decides when the content does not (a document too large to parse whole, an empty file)."""
from __future__ import annotations

import json
import re
from pathlib import PurePosixPath

from evaluator.formats import seahelm

FORMATS = ("native", "pacute-bench", "pacute-bench-summary", "seahelm", "seahelm-summary", "lm-eval",
           "lm-eval-summary", "archive")
"""Every format key `--format` accepts besides "auto"."""

FAMILIES = {"native": "native", "pacute-bench": "pacute-bench", "seahelm": "seahelm", "lm-eval": "lm-eval"}
"""Short names accepted by `--format`: a family covers its per-item and summary files."""

_LANG_KEYS = {"id", "vi", "th", "ta", "tl", "en", "ms", "my", "lo", "km", "jv", "su"}


def _first_object(head: bytes) -> dict | None:
    line = head.split(b"\n", 1)[0].strip().removeprefix(b"\xef\xbb\xbf")
    try:
        obj = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def _json_kind(doc: dict) -> str | None:
    """The summary format a JSON document's structure shows, or None when it shows none."""
    if "benchmarks" in doc and "hf_model_name" in doc:
        return "pacute-bench-summary"
    if isinstance(doc.get("results"), dict):
        return "lm-eval-summary"
    if set(doc) - {"total"} and set(doc) <= _LANG_KEYS | {"total"}:
        return "seahelm-summary"
    if all(isinstance(v, dict) and "benchmarks" in v for v in doc.values()):
        return "pacute-bench-summary"  # the combined file: {model: {hf_model_name, benchmarks}}
    return None


def detect(name: str, head: bytes) -> str | None:
    """Format key for a file from its name and first bytes, or None when nothing fits."""
    base = PurePosixPath(name.split("!")[-1]).name.lower()
    if head[:4] == b"PK\x03\x04" or base.endswith(".zip"):
        return "archive"
    if base.endswith(".jsonl"):
        if seahelm.BATCH_FILE.search(base):
            return "seahelm-batch"
        first = _first_object(head) or {}
        if {"doc_id", "resps"} <= first.keys() or {"doc_id", "filtered_resps"} <= first.keys():
            return "lm-eval"
        if "responses" in first and ("cleaned_responses" in first or "individual_scores" in first):
            return "seahelm"
        if {"question", "response"} <= first.keys() and ("ground_truth" in first or "exact_match" in first):
            return "pacute-bench"
        if {"question", "ground_truth", "options", "logprobs"} <= first.keys():
            return "pacute-bench"  # MCQ rows (`_async_mcq` detail)
        if re.match(r"^samples_.+_\d{4}-\d{2}-\d{2}t", base):
            return "lm-eval"
        if "item_id" in first or "task" in first or not first:
            return "native"
        return None
    if base.endswith(".json"):
        try:
            doc = json.loads(head.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            doc = None
        if isinstance(doc, dict) and doc:
            by_content = _json_kind(doc)
            if by_content:
                return by_content
        if base.startswith("evaluation_results"):
            return "pacute-bench-summary"
        if seahelm.SUMMARY_FILE.match(base):
            return "seahelm-summary"
        if base.startswith("results_") or base.startswith("results."):
            return "lm-eval-summary"
    return None


def resolve(chosen: str, name: str, head: bytes) -> str | None:
    """The format to read a file with: detected under "auto", else the named format (a family picks its
    summary parser for `.json` files)."""
    if chosen == "auto" or detect(name, head) in ("archive", "seahelm-batch"):
        return detect(name, head)
    if chosen in FAMILIES and chosen != "native" and name.lower().endswith(".json"):
        return chosen + "-summary"
    return chosen
