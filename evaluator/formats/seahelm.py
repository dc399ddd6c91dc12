"""SEA-HELM result files: per-item inference JSONL, the nested results JSON, and the batch files beside them.

Layouts as SEA-HELM writes them (`aisingapore/SEA-HELM`, `src/seahelm_evaluation.py`,
`src/dataloaders/base_dataloader.py`, `src/aggregate_metrics.py` at 6844e6c; `seahelm_evaluation.py` at 360c7cc):
- inference rows `inferences/{lang}/{task}/{model}_{task}_{lang}.jsonl` (360c7cc: `{model}/inference/...`): the
  dataset row (`id` only in some datasets, an integer in some; `label`; `prompts: [{field: text}]`; `metadata`)
  plus `responses` (one entry per turn), `cleaned_responses`, `individual_scores`, `finish_reasons`,
  `token_usages`, `reasoning_contents`, `errors`... The raw first-turn response is re-scored;
  `individual_scores` are kept as self-reported. SEA-HELM prompts are native-language prompts.
- `{model}_{task}_{lang}_turn{n}_batch.jsonl` / `_batch_response.jsonl` (and `judge_` ones): intermediate files of
  the same run, skipped with a note.
- `{model}_seahelm_results_{datetime}.json`: `{lang: {competency: {task: {metric: value, ...}, "total": x},
  "total": x}, "total": x}`; failed tasks carry `"error": "Failed to run evaluation for task"` and a 0.
- Nothing in a file is dropped without a warning line: rows of a task Tanaw cannot re-score (or not in that
  language) keep the mean of their own per-item scores, and summary entries of such tasks their metrics, as
  self-reported under `reported_key` (SEA-HELM name and version, from the task table `evaluator/seahelm_tasks.csv`).
- `-logprobs` task variants score only the probability of the gold answer, which SEA-HELM appends to each
  response (`LogprobsInferenceStrategy`): their rows cannot be re-scored; their summary values are kept as
  self-reported under their own metric names.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from evaluator import seahelm_rollup
from evaluator.formats import limits as L
from evaluator.formats import seahelm_ifeval
from evaluator.formats.parsed import ParsedRows, Row, SummaryScore, each_row
from evaluator.registry import get_task
from evaluator.spec import Prediction

LOGPROBS = "-logprobs"
"""Suffix of SEA-HELM's log-probability task variants (`sentiment-logprobs`, `mp-r-logprobs`...)."""

SUMMARY_NODES = ("total", "pragmatics", "pragmatics-logprobs", "lindsea", "translations")
"""Keys of the results JSON that aggregate tasks (`aggregate_metrics.py`): never tasks themselves."""
GROUPS = frozenset({*(t.group for t in seahelm_rollup.table() if t.group), "pragmatics-logprobs"})
"""Aggregation-group nodes of the results JSON (`aggregation_group` in SEA-HELM's task configs)."""
REPORTED = "seahelm:"
"""Prefix of the self-reported keys of SEA-HELM tasks, groups and totals that are not Tanaw tasks."""

NON_SCORES = ("inference_time_taken", "is_cached", "null_count", "errors", "error", "subcategories",
              "num_samples", "correct_count", "total_count")
"""Keys beside the metrics of a task entry that are not scores."""

FAILED = "Failed to run evaluation for task"
"""The `error` SEA-HELM writes into a task entry whose evaluation failed (its metric is then a 0)."""

_FILE = re.compile(r"^(?P<model>.+)_(?P<task>[A-Za-z0-9.-]+)_(?P<lang>[a-z]{2,3})$")
BATCH_FILE = re.compile(r"_turn\d+_(judge_)?batch(_response)?\.jsonl$", re.IGNORECASE)
"""Intermediate per-turn files SEA-HELM writes beside the inference file."""
SUMMARY_FILE = re.compile(r"^(?P<model>.+)_seahelm_results(_[^/]*)?\.json$", re.IGNORECASE)
"""`{model}_seahelm_results_{datetime}.json` (older runs: without the datetime)."""

