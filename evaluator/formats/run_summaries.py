"""Summary files of several runs in one upload: one self-reported score per cell and metric, the mean over runs.

SEA-HELM writes a results JSON into every run's folder (`{output_dir}/{model}/run_{n}/results/
{model}_seahelm_results_{datetime}.json`, `src/seahelm_evaluation.py` `get_results_json_filepath` at 6844e6c), and
its task score is the mean across the runs (`docs/score_calculations.md`, "Task Level"). A folder of 8 runs
therefore carries 8 values of each score: each is kept as the mean over the runs that give it (within one run the
last file read gives the run's value, as a single file's later entry replaces an earlier one), with a line saying
so, instead of one run's value standing for the cell.
"""
from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from evaluator.formats.limits import FormatError
from evaluator.formats.parsed import SummaryScore


def mean_over_runs(by_run: Sequence[tuple[int, Sequence[SummaryScore]]],
                   name: str) -> tuple[list[SummaryScore], FormatError | None]:
    """The summary scores of an upload's files, given as (run, the file's scores) in reading order: unchanged when
    at most one run has any, else one score per (task, lang, prompt_lang, metric), the mean over the runs giving
    it, and the warning that says so."""
    runs = sorted({run for run, scores in by_run if scores})
    if len(runs) < 2:
        return [s for _, scores in by_run for s in scores], None
    per_run: dict[tuple, dict[int, SummaryScore]] = {}
    for run, scores in by_run:
        for s in scores:
            per_run.setdefault((s.task, s.lang, s.prompt_lang, s.metric), {})[run] = s
    out = []
    for values in per_run.values():
        first = next(iter(values.values()))
        out.append(dataclasses.replace(first, value=float(np.mean([s.value for s in values.values()]))))
    shown = ", ".join(map(str, runs[:8])) + (" …" if len(runs) > 8 else "")
    return out, FormatError(name, None, None, f"summary files of {len(runs)} runs (runs {shown}): each "
                                              "self-reported score is the mean over the runs that give it")
