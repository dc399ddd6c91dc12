"""lm-evaluation-harness's `local-chat-completions`, timed on N chat requests (run by bench_throughput.py).

Runs inside the lm-eval venv (it imports nothing from Tanaw). The model is built as `lm_eval --model
local-chat-completions --model_args model=standin,base_url=...,num_concurrent=C,max_retries=3,tokenizer_backend=None
--apply_chat_template` builds it (`create_from_arg_string`), so no tokenizer is loaded (nothing from the Hub) and
every request is one chat completion. Its concurrent path is lm-eval's own: one aiohttp session with
TCPConnector(limit=C), an asyncio.Semaphore(C), tenacity retries, one task per request. Two modes, each timed after
a warm-up pass of C requests through the same path:

  * `loop` (default): `generate_until` alone on Instances built before the clock starts, whose context is a JSON
    chat (`JsonChatStr`): the harness's request loop, with no request building, scoring or aggregation;
  * `evaluate`: the harness's own runner, `lm_eval.evaluator.evaluate`, on N documents held locally (a JSONL file
    and task YAMLs in a temporary directory, loaded as `--include_path DIR --tasks ...` loads them, offline). The
    work is shaped like the Tanaw full run's: single-label sentiment-style classification in four languages (one
    task per language, N/4 documents each, zero-shot), a short prompt per document, a gold label
    (`doc_to_target: label`), lm-eval's own `exact_match` (computed locally, no HF `evaluate` module) with its
    default aggregation (mean) and stderr. The prompt comes from a Python function (`doc_to_text: !function ...`,
    the default, as Tanaw renders a Python format string) or, with `--prompts jinja`, from a Jinja template string
    in the YAML, which lm-eval 0.4.13 compiles again for every document (slower).
    `evaluate` is called with `simple_evaluate`'s arguments for `--apply_chat_template` (chat template applied,
    fewshot_as_multiturn, bootstrap_iters=100000, log_samples=True: every sample kept in memory, as Tanaw keeps
    every answer; the command line keeps them only with `--log_samples --output_path`, and writes them then; here
    nothing is written). The clock starts once the model and the task dict (its
    documents loaded) exist and stops when `evaluate` returns: requests built, sent, filtered, scored, aggregated.

    A full garbage collection runs just before the clock: with the harness's imports (about 140,000 objects) one
    full collection (0.08-0.1 s here) then falls in every timed run, instead of one or two depending on C.

Prints one JSON line: seconds, CPU seconds, answers; in `evaluate` mode also `before_s` (building the requests, up
to the call of generate_until), `generate_s` (inside generate_until), `after_s` (filters, metrics, aggregation with
stderr, logged samples), exact_match (the tasks' values weighted by their sizes), its stderr per task and the same mean recomputed from the
logged samples (so it is visible that scoring happened).
"""
from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import random
import tempfile
import time
from pathlib import Path

LANGS = ("id", "vi", "th", "ta")
"""One task per language, as the Tanaw full run's cells (sentiment in id/vi/th/ta)."""
LABELS = ("A", "B")
"""The gold labels: the stand-in answers "A" or "B" (a hash of the prompt), so exact_match lands near 0.5."""
PROMPT = ("What is the sentiment of the following sentence?\n{text}\n"
          "Answer only with a single letter: A (Positive) or B (Negative)")
"""The prompt, as Tanaw's English sentiment prompt (a Python format string) but answered with a letter."""
PROMPTS_MODULE = f"""PROMPT = {PROMPT!r}


def doc_to_text(doc):
    return PROMPT.format(text=doc["text"])
"""
"""`standin_prompts.py` beside the YAMLs, for `doc_to_text: !function standin_prompts.doc_to_text`."""
DOC_TO_TEXT = {
    "function": "!function standin_prompts.doc_to_text",
    "jinja": '"' + PROMPT.replace("\n", "\\n").replace("{text}", "{{text}}") + '"',
}
"""The two ways a task YAML gives its prompt: a Python function (as Tanaw renders a format string) or a Jinja
template string, which lm-eval 0.4.13 compiles again for every document (`utils.apply_template`)."""
TASK_YAML = """task: {name}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {docs}
test_split: test
output_type: generate_until
doc_to_text: {doc_to_text}
doc_to_target: label
generation_kwargs:
  until: ["\\n"]
  max_gen_toks: 8
  do_sample: false
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
    ignore_case: true
    ignore_punctuation: true
metadata:
  version: 1.0
"""