_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
"""A competency name of the results JSON kept as a total's metric (SEA-HELM's are like `nlu`, `linguistic-diagnostics`)."""

_METADATA_TEXTS = ("correct", "wrong", "text", "question", "premise", "hypothesis", "context", "conclusion")
"""Metadata fields holding the item's own text (LINDSEA minimal pairs keep `correct`/`wrong` there)."""


def our_task(name: str) -> str | None:
    """Our task id for a SEA-HELM task name (a `-logprobs` variant maps to its task), or None."""
    base = name.removesuffix(LOGPROBS)
    row = seahelm_rollup.lookup(base)  # the task table's `tanaw_task`; empty: the same name
    try:
        return get_task(row.tanaw if row and row.tanaw else base).name
    except KeyError:
        return None


def split_name(file: str) -> tuple[str | None, str | None, str | None]:
    """(model, SEA-HELM task, lang) from `{model}_{task}_{lang}.jsonl`, else Nones."""
    m = _FILE.match(PurePosixPath(file.split("!")[-1]).stem)
    return (m["model"], m["task"], m["lang"]) if m else (None, None, None)


def summary_model(file: str) -> str | None:
    """The model name in `{model}_seahelm_results[_{datetime}].json`, else None."""
    m = SUMMARY_FILE.match(PurePosixPath(file.split("!")[-1]).name)
    return m["model"] if m else None


def _first(v: Any, field: str = "") -> Any:
    """First turn of a per-turn list (SEA-HELM nests one list per turn; a bare value is accepted)."""
    if isinstance(v, list):
        return v[0] if v else None
    return v


def _fields(obj: dict) -> dict[str, str]:
    """The row's input texts by field name: `prompts[0]` fields, metadata texts, top-level text fields."""
    found: dict[str, str] = {}
    prompts = obj.get("prompts")
    if isinstance(prompts, list) and prompts and isinstance(prompts[0], dict):
        found.update({k: v for k, v in prompts[0].items() if isinstance(v, str)})
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        found.update({k: meta[k] for k in _METADATA_TEXTS if isinstance(meta.get(k), str) and k not in found})
    found.update({k: obj[k] for k in ("text", "question", "premise", "context")
                  if isinstance(obj.get(k), str) and k not in found})
    return found


def _scores(v: Any) -> dict[str, float]:
    """Numeric leaves of `individual_scores` (first run/turn when listed), as self-reported metrics."""
    v = _first(v, "individual_scores")
    out: dict[str, float] = {}
    if isinstance(v, dict):
        for k, x in v.items():
            x = _first(x, k)
            if isinstance(x, (int, float)) and not isinstance(x, bool):
                f = L.number(x, f"individual_scores.{k}")
                if f is not None:
                    out[str(k)[:64]] = f
    return out


def parse_batch_file(data: bytes, file: str, *, run: int = 1, limits: L.Limits = L.DEFAULT_LIMITS) -> ParsedRows:
    """A SEA-HELM `_batch` / `_batch_response` file: nothing to import, one note."""
    out = ParsedRows(file, "seahelm-batch")
    out.warn(None, None, "SEA-HELM intermediate batch file (requests or raw responses of one turn) skipped: "
                         "the run's {model}_{task}_{lang}.jsonl holds the same outputs with the item fields")
    return out


