"""Leakage signals on the board: computed from a cell's stored outputs when the cell changes, the model cards'
declarations, and the clean-items score.

`refresh_leakage` runs where a model's cells are re-aggregated (services.ingest.refresh_aggregates: ingest, upload
deletion, the live runner's per-cell refresh), inside the same transaction: each refreshed cell's output signals
(`evaluator.leakage.outputs`, chrF++ per item: worth storing) replace its stored ones; the `leakage` run mode's
probe rows are left alone. A probe's row is about the dataset's items, not one prompt: `cell_signals` applies it to
every prompt language's cell of its (model, task, lang) (the en and the native cell carry the same flag, and the
clean-items view leaves its items out of both). Declarations are not stored as signals: `cell_signals` derives them at read time from
the models' cards and the task registry (a card edit shows at once, nothing goes stale). `clean_score` recomputes a
cell on the items no signal flagged through the evaluator's one aggregate (`evaluator.aggregate.aggregate_cell`),
beside the full score from the same rows; ranks are never changed by a flag.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import duckdb
import pandas as pd

from evaluator.aggregate import CellScore, aggregate_cell
from evaluator.leakage import EVERY_PROMPT, LeakSignal
from evaluator.leakage.declared import check_declaration, declared_signals
from evaluator.leakage.outputs import OUTPUT_SIGNALS, cell_signals as output_signals, signal_kinds
from evaluator.leakage.probes import PROBE_SIGNALS
from evaluator.registry import TASKS
from evaluator.stats import wilson
from services.stored_columns import cell_pairs
from store import audit
from store import leakage as stored
from store.owners import OPERATOR, owner_of
from store.db import transaction

Cell = tuple[str, str, str]
"""(task, lang, prompt_lang)."""


def refresh_leakage(con: duckdb.DuckDBPyConnection, model_id: str, cells: Iterable[Cell],
                    pairs_of: Callable[[Cell], Sequence]) -> int:
    """Recompute and store the output signals of a model's refreshed cells (those whose task has one) from their
    (item, result) pairs, inside the caller's transaction; a cell without answers keeps no row. Returns the rows
    written."""
    keys = [c for c in sorted(set(cells)) if c[0] in TASKS and signal_kinds(TASKS[c[0]])]
    if not keys:
        return 0
    stored.delete_cell_signals(con, [(model_id, *c) for c in keys], OUTPUT_SIGNALS)
    rows = []
    for task, lang, prompt_lang in keys:
        pairs = pairs_of((task, lang, prompt_lang))
        if pairs:
            rows += [s.as_row() for s in output_signals(TASKS[task], lang, pairs, model_id, prompt_lang)]
    return stored.save_signals(con, rows)


def backfill_leakage(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str, str]]:
    """Compute, in one transaction, the output signals of every scored cell that has none (a store upgraded to
    V20, an older export pulled); returns those cells."""
    tasks = [t for t, spec in TASKS.items() if signal_kinds(spec)]
    missing = stored.cells_without_signals(con, tasks, OUTPUT_SIGNALS)
    by_model: dict[str, list[Cell]] = defaultdict(list)
    for model_id, *cell in missing:
        by_model[model_id].append(tuple(cell))
    with transaction(con):
        for model_id, cells in by_model.items():
            refresh_leakage(con, model_id, cells, lambda c, m=model_id: cell_pairs(con, m, TASKS[c[0]], *c[1:]))
    return missing


def cell_signals(con: duckdb.DuckDBPyConnection, model_ids: Sequence[str] | None = None) -> list[LeakSignal]:
    """Every signal of these models' cells (all models when None): the stored rows, each probe's row applied to
    every prompt language's cell of its (model, task, lang) (`every_prompt`), and the declarations."""
    rows = [LeakSignal.from_row(r) for r in stored.read_signals(con)
            if model_ids is None or r["model_id"] in model_ids]
    probes = [s for s in rows if s.signal in PROBE_SIGNALS]
    signals = [s for s in rows if s.signal not in PROBE_SIGNALS]
    cards = stored.declared_data(con, model_ids)
    declared = {m: names for m, (names, _text) in cards.items() if names}
    cells = stored.model_cells(con, sorted(set(declared) | {s.model_id for s in probes}))
    for model_id, *cell in cells:
        if model_id in declared:
            signals += declared_signals(model_id, declared[model_id], [cell], TASKS)
    signals += every_prompt(probes, cells)
    return sorted(signals, key=lambda s: (s.model_id, s.task, s.lang, s.prompt_lang, s.signal))


def every_prompt(probes: Iterable[LeakSignal], cells: Iterable[Sequence[str]]) -> list[LeakSignal]:
    """Probe signals (about the dataset's items, not one prompt) as signals of each (model_id, task, lang,
    prompt_lang) cell of their (model, task, lang) among `cells`; one with no such cell keeps prompt language
    EVERY_PROMPT. A row an older store kept under "en" reads the same; a "*" row wins over it."""
    prompts: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for model_id, task, lang, prompt_lang in cells:
        prompts[(model_id, task, lang)].append(prompt_lang)
    latest: dict[tuple[str, str, str, str], LeakSignal] = {}
    for s in sorted(probes, key=lambda s: s.prompt_lang != EVERY_PROMPT):
        latest.setdefault((s.model_id, s.task, s.lang, s.signal), s)
    return [replace(s, prompt_lang=p) for (m, t, lang, _), s in latest.items()
            for p in prompts.get((m, t, lang)) or [EVERY_PROMPT]]