def model_args(base_url: str, concurrency: int) -> str:
    """`--model_args` as given on lm_eval's command line."""
    return (f"model=standin,base_url={base_url.rstrip('/')}/chat/completions,num_concurrent={concurrency},"
            "max_retries=3,tokenizer_backend=None")


def loop_mode(args: argparse.Namespace) -> dict:
    """generate_until alone on prebuilt Instances: (seconds, cpu_s, answers)."""
    from lm_eval.api.instance import Instance
    from lm_eval.models.api_models import JsonChatStr
    from lm_eval.models.openai_completions import LocalChatCompletion

    lm = LocalChatCompletion(model="standin", base_url=args.base_url.rstrip("/") + "/chat/completions",
                             num_concurrent=args.concurrency, max_retries=3, tokenizer_backend=None,
                             tokenized_requests=False, max_gen_toks=8)

    def requests(prefix: str, n: int) -> list:
        return [Instance(request_type="generate_until", doc={}, idx=0,
                         arguments=(JsonChatStr(json.dumps([{"role": "user", "content": f"{prefix} {i}"}])),
                                    {"until": ["\n"], "max_gen_toks": 8}))
                for i in range(n)]

    lm.generate_until(requests("warm-up", args.concurrency), disable_tqdm=True)  # lazy imports, as for Tanaw
    todo = requests("question", args.requests)
    t0, c0 = time.perf_counter(), time.process_time()
    answers = lm.generate_until(todo, disable_tqdm=True)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"seconds": seconds, "cpu_s": cpu, "answers": sum(1 for a in answers if a)}


def write_tasks(folder: Path, prefix: str, n: int, prompts: str) -> list[str]:
    """Task YAMLs and their JSONL documents in `folder`: one task per language, n documents in all (split as evenly
    as possible), the prompt given as `prompts` says (see DOC_TO_TEXT). Returns the task names."""
    (folder / "standin_prompts.py").write_text(PROMPTS_MODULE, encoding="utf-8")
    names = []
    for k, lang in enumerate(LANGS):
        count = n // len(LANGS) + (k < n % len(LANGS))
        if not count:
            continue
        name = f"{prefix}_sentiment_{lang}"
        docs = folder / f"{name}.jsonl"
        with docs.open("w", encoding="utf-8") as f:
            for i in range(count):
                text = f"{prefix} review {i} in {lang}: the service was slow but the food arrived warm and tasty."
                f.write(json.dumps({"text": text, "label": LABELS[i % 2]}) + "\n")
        yaml = TASK_YAML.format(name=name, docs=docs, doc_to_text=DOC_TO_TEXT[prompts])
        (folder / f"{name}.yaml").write_text(yaml, encoding="utf-8")
        names.append(name)
    return names


def load_tasks(manager, names: list[str]) -> dict:
    """`TaskManager.load` plus the per-task settings `simple_evaluate` applies before `evaluate` (no num_fewshot
    given: 0; the default few-shot seed)."""
    from lm_eval.defaults import DEFAULT_OTHER_SEED

    loaded = manager.load(names)
    for task in loaded["tasks"].values():
        if task.get_config("num_fewshot") is None:
            task.set_config(key="num_fewshot", value=0)
        task.set_fewshot_seed(seed=DEFAULT_OTHER_SEED)
    return loaded