def parse_inference(data: bytes, file: str, *, run: int = 1, limits: L.Limits = L.DEFAULT_LIMITS) -> ParsedRows:
    """Rows of one SEA-HELM inference file; task and language come from the file name."""
    out = ParsedRows(file, "seahelm")
    model, seahelm_task, lang = split_name(file)
    if seahelm_task is None:
        out.error(None, None, "file name is not {model}_{task}_{lang}.jsonl as SEA-HELM writes it")
        return out
    out.model_hint = model
    task = our_task(seahelm_task)
    if task is None and seahelm_rollup.lookup(seahelm_task.removesuffix(LOGPROBS)) is None:
        out.warn(None, None, f"unknown SEA-HELM task {seahelm_task!r} (not in Tanaw's table of SEA-HELM tasks); "
                             "rows not imported")
        return out
    if task is None or lang not in get_task(task).langs:
        why = f"Tanaw has no task {seahelm_task!r}" if task is None else f"Tanaw's {task!r} has no language {lang!r}"
        return _items_as_reported(data, out, seahelm_task, lang, why, limits)
    if get_task(task).mode == "chat":  # conversations: evaluator.formats.seahelm_chat, turn by turn
        out.warn(None, None, "SEA-HELM conversation rows are imported turn by turn with their judge named by "
                             "`python -m evaluator judge-import`; rows not imported here")
        return out
    if seahelm_task.endswith(LOGPROBS):
        n = L.count_rows(data, limits)
        out.warn(None, None, f"SEA-HELM {seahelm_task!r} rows score only the probability of the gold answer, which "
                             f"SEA-HELM appends to every response, so they cannot be re-scored; {n} rows not "
                             "imported (the results JSON keeps its cumulative probabilities as self-reported)")
        return out

    unscored: list[int] = []

    def row(line: int, obj: dict) -> Row | None:
        if seahelm_ifeval.unscored(task, lang, obj):
            unscored.append(line)
            return None
        raw_id = obj.get("id")
        own_id = isinstance(raw_id, str)
        item_id = L.ident(obj, "id") if raw_id is not None else f"line-{line}"
        responses = L.lst(obj, "responses", required=True)
        output = _first(responses, "responses")
        if isinstance(output, list):  # several samples per turn: the first
            output = output[0] if output else None
        if output is not None and not isinstance(output, str):
            raise L.RowError("responses[0]", "expected a string")
        L.obj(obj, "metadata")
        reasoning = _first(L.lst(obj, "reasoning_contents"), "reasoning_contents")
        if reasoning is not None and not isinstance(reasoning, str):
            raise L.RowError("reasoning_contents[0]", "expected a string or null")
        finish = _first(L.lst(obj, "finish_reasons"), "finish_reasons")
        if finish is not None and not isinstance(finish, str):
            raise L.RowError("finish_reasons[0]", "expected a string or null")
        usage = _first(L.lst(obj, "token_usages"), "token_usages")
        tokens_in = tokens_out = None
        if usage is not None:
            if not isinstance(usage, dict):
                raise L.RowError("token_usages[0]", "expected an object")
            tokens_in = L.integer(usage.get("prompt_tokens"), "token_usages[0].prompt_tokens")
            tokens_out = L.integer(usage.get("completion_tokens"), "token_usages[0].completion_tokens")
        scores = _scores(obj.get("individual_scores"))
        pred = Prediction(task=task, lang=lang, item_id=item_id, prompt_lang="native", output=output, run=run,
                          reasoning=reasoning, tokens_in=tokens_in, tokens_out=tokens_out,
                          finish_reason=finish, self_reported=scores)
        label = obj.get("label")
        fields = _fields(obj)
        return Row(pred, line, texts=tuple(fields.values()), fields=fields, own_id=own_id, file_task=seahelm_task,
                   label=label.strip().upper() if isinstance(label, str) and label.strip().upper() in ("A", "B")
                   else None)

    each_row(out, data, limits, row)
    if unscored:
        out.warn(unscored[0], "metadata.subcategory", seahelm_ifeval.note(lang, len(unscored)))
    return out


