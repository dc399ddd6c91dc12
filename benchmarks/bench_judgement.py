"""One annotator's judgement write, with the stored human-evaluation figures recomputed in its transaction.

    python benchmarks/bench_judgement.py [--items 20] [--systems 4] [--annotators 3] [--repeat 15]

Builds a translation campaign through the real wiring (services.campaigns.create_campaign) on a synthetic store:
`--systems` models + the reference = 5 candidates per item (one item also gets the corrupted candidate), `--items`
items, every annotator judging every item (k = annotators) plus one quality-check repeat each, two automatic
metrics per candidate. All judgements but one annotator's last are written first; then that judgement (correct,
ESA score, one error span) is written `--repeat` times, each time replacing itself, and the median is printed:

- `with figures`: services.campaigns.submit_judgement as the annotation page calls it (writer lock, checks, the
  judgement, audit row, and services.human_results.recompute: provisional results, quality, alpha per language);
- `judgement only`: the same call with the recompute switched off (what a write cost before the figures were stored);
- `render before`: what the Human page computed on every render before (evaluator.human.results: system means,
  alphas, quality, alpha per language and Kendall's tau with its 300-draw bootstrap), on the same judgements;
- `finish`: `campaign finish` (final results with the 1,000-draw bootstrap of tau, once).
Machine, load average and row counts are printed with the figures.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluator.human import results  # noqa: E402
from services import campaigns as svc  # noqa: E402
from services import human_results  # noqa: E402
from store import campaigns, db  # noqa: E402
from store.queries import human as human_queries  # noqa: E402

TASK, LANG = "translation-en-xx", "th"


def synthetic_store(path: Path, n_items: int, n_systems: int) -> list[str]:
    """Models, items, runs, answers and two metrics per answer; returns the model ids."""
    con = db.connect(path)
    models = [f"bench/model-{m}" for m in range(n_systems)]
    con.executemany("INSERT INTO models (model_id, origin) VALUES (?, 'evaluated')", [[m] for m in models])
    con.executemany("INSERT INTO items (task, lang, item_id, inputs, gold) VALUES (?, ?, ?, ?, ?)",
                    [[TASK, LANG, f"i{n}", json.dumps({"text": f"source sentence number {n}"}),
                      json.dumps(f"ประโยคอ้างอิง {n}", ensure_ascii=False)] for n in range(n_items)])
    for m_no, m in enumerate(models):
        run = f"run-{m_no}"
        con.execute("INSERT INTO runs (run_id, model_id, task, lang, prompt_lang, source) VALUES "
                    "(?, ?, ?, ?, 'native', 'evaluated')", [run, m, TASK, LANG])
        con.executemany("INSERT INTO predictions (run_id, item_id, output, answer) VALUES (?, ?, 'raw', ?)",
                        [[run, f"i{n}", f"คำแปล {m_no} ของประโยค {n}"] for n in range(n_items)])
        con.executemany("INSERT INTO scores VALUES (?, ?, 'ab', ?, ?)",
                        [[run, f"i{n}", metric, 30.0 + 7 * m_no + (n * (3 + k)) % 17]
                         for n in range(n_items) for k, metric in enumerate(("chrf", "bleu"))])
    con.close()
    return models


def values_for(seq: int, n_cands: int, annotator: int) -> dict[int, dict[str, float]]:
    return {p: {"correct": float((seq + p + annotator) % 3 != 0), "esa": float((17 * seq + 29 * p + 5 * annotator)
                                                                             % 101)} for p in range(n_cands)}


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=20)
    ap.add_argument("--systems", type=int, default=4)
    ap.add_argument("--annotators", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.duckdb"
        models = synthetic_store(path, args.items, args.systems)
        names = [f"ann{a}" for a in range(args.annotators)]
        tokens = svc.create_campaign(path, campaign_id="bench", task=TASK, lang=LANG,
                                     systems=[(m, "native") for m in models], annotators=names,
                                     n_items=args.items, k=args.annotators, seed=7, n_repeats=1)
        con = db.connect(path)
        plan = {a: campaigns.assignments(con, "bench", a) for a in names}
        con.close()
        last = (names[-1], plan[names[-1]][-1])
        for a_no, name in enumerate(names):
            for a in plan[name]:
                if (name, a) != last:
                    svc.submit_judgement(path, tokens[name], a.seq, values_for(a.seq, len(a.cand_order), a_no))
        name, a = last
        spans = {0: [{"start": 0, "end": 4, "severity": "minor"}]}

        def write() -> None:
            svc.submit_judgement(path, tokens[name], a.seq, values_for(a.seq, len(a.cand_order), 1), spans=spans)

        with_figures = median_ms(write, args.repeat)
        real, human_results.recompute = human_results.recompute, lambda *_a, **_k: None
        try:
            bare = median_ms(write, args.repeat)
        finally:
            human_results.recompute = real
        write()
        con = db.connect(path)
        judged = campaigns.judgements(con, "bench")
        metrics = human_queries.campaign_metric_scores(con, campaign_id="bench")
        rows = con.execute("SELECT count(*) FROM judgements").fetchone()[0]
        cands = con.execute("SELECT count(*) FROM campaign_candidates").fetchone()[0]
        con.close()

        def render_before() -> None:
            results.system_means(judged, "mt"), results.alphas(judged, "mt"), results.quality(judged, "mt")
            results.metric_agreement(judged, metrics, "mt", n_boot=300), results.alphas_by_language(judged)

        before = median_ms(render_before, max(3, args.repeat // 5))
        t = time.perf_counter()
        svc.set_finished(path, "bench")
        finish = (time.perf_counter() - t) * 1000
    print(f"campaign: {args.items} items x {args.systems + 1} candidates (+1 corrupted), {args.annotators} annotators, "
          f"1 repeat each; {cands} candidates, {rows} judgement rows, {len(metrics)} metric scores")
    print(f"machine: {platform.machine()} {os.cpu_count()} cpus, python {platform.python_version()}, "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"judgement write, median of {args.repeat}: with figures {with_figures:.1f} ms, "
          f"judgement only {bare:.1f} ms (figures add {with_figures - bare:.1f} ms)")
    print(f"render before (computed per page view, 300-draw tau): {before:.1f} ms; "
          f"campaign finish (1,000-draw tau, once): {finish:.0f} ms")


if __name__ == "__main__":
    main()
