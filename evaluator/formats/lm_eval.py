"""lm-evaluation-harness result files: `samples_{task}_{date}.jsonl` and `results_{date}.json`.

Layout as lm-evaluation-harness 0.4.13 writes it (`lm_eval/loggers/evaluation_tracker.py`, `evaluator.py`):
sample rows carry `doc_id`, `doc`, `target`, `arguments` (`{"gen_args_i": {"arg_0": context, "arg_1":
continuation}}`), `resps`, `filtered_resps` (log-likelihood rows: `["-12.5", "False"]` per choice, as strings),
`filter`, `metrics`, `doc_hash`, `prompt_hash`, `target_hash` and one key per metric. Generation rows are re-scored
from the raw `resps`; log-likelihood rows become option log-probabilities, aligned with our options by the
continuation text (XCOPA: `convert_choice` lower-cases the first letter), or for XNLI by the label word each
continuation carries (`premise, QUESTION? WORD, hypothesis`, choices in the order entailment, neutral,
contradiction: `xnli/utils.py`), never by position. XCOPA and XNLI are cloze prompts in the target language
(connector or question word), so their rows are filed under prompt language "native". Per-metric keys and
`results_*.json` metrics (`"acc,none"`) are self-reported.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from evaluator.formats import limits as L
from evaluator.formats.parsed import ParsedRows, Row, SummaryScore, each_row
from evaluator.registry import LANG_NAMES, get_task
from evaluator.spec import Prediction

LM_EVAL_TASKS = {"xcopa": "causal", "xnli": "nli", "indonli": "nli"}
"""lm-eval task stems (before `_{lang}`) that are one of ours under another name."""

SINGLE_LANGUAGE = {"indonli": ("nli", "id")}
"""Task names without a language suffix (IndoNLI tasks of SEA forks are named `indonli`, `indonli_lay`...)."""

NATIVE_PROMPT = ("xcopa", "xnli", "indonli")
"""Task stems whose templates are cloze prompts in the target language (connectors, question words)."""

LABEL_WORD_CHOICES = ("xnli", "indonli", "nli")
"""Task stems whose log-likelihood choices are `premise, QUESTION? WORD, hypothesis` continuations, aligned with
our labels by the label word (`xnli_labels`) rather than by option text."""

XNLI_LABEL_WORDS = {
    "th": ("ถูกต้อง", {"ใช่": "entailment", "ดังนั้น": "neutral", "ไม่": "contradiction"}),
    "vi": ("đúng", {"Vâng": "entailment", "Vì vậy": "neutral", "Không": "contradiction"}),
    "en": ("right", {"Yes": "entailment", "Also": "neutral", "No": "contradiction"}),
}
"""Question word and label words of each XNLI continuation `premise, QUESTION? WORD, hypothesis` (`LANGUAGES` in
lm-eval `tasks/xnli/utils.py`, commit 4e7e0d47)."""

_SAMPLES = re.compile(r"^samples_(?P<task>.+?)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.:\-]+)$")
_META = {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics", "doc_hash",
         "prompt_hash", "target_hash"}


def our_cell(name: str) -> tuple[str, str] | None:
    """(task, lang) for an lm-eval task name such as `xcopa_id`, `sentiment_th`, `indonli` or `affixation_mcq`."""
    for prefix, cell in SINGLE_LANGUAGE.items():
        if name == prefix or name.startswith(prefix + "_") and name.rpartition("_")[2] not in LANG_NAMES:
            return cell
    stem, _, lang = name.rpartition("_")
    if stem and lang in LANG_NAMES:
        for cand in (LM_EVAL_TASKS.get(stem, stem), stem.replace("_", "-")):
            try:
                task = get_task(cand)
            except KeyError:
                continue
            if lang in task.langs:
                return task.name, lang
    for cand in (name, name.replace("_", "-")):
        try:
            task = get_task(cand)
        except KeyError:
            continue
        if len(task.langs) == 1:
            return task.name, task.langs[0]
    return None


def task_from_file(file: str) -> str | None:
    """The lm-eval task name in `samples_{task}_{date}.jsonl`."""
    m = _SAMPLES.match(PurePosixPath(file.split("!")[-1]).stem)
    return m["task"] if m else None


def _continuations(args: Any) -> tuple[str, ...] | None:
    """Continuation strings of log-likelihood requests (`arg_1` of each `gen_args_i`, or pairs in a list)."""
    reqs = list(args.values()) if isinstance(args, dict) else args if isinstance(args, list) else []
    conts = []
    for r in reqs:
        if isinstance(r, dict) and isinstance(r.get("arg_1"), str):
            conts.append(r["arg_1"])
        elif isinstance(r, list) and len(r) >= 2 and isinstance(r[1], str):
            conts.append(r[1])
        else:
            return None
    return tuple(conts) or None


def _prompt(args: Any) -> str | None:
    reqs = list(args.values()) if isinstance(args, dict) else args if isinstance(args, list) else []
    if reqs and isinstance(reqs[0], dict) and isinstance(reqs[0].get("arg_0"), str):
        return reqs[0]["arg_0"]
    if reqs and isinstance(reqs[0], list) and reqs[0] and isinstance(reqs[0][0], str):
        return reqs[0][0]
    return None


def _loglik(resp: Any, i: int) -> float | None:
    """Log-probability in one choice's response (`[lp, greedy]`, `[[lp, greedy]]`, or a bare number)."""
    while isinstance(resp, list) and resp and isinstance(resp[0], list):
        resp = resp[0]
    if isinstance(resp, list):
        if len(resp) != 2 and len(resp) != 1:
            return None
        resp = resp[0]
    if isinstance(resp, str) and len(resp) < 40 and re.fullmatch(r"-?[0-9.eE+\-]+|-?inf", resp):
        pass
    elif isinstance(resp, bool) or not isinstance(resp, (int, float)):
        return None
    return L.number(resp, f"filtered_resps[{i}]")