def _items_as_reported(data: bytes, out: ParsedRows, seahelm_task: str, lang: str, why: str,
                       limits: L.Limits) -> ParsedRows:
    """Rows of a task Tanaw cannot re-score: the mean of the file's own per-item scores (`individual_scores`,
    first run and turn) per metric, kept as self-reported under `reported_key` on the file's own scale."""
    sums: dict[str, list[float]] = {}
    n = 0
    for line, obj, err in L.json_lines(data, out.file, limits):
        if err is not None:
            out.errors.append(err)
            continue
        if not isinstance(obj, dict):
            out.error(line, None, "expected a JSON object")
            continue
        n += 1
        try:
            for k, v in _scores(obj.get("individual_scores")).items():
                sums.setdefault(k, []).append(v)
        except L.RowError as e:
            out.error(line, e.field, e.problem)
    if out.errors:
        return out
    key = reported_key(seahelm_task)
    out.summary += [SummaryScore(key, lang, f"item_mean_{k}"[:64], sum(v) / len(v), "native")
                    for k, v in sums.items()]
    kept = (f"the mean of its per-item scores ({', '.join(sums)}) kept as self-reported under {key!r}"
            if sums else "the file carries no per-item scores")
    out.warn(None, None, f"{why}: {n} rows not re-scored; {kept}")
    return out


def _entry_scores(entry: dict, where: str, out: ParsedRows) -> dict[str, float]:
    """The metrics of one task entry: numbers that are not counts, flags, timings or standard errors."""
    scores: dict[str, float] = {}
    for metric, value in entry.items():
        if metric in NON_SCORES or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if str(metric).startswith("clt_se") or "stderr" in str(metric) or str(metric).endswith("_logprobs"):
            continue  # standard errors; log-scale means (the probability beside it is kept)
        try:
            v = L.number(value, f"{where}.{metric}")
        except L.RowError as e:
            out.error(None, e.field, e.problem)
            continue
        if v is not None:
            scores[str(metric)[:64]] = v
    return scores


def _listing(names: list[str], n: int = 5) -> str:
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")


def reported_key(name: str) -> str:
    """The self-reported task key of a SEA-HELM task Tanaw does not score (in that language): `seahelm:{name}:v{version}`
    with the version of SEA-HELM's task table (`evaluator.seahelm_rollup`); a group node's `seahelm:{name}`.
    Group nodes (`translations`, `global_mmlu_lite`...) and the file's totals (`seahelm:total`) use the same prefix."""
    name = name[:80]
    row = seahelm_rollup.lookup(name.removesuffix(LOGPROBS))
    return f"{REPORTED}{name}:v{row.version}" if row and row.version and name not in GROUPS else f"{REPORTED}{name}"


def reported_name(key: str) -> str | None:
    """The SEA-HELM task or group name of a self-reported key (`reported_key`), None when it is not one."""
    if not key.startswith(REPORTED):
        return None
    return key[len(REPORTED):].split(":v", 1)[0]


def _node_scores(node: Any) -> dict[str, float]:
    """A group node's score: a bare number (`translations`, `global_mmlu_lite`...) or its normalised metrics."""
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        return {"normalized_score": float(node)}
    if isinstance(node, dict):
        return {k: float(v) for k, v in node.items() if str(k).startswith("normalized")
                and isinstance(v, (int, float)) and not isinstance(v, bool)}
    return {}