def evidence(signal: LeakSignal) -> str:
    """A flagged signal's evidence in one plain-text line: which signal, how many items, the interval or p-value."""
    about = PROBE_NOTE if signal.signal in PROBE_SIGNALS else ""
    if not signal.item_ids and signal.p_value is None and signal.statistic is None:
        return f"{signal.signal}: {signal.detail}{about}"
    parts = [signal.signal + ":"]
    if signal.item_ids or signal.n_items:
        parts.append(f"{len(signal.item_ids)} of {signal.n_items} items")
    if signal.statistic is not None and signal.ci_low is not None and signal.ci_high is not None:
        parts.append(f"({100 * signal.statistic:.1f}%, 95% CI {100 * signal.ci_low:.1f}–{100 * signal.ci_high:.1f}%)")
    if signal.p_value is not None:
        parts.append(f"p = {signal.p_value:.3g}")
    return " ".join(parts) + about


PROBE_NOTE = " (a probe of the dataset's items, not of this prompt: shown on every prompt language's cell)"
"""Said after a probe's evidence: the same probe row flags the en and the native cell of its task and language."""


BADGE_COLUMNS = ("model", "task", "lang", "prompt_lang", "family", "badge", "signal", "items flagged", "n items",
                 "share %", "ci low %", "ci high %", "p-value", "evidence", "rule", "flagged item ids")