def _generation(resps: Any) -> str | None:
    """The raw generated text: `[["text"]]` (one instance) or `["text"]` (lm-eval >= 0.7 flattened)."""
    while isinstance(resps, list):
        if not resps:
            return None
        resps = resps[0]
    return resps if isinstance(resps, str) else None


def xnli_labels(conts: tuple[str, ...], lang: str, doc: dict) -> tuple[str, ...] | None:
    """The label each XNLI continuation stands for: the word between `premise, QUESTION? ` and `, hypothesis`
    (None when any continuation is not built that way or its word is not one of the language's labels)."""
    question, words = XNLI_LABEL_WORDS.get(lang, ("", {}))
    premise, hypothesis = doc.get("premise"), doc.get("hypothesis")
    if not question or not isinstance(premise, str) or not isinstance(hypothesis, str):
        return None
    head, tail = f"{premise}, {question}? ", f", {hypothesis}"
    labels = []
    for c in conts:
        c = c[1:] if c.startswith(" ") else c  # the target delimiter
        if not (c.startswith(head) and c.endswith(tail)) or len(c) < len(head) + len(tail):
            return None
        word = c[len(head):len(c) - len(tail)]
        if word not in words:
            return None
        labels.append(words[word])
    return tuple(labels)


def _prompt_lang(name: str) -> str:
    return "native" if _has_stem(name, NATIVE_PROMPT) else "en"


def _has_stem(name: str, stems: tuple[str, ...]) -> bool:
    """The lm-eval task name is one of `stems`, alone or followed by `_` (a language, a variant)."""
    return any(name == s or name.startswith(s + "_") for s in stems)


def _texts(doc: dict) -> tuple[str, ...]:
    vals = [v for v in doc.values() if isinstance(v, str)]
    for v in doc.values():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            vals.extend(x for x in v[0].values() if isinstance(x, str))
    return tuple(vals)


