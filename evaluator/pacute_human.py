"""The PACUTE paper's human baseline: three native speakers on a stratified 10% sample of the main suite.

Read from the files pacute-bench publishes (`results-202605/human_baseline/` at the pinned commit):
`scores_per_annotator.json` (each annotator's accuracy per benchmark and format, scored by pacute-bench) and
`iaa.json` (Fleiss' kappa and raw agreement as pacute-bench computed them). When the three annotation workbooks
(`data/human_baseline_annotations/annotation_annotator{1,2,3}.xlsx`) are at hand, Fleiss' kappa and raw agreement
are recomputed from the answers themselves with statsmodels (`statsmodels.stats.inter_rater.fleiss_kappa`) and the
file's own values are kept beside them. Rows come out as reported rows: shown beside the models, never ranked.

How pacute-bench builds the ratings (scripts/score_human_baselines.py at dcab16b, `compute_iaa`): MCQ on the option
letters the annotators chose; GEN on whether each answer is right (binary), the answer trimmed and case-folded
against the reference trimmed, lower-cased and stripped of hyphens; raw agreement is the share of items on which
all three gave the identical answer. Only items all three answered are counted.
"""
from __future__ import annotations

import io
import json
import math
import re
from dataclasses import dataclass
from typing import Callable, Sequence

from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

SCORES_FILE = "scores_per_annotator.json"
IAA_FILE = "iaa.json"
WORKBOOKS = tuple(f"annotation_annotator{i}.xlsx" for i in (1, 2, 3))
MAX_JSON_BYTES = 1 << 20
MAX_WORKBOOK_BYTES = 8 << 20
BENCHMARKS = ("composition", "manipulation", "syllabification", "morphological_extraction",
              "morphological_production")
"""The main suite's benchmarks the annotators answered (pacute-bench human-baselines.MD at dcab16b)."""
SHEETS = {"composition_MCQ": ("composition", "mcq"), "composition_GEN": ("composition", "gen"),
          "manipulation_MCQ": ("manipulation", "mcq"), "manipulation_GEN": ("manipulation", "gen"),
          "syllabification_MCQ": ("syllabification", "mcq"), "syllabification_GEN": ("syllabification", "gen"),
          "morph_extract_MCQ": ("morphological_extraction", "mcq"),
          "morph_extract_GEN": ("morphological_extraction", "gen"),
          "morph_prod_MCQ": ("morphological_production", "mcq"), "morph_prod_GEN": ("morphological_production", "gen")}
"""Workbook sheet → (benchmark, format), as scripts/score_human_baselines.py (dcab16b) names them."""
ANNOTATOR = re.compile(r"annotator([1-9])")
SYSTEM_MEAN = "human: mean of 3 annotators"
SYSTEM_AGREEMENT = "human: agreement of 3 annotators"


class HumanBaselineError(ValueError):
    """A human-baseline file is malformed; the message names the file and the field."""


@dataclass(frozen=True)
class BaselineRow:
    """One reported figure: benchmark and format, who (an annotator, their mean or their agreement), metric,
    value (0-100 for scores and agreement, -1..1 for kappa; None when undefined) and a note."""

    benchmark: str
    fmt: str
    system: str
    metric: str
    value: float | None
    n: int
    note: str


def kappa(ratings: Sequence[Sequence[object]]) -> float | None:
    """Fleiss' kappa of items × raters `ratings` (any hashable categories), by statsmodels; None when it is
    undefined (no items, or every rating the same category, where chance agreement is 1)."""
    if not ratings:
        return None
    table, _ = aggregate_raters([[str(r) for r in row] for row in ratings])
    if table.shape[1] < 2:
        return None
    return float(fleiss_kappa(table, method="fleiss"))


def raw_agreement(ratings: Sequence[Sequence[object]]) -> float | None:
    """Share (0-1) of items on which every rater gave the same rating."""
    return sum(len(set(map(str, row))) == 1 for row in ratings) / len(ratings) if ratings else None


def _json(name: str, data: bytes) -> dict:
    if len(data) > MAX_JSON_BYTES:
        raise HumanBaselineError(f"{name}: {len(data)} bytes, more than the {MAX_JSON_BYTES} a baseline file may have")
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise HumanBaselineError(f"{name}: not UTF-8 JSON ({e.__class__.__name__}: line "
                                 f"{getattr(e, 'lineno', '?')})") from None
    if not isinstance(doc, dict):
        raise HumanBaselineError(f"{name}: the top level is not an object")
    return doc