def parse_summary(data: bytes, file: str, *, limits: L.Limits = L.DEFAULT_LIMITS) -> ParsedRows:
    """`{lang: {competency: {task: {metric: value}}}}`: every task that ran is kept as self-reported.

    A task Tanaw has in that language keeps its Tanaw name (re-scoring its rows, when uploaded, replaces it); any
    other under `reported_key` (SEA-HELM name and version). The aggregation-group nodes whose parts ran and the
    file's competency, language and SEA totals are kept too (`seahelm:total`: metric = competency, "language" or
    "sea"). Failed entries, nodes computed from failed parts and keys that are not scores are left out, each kind
    with one warning naming them. A file in which every task failed imports nothing and says so.
    """
    out = ParsedRows(file, "seahelm-summary")
    doc, err = L.json_document(data, file, limits)
    if err:
        out.errors.append(err)
        return out
    if not isinstance(doc, dict):
        out.error(None, None, "expected a JSON object {lang: {competency: {task: {metric: value}}}}")
        return out
    out.model_hint = summary_model(file)
    failed, ours_failed, kept_foreign, unknown, stale, skipped, again = [], [], [], [], [], [], []
    total = f"{REPORTED}total"
    for lang, comps in doc.items():
        if lang == "total" and _node_scores(comps):
            out.summary.append(SummaryScore(total, "sea", "sea", _node_scores(comps)["normalized_score"], "native"))
            continue
        if not (isinstance(comps, dict) and re.fullmatch(r"[a-z]{2,3}", str(lang))):
            skipped.append(str(lang)[:40])
            continue
        for comp, tasks in comps.items():
            if comp == "total" and _node_scores(tasks):
                out.summary.append(SummaryScore(total, lang, "language", _node_scores(tasks)["normalized_score"],
                                                "native"))
                continue
            if not isinstance(tasks, dict) or not _NAME.fullmatch(str(comp)):
                skipped.append(f"{lang}.{comp}"[:80])
                continue
            ran = {n for n, e in tasks.items() if isinstance(e, dict) and n not in SUMMARY_NODES
                   and e.get("error") is None}
            for name, entry in tasks.items():
                where = f"{lang}.{comp}.{name}"
                if name == "total" and _node_scores(entry):
                    out.summary.append(SummaryScore(total, lang, str(comp)[:64], _node_scores(entry)["normalized_score"],
                                                    "native"))
                    continue
                if name == "lindsea":
                    again.append(f"{name}/{lang}")
                    continue
                if not isinstance(entry, dict) or (name in GROUPS and seahelm_rollup.lookup(name) is None):
                    parts = [n for n in ran if seahelm_rollup.unit_of(n) == name]
                    scores = _node_scores(entry)
                    if not scores or name not in GROUPS:
                        skipped.append(where[:80])
                    elif not parts:
                        stale.append(f"{name}/{lang}")
                    else:
                        out.summary += [SummaryScore(reported_key(name), lang, m, v, "native")
                                        for m, v in scores.items()]
                    continue
                task = our_task(name)
                ours = task is not None and lang in get_task(task).langs
                if entry.get("error") is not None:
                    failed.append(f"{name}/{lang}")
                    if ours:
                        ours_failed.append(f"{name}/{lang}")
                    continue
                if not ours and seahelm_rollup.lookup(name.removesuffix(LOGPROBS)) is None:
                    unknown.append(f"{name}/{lang}"[:80])
                    continue
                key = task if ours else reported_key(name)
                if not ours:
                    kept_foreign.append(f"{name}/{lang}")
                for metric, v in _entry_scores(entry, where, out).items():
                    out.summary.append(SummaryScore(key, lang, metric, v, "native"))
    for names, what in (
            (failed, f"tasks failed in this file; not imported (\"{FAILED}\": {{}}; {len(ours_failed)} of them are "
                     "Tanaw tasks)"),
            (kept_foreign, "task scores are of tasks Tanaw does not score in that language; kept as self-reported "
                           "under their SEA-HELM name and version ({})"),
            (unknown, "task entries are not in Tanaw's table of SEA-HELM tasks (evaluator/seahelm_tasks.csv); "
                      "not imported ({})"),
            (stale, "group scores were computed from failed tasks only; not imported ({})"),
            (again, "`lindsea` nodes repeat their linguistic-diagnostics total; kept once, as that total ({})"),
            (skipped, "entries are neither a language, a task nor a score; not imported ({})")):
        if names:
            out.warn(None, None, f"{len(names)} " + what.format(_listing(names)))
    if not any(s.task != total for s in out.summary) and not out.errors:
        why = f"every task in this file failed in SEA-HELM ({len(failed)} failed entries)" if failed else \
            "no task scores found"
        out.summary = []
        out.error(None, None, f"{why}; no score imported")
    return out