def flagged_table(con: duckdb.DuckDBPyConnection, family: str | None = None, prompt_lang: str | None = None,
                  models: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per flagged (cell, signal) of a benchmark family and prompt language (all when None), with its
    badge and evidence, for the board (plain text; the page renders it as a table, never as Markdown)."""
    rows = []
    for s in cell_signals(con, models):
        task = TASKS.get(s.task)
        if not s.flagged or (family is not None and (task is None or task.family != family)) or \
                (prompt_lang is not None and s.prompt_lang not in (prompt_lang, EVERY_PROMPT)):
            continue
        pct = (lambda v: None if v is None else 100 * v)
        rows.append({"model": s.model_id, "task": s.task, "lang": s.lang, "prompt_lang": s.prompt_lang,
                     "family": task.family if task else None, "badge": "⚠ leakage", "signal": s.signal,
                     "items flagged": len(s.item_ids), "n items": s.n_items or None, "share %": pct(s.statistic),
                     "ci low %": pct(s.ci_low), "ci high %": pct(s.ci_high), "p-value": s.p_value,
                     "evidence": evidence(s), "rule": s.detail, "flagged item ids": ", ".join(s.item_ids)})
    return pd.DataFrame(rows, columns=list(BADGE_COLUMNS))


def flagged_ids(signals: Iterable[LeakSignal]) -> set[str]:
    """Items some flagged signal lists (a cell-level flag, like a declaration, lists none)."""
    return {i for s in signals if s.flagged for i in s.item_ids}


def clean_score(con: duckdb.DuckDBPyConnection, model_id: str, task: str, lang: str, prompt_lang: str
                ) -> dict[str, object]:
    """The cell's headline score on every item and on the items no signal flagged, both by
    `evaluator.aggregate.aggregate_cell` from the same stored rows: {"full", "clean": CellScore or None (no items
    left), "flagged": sorted item ids, "cell_flags": signals that flag the whole cell (declarations)}."""
    spec = TASKS[task]
    signals = [s for s in cell_signals(con, [model_id]) if (s.task, s.lang, s.prompt_lang) == (task, lang, prompt_lang)]
    flagged = flagged_ids(signals)
    pairs = cell_pairs(con, model_id, spec, lang, prompt_lang)
    kept = [(item, res) for item, res in pairs if item.item_id not in flagged]
    return {"full": headline(aggregate_cell(spec, lang, pairs), spec.headline_metric(lang)),
            "clean": headline(aggregate_cell(spec, lang, kept), spec.headline_metric(lang)) if kept else None,
            "flagged": sorted(flagged), "cell_flags": [s for s in signals if s.flagged and not s.item_ids]}


def headline(scores: Sequence[CellScore], metric: str | None) -> CellScore | None:
    """The headline metric's score among a cell's scores."""
    return next((s for s in scores if s.metric == metric), None)


def clean_table(con: duckdb.DuckDBPyConnection, model_id: str, task: str, lang: str, prompt_lang: str
                ) -> pd.DataFrame:
    """`clean_score` as a two-row table (all items | clean items): metric, score, 95% interval, items."""
    result = clean_score(con, model_id, task, lang, prompt_lang)
    rows = []
    for label, s in (("all items", result["full"]), ("clean items (no signal flagged)", result["clean"])):
        rows.append({"items used": label, "metric": s.metric if s else None, "score": s.value if s else None,
                     "ci low": s.ci_low if s else None, "ci high": s.ci_high if s else None,
                     "n items": s.n if s else 0})
    return pd.DataFrame(rows)


def declare(con: duckdb.DuckDBPyConnection, model_id: str, names: Sequence[str], text: str | None, *,
            owner: str = OPERATOR, actor: str | None = None) -> None:
    """Set a stored model's declared training data (replacing its card's previous declaration) in one transaction,
    as `owner` (only the model's owner changes its card: `store.owners`), with an audit row; ValueError naming the
    field of every problem, an unknown model or another owner's model, and nothing changes."""
    problems = check_declaration(list(names), text, TASKS.values())
    if problems:
        raise ValueError("; ".join(problems))
    with transaction(con):
        holder = owner_of(con, model_id)
        if holder is None:
            raise ValueError(f"model: no stored model named {model_id!r}")
        if holder != owner:
            raise ValueError(f"model: {model_id!r} belongs to another identity; only its owner changes its card")
        stored.set_declaration(con, model_id, list(names), text)
        audit.record(con, actor or owner, "declare", model_id=model_id,
                     detail=f"declared_data: {len(names)} names; training_data: {len(text or '')} characters")


def declare_in_store(db_path: str | None, model_id: str, names: Sequence[str], text: str | None, *, actor: str,
                     timeout: float = 60.0) -> None:
    """`declare` as the operator on the store file under the writer lock (the command line)."""
    from store.writer_lock import writer

    with writer(db_path, timeout=timeout) as con:
        declare(con, model_id, names, text, owner=OPERATOR, actor=actor)


def declarations(con: duckdb.DuckDBPyConnection, model_ids: Sequence[str] | None = None
                 ) -> Mapping[str, tuple[list[str], str | None]]:
    """model_id -> (declared names, training-data text) of the models whose card declares either."""
    return stored.declared_data(con, model_ids)


VARIANTS = ("as stored", "outputs shuffled", "references shuffled")
"""The false-positive check's models per demo model: its stored answers, its answers moved to other items, and
other items' references as answers (none can reflect memorised items: the demo items were written for Tanaw)."""


def false_positive_rates(con: duckdb.DuckDBPyConnection, seed: int = 0) -> list[dict]:
    """Per signal and variant, over every demo-origin model's cells that a signal applies to: items flagged and
    items judged (the Methodology's false-positive rates; benchmarks/bench_leakage_fpr.py prints them)."""
    from evaluator.leakage.outputs import flagged_items, shuffled

    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    cells = con.execute("SELECT DISTINCT a.model_id, a.task, a.lang, a.prompt_lang FROM aggregates a "
                        "JOIN models m USING (model_id) WHERE m.origin = 'demo' ORDER BY ALL").fetchall()
    for model_id, task, lang, prompt_lang in cells:
        spec = TASKS.get(task)
        if spec is None or not signal_kinds(spec):
            continue
        pairs = cell_pairs(con, model_id, spec, lang, prompt_lang)
        variants = {"as stored": pairs, "outputs shuffled": shuffled(pairs, seed),
                    "references shuffled": shuffled(pairs, seed, answers="references")}
        for variant, rows in variants.items():
            for signal in signal_kinds(spec):
                ids, n = flagged_items(signal, rows)
                counts[(signal, variant)][0] += len(ids)
                counts[(signal, variant)][1] += n
    return [{"signal": s, "variant": v, "flagged": f, "items": n} for (s, v), (f, n) in sorted(counts.items())]


FPR_FILE = Path(__file__).resolve().parents[1] / "data" / "leakage_false_positives.json"
"""The false-positive figures as benchmarks/bench_leakage_fpr.py computed them on the demo store."""


def false_positive_figures(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """`false_positive_rates` with each rate's 95% Wilson upper bound (0-1)."""
    return [{**r, "upper": round(wilson(r["flagged"] / r["items"], r["items"])[1], 6) if r["items"] else None}
            for r in false_positive_rates(con)]


def stated_false_positives() -> list[dict]:
    """The stated figures (FPR_FILE); empty when the file is missing or unreadable."""
    try:
        return json.loads(FPR_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []


def methodology_rows() -> list[dict]:
    """One row per output signal for the Methodology page: what it applies to, its rule, and its false positives
    on the demo models (as stored, outputs shuffled, references shuffled)."""
    from evaluator.leakage.outputs import APPLIES, DETAILS, LIMITS

    figures = {(r["signal"], r["variant"]): r for r in stated_false_positives()}
    rows = []
    for signal in OUTPUT_SIGNALS:
        row = {"signal": signal, "applies to": APPLIES[signal], "rule": DETAILS[signal], "limits": LIMITS[signal]}
        for variant in VARIANTS:
            f = figures.get((signal, variant))
            row[f"false positives, {variant}"] = (
                f"{f['flagged']} of {f['items']} items (95% upper bound {100 * f['upper']:.1f}%)" if f else "—")
        rows.append(row)
    return rows