def parse_samples(data: bytes, file: str, *, run: int = 1, limits: L.Limits = L.DEFAULT_LIMITS) -> ParsedRows:
    """Rows of one `samples_{task}_{date}.jsonl`."""
    out = ParsedRows(file, "lm-eval")
    name = task_from_file(file)
    if name is None:
        out.error(None, None, "file name is not samples_{task}_{date}.jsonl as lm-evaluation-harness writes it")
        return out
    cell = our_cell(name)
    if cell is None:
        out.warn(None, None, f"unknown lm-eval task {name!r}; rows not imported")
        return out
    task, lang = cell
    spec = get_task(task)

    def row(line: int, obj: dict) -> Row:
        doc_id = L.integer(obj.get("doc_id"), "doc_id")
        if doc_id is None:
            raise L.RowError("doc_id", "missing")
        doc = L.obj(obj, "doc")
        own_id = doc.get("id") is not None
        item_id = L.ident(doc, "id", path="doc.id") if own_id else str(doc_id)
        if obj.get("filter") is not None:
            L.text(obj, "filter")
        args = obj.get("arguments")
        conts = _continuations(args)
        filtered = L.lst(obj, "filtered_resps")
        resps = L.lst(obj, "resps")
        if not resps and not filtered:
            raise L.RowError("resps", "missing: no model output in the row")
        scores = {k[:64]: L.number(v, k) for k, v in obj.items()
                  if k not in _META and isinstance(v, (int, float))}
        logprobs = None
        output = None
        if spec.mode == "choice_logprob" or (conts and len(filtered) == len(conts) and len(conts) > 1):
            src = filtered or resps
            lps = [_loglik(r, i) for i, r in enumerate(src)]
            if not lps or any(v is None for v in lps):
                raise L.RowError("filtered_resps", "expected one [log-probability, is_greedy] pair per choice")
            logprobs = tuple(lps)
        else:
            output = _generation(resps) if resps else _generation(filtered)
            if output is None:
                raise L.RowError("resps", "expected the generated text as a string")
        labels = None
        if logprobs and _has_stem(name, LABEL_WORD_CHOICES):
            labels = xnli_labels(conts or (), lang, doc)
            if labels is None:
                known = ", ".join(XNLI_LABEL_WORDS.get(lang, ("", {}))[1]) or f"none for {lang!r}"
                raise L.RowError("arguments", "the NLI choices are not `premise, QUESTION? WORD, hypothesis` with a "
                                              f"label word Tanaw knows ({known}); they cannot be aligned with "
                                              "entailment/contradiction/neutral")
        pred = Prediction(task=task, lang=lang, item_id=item_id, prompt_lang=_prompt_lang(name), output=output,
                          run=run, option_logprobs=logprobs, self_reported=scores, prompt=_prompt(args) or None)
        fields = {k: v for k, v in doc.items() if isinstance(v, str)}
        return Row(pred, line, texts=_texts(doc), fields=fields, own_id=own_id, file_task=name,
                   choices=conts if logprobs and not labels else None, choice_labels=labels)

    each_row(out, data, limits, row)
    return out


NON_SCORES = ("sample_len", "sample_count", "num_samples", "samples", "n-samples", "alias", "name")
"""Numeric keys of a `results` entry that are not scores (0.4.13 writes `"sample_len": 100` beside `"acc,none"`)."""


def _is_score(key: str, value: Any) -> bool:
    """A metric of a results entry: `metric,filter` (or a bare metric name), numeric, not a stderr or a count."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return "_stderr" not in key and key.split(",")[0] not in NON_SCORES


def parse_results(data: bytes, file: str, *, limits: L.Limits = L.DEFAULT_LIMITS) -> ParsedRows:
    """`results_{date}.json`: `{"results": {task: {"acc,none": 0.61, ...}}}`, kept as self-reported."""
    out = ParsedRows(file, "lm-eval-summary")
    doc, err = L.json_document(data, file, limits)
    if err:
        out.errors.append(err)
        return out
    try:
        results = L.obj(doc, "results", required=True)
    except L.RowError as e:
        out.error(None, e.field, e.problem)
        return out
    name = doc.get("model_name")
    cfg = doc.get("config")
    if not isinstance(name, str) and isinstance(cfg, dict) and isinstance(cfg.get("model_args"), str):
        m = re.search(r"pretrained=([^,]+)", cfg["model_args"])
        name = m.group(1) if m else None
    out.model_hint = name if isinstance(name, str) else None
    for task_name, metrics in results.items():
        if not isinstance(metrics, dict):
            out.error(None, f"results.{task_name}", "expected an object")
            continue
        cell = our_cell(task_name)
        if cell is None:
            out.warn(None, f"results.{task_name}", "unknown task; scores not imported")
            continue
        for key, value in metrics.items():
            if not _is_score(key, value):
                continue
            try:
                v = L.number(value, f"results.{task_name}.{key}")
            except L.RowError as e:
                out.error(None, e.field, e.problem)
                continue
            out.summary.append(SummaryScore(cell[0], cell[1], key[:64], v, _prompt_lang(task_name)))
    if not out.summary and not out.errors:
        out.error(None, "results", "no scores found")
    return out