def evaluate_mode(args: argparse.Namespace) -> dict:
    """lm-eval's `evaluate` on N local documents: seconds, cpu_s, before_s / generate_s / after_s, and `summary`."""
    with tempfile.TemporaryDirectory(prefix="lmeval-task-") as name:
        return timed_evaluate(args, Path(name))


def timed_evaluate(args: argparse.Namespace, folder: Path) -> dict:
    """`evaluate_mode` with its tasks, documents and datasets cache in `folder`."""
    os.environ.update(HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", HF_DATASETS_CACHE=str(folder / "cache"))
    import numpy as np
    from lm_eval.defaults import DEFAULT_OTHER_SEED, DEFAULT_RANDOM_SEED
    from lm_eval.evaluator import evaluate
    from lm_eval.models.openai_completions import LocalChatCompletion
    from lm_eval.tasks import TaskManager

    random.seed(DEFAULT_RANDOM_SEED)
    np.random.seed(DEFAULT_OTHER_SEED)
    lm = LocalChatCompletion.create_from_arg_string(model_args(args.base_url, args.concurrency),
                                                    {"batch_size": None, "max_batch_size": None, "device": None})
    warm_names = write_tasks(folder, "warmup", args.concurrency, args.prompts)
    names = write_tasks(folder, "standin", args.requests, args.prompts)
    # only the tasks of this folder are indexed (the built-in index is not needed to resolve them)
    manager = TaskManager(include_path=str(folder), include_defaults=False)
    settings = dict(bootstrap_iters=100000, log_samples=True, apply_chat_template=True, fewshot_as_multiturn=True)
    evaluate(lm=lm, task_dict=load_tasks(manager, warm_names), **settings)  # warm-up: imports, connections
    task_dict = load_tasks(manager, names)

    marks, generate = {}, lm.generate_until

    def timed_generate(requests, disable_tqdm: bool = False):
        marks["in"] = time.perf_counter()
        try:
            return generate(requests, disable_tqdm=disable_tqdm)
        finally:
            marks["out"] = time.perf_counter()

    lm.generate_until = timed_generate  # `evaluate` calls getattr(lm, "generate_until")
    gc.collect()  # a full collection now, not at a point of the timed run that depends on C (see the docstring)
    t0, c0 = time.perf_counter(), time.process_time()
    results = evaluate(lm=lm, task_dict=task_dict, **settings)
    end, cpu = time.perf_counter(), time.process_time() - c0
    return {"seconds": end - t0, "cpu_s": cpu, "generate_s": marks["out"] - marks["in"],
            "before_s": marks["in"] - t0, "after_s": end - marks["out"], **summary(results, names)}


def summary(results: dict, names: list[str]) -> dict:
    """Answers, exact_match and its stderr over the tasks (document-weighted), and the same mean recomputed from
    the logged samples."""
    samples = [s for name in names for s in results["samples"][name]]
    answers = sum(1 for s in samples if s["resps"][0][0])
    sizes = [len(results["samples"][name]) for name in names]
    metric = sum(results["results"][name]["exact_match,none"] * k for name, k in zip(names, sizes)) / sum(sizes)
    stderr = [results["results"][name]["exact_match_stderr,none"] for name in names]
    check = sum(s["filtered_resps"][0].strip().upper() == s["target"] for s in samples) / len(samples)
    return {"answers": answers, "exact_match": metric, "exact_match_stderr": stderr, "exact_match_from_samples": check}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True, help="…/v1 of the stand-in")
    parser.add_argument("--concurrency", type=int, required=True)
    parser.add_argument("--requests", type=int, required=True)
    parser.add_argument("--mode", choices=("loop", "evaluate"), default="loop",
                        help="loop: generate_until alone (default); evaluate: lm-eval's evaluate() on a local task")
    parser.add_argument("--prompts", choices=tuple(DOC_TO_TEXT), default="function",
                        help="evaluate mode: the task's doc_to_text as a Python function (default) or a Jinja template")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    print(json.dumps(evaluate_mode(args) if args.mode == "evaluate" else loop_mode(args)))


if __name__ == "__main__":
    main()