def _share(name: str, field: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0 <= value <= 1:
        raise HumanBaselineError(f"{name}: {field}: {str(value)[:40]!r} is not a number in 0-1")
    return float(value)


def _count(name: str, field: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= 100_000:
        raise HumanBaselineError(f"{name}: {field}: {str(value)[:40]!r} is not an item count")
    return value


def _key(name: str, key: object) -> tuple[str, str]:
    bench, _, fmt = str(key).rpartition("_")
    if bench not in BENCHMARKS or fmt not in ("mcq", "gen"):
        raise HumanBaselineError(f"{name}: {str(key)[:60]!r}: not a benchmark the baseline covers "
                                 f"({', '.join(BENCHMARKS)}; _mcq or _gen)")
    return bench, fmt


def read_scores(data: bytes) -> dict[tuple[str, str], dict[int, tuple[int, float, float | None]]]:
    """`scores_per_annotator.json` → (benchmark, fmt) → annotator number → (items, accuracy or exact match,
    contains match for GEN), shares 0-1."""
    doc, out = _json(SCORES_FILE, data), {}
    for who, benches in doc.items():
        m = ANNOTATOR.fullmatch(str(who))
        if not m or not isinstance(benches, dict):
            raise HumanBaselineError(f"{SCORES_FILE}: {str(who)[:40]!r}: expected annotator1..9 with an object")
        for key, s in benches.items():
            bench, fmt = _key(SCORES_FILE, key)
            where = f"{who}.{key}"
            if not isinstance(s, dict):
                raise HumanBaselineError(f"{SCORES_FILE}: {where}: not an object")
            n = _count(SCORES_FILE, f"{where}.num_samples", s.get("num_samples"))
            main = _share(SCORES_FILE, f"{where}.{'accuracy' if fmt == 'mcq' else 'exact_match'}",
                          s.get("accuracy" if fmt == "mcq" else "exact_match"))
            contains = _share(SCORES_FILE, f"{where}.contains_match", s.get("contains_match")) \
                if fmt == "gen" else None
            out.setdefault((bench, fmt), {})[int(m.group(1))] = (n, main, contains)
    return out


def read_iaa(data: bytes) -> dict[tuple[str, str], tuple[int, float | None, float]]:
    """`iaa.json` → (benchmark, fmt) → (items, Fleiss' kappa or None, raw agreement 0-1) as the file states them
    (GEN: `kappa_binary` and `pct_exact_agree_raw`)."""
    doc, out = _json(IAA_FILE, data), {}
    for key, s in doc.items():
        bench, fmt = _key(IAA_FILE, key)
        if not isinstance(s, dict):
            raise HumanBaselineError(f"{IAA_FILE}: {key}: not an object")
        kfield, afield = ("kappa", "pct_agree") if fmt == "mcq" else ("kappa_binary", "pct_exact_agree_raw")
        k = s.get(kfield)
        if k is not None and (isinstance(k, bool) or not isinstance(k, (int, float)) or not -1 <= k <= 1):
            raise HumanBaselineError(f"{IAA_FILE}: {key}.{kfield}: {str(k)[:40]!r} is not a kappa in -1..1")
        out[(bench, fmt)] = (_count(IAA_FILE, f"{key}.n", s.get("n")), None if k is None else float(k),
                             _share(IAA_FILE, f"{key}.{afield}", s.get(afield)))
    return out


def _cell_text(value: object) -> str:
    return "" if value is None else str(value).strip()


def _gen_right(answer: str, reference: str) -> int:
    """pacute-bench's binary rating of a GEN answer for kappa (score_mcq(answer, _normalize(reference)))."""
    return int(bool(answer) and answer.upper() == reference.lower().strip("-").strip().upper())


def read_workbook_ratings(workbooks: Sequence[tuple[str, bytes]]) -> dict[tuple[str, str], tuple[list, list]]:
    """The annotators' answers in their workbooks → (benchmark, fmt) → (raw ratings, ratings for kappa): one row
    per item all of them answered, one column per annotator (GEN kappa ratings are 1 right / 0 wrong)."""
    from openpyxl import load_workbook

    answers: list[dict[tuple[str, str], dict[str, tuple[str, str]]]] = []
    for name, data in workbooks:
        if len(data) > MAX_WORKBOOK_BYTES:
            raise HumanBaselineError(f"{name}: {len(data)} bytes, more than the {MAX_WORKBOOK_BYTES} allowed")
        try:
            wb = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        except Exception as e:  # openpyxl raises many kinds for a damaged file  # noqa: BLE001
            raise HumanBaselineError(f"{name}: not a readable workbook ({e.__class__.__name__})") from None
        mine: dict[tuple[str, str], dict[str, tuple[str, str]]] = {}
        for sheet, key in SHEETS.items():
            if sheet not in wb.sheetnames:
                continue
            rows = wb[sheet].iter_rows(values_only=True)
            header = [_cell_text(h) for h in next(rows, ())]
            ref = "correct_option" if key[1] == "mcq" else "reference_answer"
            missing = [c for c in ("item_id", "annotator_answer", ref) if c not in header]
            if missing:
                raise HumanBaselineError(f"{name}: sheet {sheet}: line 1: no column {missing[0]!r}")
            col = {c: header.index(c) for c in ("item_id", "annotator_answer", ref)}
            got = mine.setdefault(key, {})
            for row in rows:
                if not any(v is not None for v in row):
                    continue
                item = _cell_text(row[col["item_id"]] if col["item_id"] < len(row) else None)
                if item:
                    got[item] = tuple(_cell_text(row[col[c]] if col[c] < len(row) else None)
                                      for c in ("annotator_answer", ref))
        wb.close()
        answers.append(mine)
    out = {}
    for key in sorted(set.intersection(*(set(a) for a in answers)) if answers else ()):
        items = [i for i in answers[0][key] if all(i in a[key] for a in answers)]
        raw = [[a[key][i][0] for a in answers] for i in items]
        rated = raw if key[1] == "mcq" else [[_gen_right(a[key][i][0], a[key][i][1]) for a in answers] for i in items]
        out[key] = (raw, rated)
    return out


def baseline_rows(scores: bytes, iaa: bytes, workbooks: Sequence[tuple[str, bytes]] = (),
                  warn: Callable[[str], None] = lambda _line: None) -> list[BaselineRow]:
    """The reported rows of the human baseline: per benchmark and format each annotator's score, their mean,
    Fleiss' kappa and raw agreement (recomputed from the workbooks when given; a difference from the file's own
    value is passed to `warn` and both are kept in the note)."""
    per_annotator, stated = read_scores(scores), read_iaa(iaa)
    recomputed = read_workbook_ratings(workbooks) if workbooks else {}
    rows: list[BaselineRow] = []
    for (bench, fmt), by_ann in sorted(per_annotator.items()):
        metric = "mcq_acc" if fmt == "mcq" else "exact_match"
        n = max(v[0] for v in by_ann.values())
        for who, (n_who, main, contains) in sorted(by_ann.items()):
            rows.append(BaselineRow(bench, fmt, f"human: annotator {who}", metric, 100 * main, n_who,
                                    "pacute-bench's own scoring of the annotator's answers"))
            if contains is not None:
                rows.append(BaselineRow(bench, fmt, f"human: annotator {who}", "contains_match", 100 * contains,
                                        n_who, "pacute-bench's own scoring of the annotator's answers"))
        for m, idx in ((metric, 1), *((("contains_match", 2),) if fmt == "gen" else ())):
            vals = [v[idx] for v in by_ann.values()]
            rows.append(BaselineRow(bench, fmt, SYSTEM_MEAN, m, 100 * sum(vals) / len(vals), n,
                                    f"mean of {len(vals)} annotators (each answered the same {n} items)"))
        rows.extend(_agreement_rows(bench, fmt, stated.get((bench, fmt)), recomputed.get((bench, fmt)), warn))
    return rows


def _agreement_rows(bench: str, fmt: str, stated: tuple[int, float | None, float] | None,
                    ratings: tuple[list, list] | None, warn: Callable[[str], None]) -> list[BaselineRow]:
    what = "option letters" if fmt == "mcq" else "right/wrong of each answer"
    if ratings is not None and ratings[0]:
        raw, rated = ratings
        k, agree, n = kappa(rated), raw_agreement(raw), len(raw)
        how = f"Fleiss' kappa on the {what} (statsmodels), from the three annotation workbooks"
        if stated is not None:
            n_f, k_f, a_f = stated
            how += f"; iaa.json states {k_f if k_f is None else round(k_f, 4)} and {100 * a_f:.1f}% over {n_f} items"
            convention = k is None and k_f == 1.0  # pacute-bench calls one-category kappa 1.0 "by definition"
            same_k = convention or (k is None and k_f is None) or (
                k is not None and k_f is not None and abs(k - k_f) <= 5e-4)
            if n_f != n or not same_k or abs(agree - a_f) > 5e-4:
                shown = "undefined" if k is None else f"{k:.4f}"
                warn(f"human baseline {bench}_{fmt}: recomputed kappa {shown} and agreement {agree:.4f} over {n} "
                     f"items differ from iaa.json ({k_f}, {a_f}, n={n_f}); both are kept")
        if k is None:
            how += "; kappa undefined: every rating fell in one category" + (
                " (pacute-bench reports 1.0 by convention)" if stated is not None and stated[1] == 1.0 else "")
    elif stated is not None:
        n, k, agree = stated
        how = f"Fleiss' kappa on the {what} as iaa.json states it (pacute-bench's own computation)"
    else:
        return []
    return [BaselineRow(bench, fmt, SYSTEM_AGREEMENT, "fleiss_kappa", k, n, how),
            BaselineRow(bench, fmt, SYSTEM_AGREEMENT, "raw_agreement", 100 * agree, n,
                        "share of items on which all three gave the identical answer")]

