"""The PACUTE paper's read-out per model, in words: L2 (morpheme decomposition) against the same model's L0-L1
(character skills) and against chance, each with its 95% Wilson interval.

The paper's reading: a model that handles characters (L0-L1) but falls at L2 cannot decompose words into morphemes,
and L3-L5, which build on L2, collapse with it. So the verdict compares L2 with L0-L1 first. "Decomposition present"
needs L2's interval to reach the L0-L1 level (its point estimate); being above chance is never enough on its own,
since generation has a chance of 0 and any score clears it.

Verdicts: `holds` (L2's interval reaches the L0-L1 level), `breaks` (L2's interval lies wholly below L0-L1's, L2
still above chance), `breaks_to_chance` (as `breaks`, and L2's interval reaches chance), `unclear` (L2 lower but
the two intervals overlap: too few items to tell), `no_base` (L0-L1's interval reaches chance: the hierarchy cannot
place the break). A model without items at L0, L1 or L2 gets no read-out.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from evaluator.stats import wilson

BASE_LEVELS = (0, 1)
"""Character recognition and character manipulation: the base L2 is compared with."""
DECOMPOSITION = 2
UPPER_LEVELS = (3, 4, 5)


@dataclass(frozen=True)
class Readout:
    """One model's read-out; values and interval ends on 0-100."""

    model_id: str
    verdict: str
    base: float
    base_low: float
    base_high: float
    base_n: int
    l2: float
    l2_low: float
    l2_high: float
    l2_n: int
    chance: float
    upper_max: float | None
    upper_at_chance: bool | None
    sentence: str


def _pct(x: float) -> str:
    return f"{x:.0f}%"


def _sentence(model_id: str, verdict: str, base: tuple[float, float, float], l2: tuple[float, float, float],
              chance: float, upper_max: float | None, upper_at_chance: bool | None) -> str:
    b, b_lo, b_hi = base
    v, lo, hi = l2
    l2_ci = f"(95% CI {lo:.0f}-{hi:.0f}%)"
    base_ci = f"(95% CI {b_lo:.0f}-{b_hi:.0f}%)"
    chance_words = f"chance is {_pct(chance)}" if chance > 0 else "an answer cannot be guessed"
    if verdict == "no_base":
        return (f"{model_id} is at chance already at L0-L1 ({_pct(b)} {base_ci}; {chance_words}): it does not "
                f"handle the characters, so the hierarchy cannot show where morpheme skills break.")
    if verdict == "unclear":
        return (f"{model_id} scores {_pct(v)} at L2 {l2_ci} against {_pct(b)} at L0-L1 {base_ci}: lower, but the "
                f"intervals overlap, so more items are needed to say whether morpheme decomposition breaks.")
    if verdict == "holds":
        return (f"{model_id} holds up at L2: {_pct(v)} {l2_ci} against {_pct(b)} at L0-L1 {base_ci}, within "
                f"reach of its character skills, so morpheme decomposition is present.")
    then = ""
    if upper_max is not None:
        then = (f" L3-L5 follow it down (best {_pct(upper_max)})." if upper_at_chance or upper_max <= hi
                else f" L3-L5 do not all fall with it (best {_pct(upper_max)}).")
    if verdict == "breaks_to_chance":
        return (f"{model_id} drops from {_pct(b)} at L0-L1 to {_pct(v)} at L2 {l2_ci}, no better than guessing "
                f"({chance_words}): morpheme decomposition is where it breaks.{then}")
    above = f", still above chance ({_pct(chance)})" if chance > 0 else ""
    return (f"{model_id} drops from {_pct(b)} at L0-L1 to {_pct(v)} at L2 {l2_ci}{above}: morpheme decomposition "
            f"is where it breaks.{then}")


def readout(model_id: str, levels: Mapping[int, tuple[int, float]], chance: float) -> Readout | None:
    """The read-out of one model from its hierarchy levels: level → (n items, correct: the sum of item scores 0-1).

    None when L0, L1 or L2 has no items. The L0-L1 base pools their items (each item weighs the same)."""
    if any(levels.get(k, (0, 0.0))[0] <= 0 for k in (*BASE_LEVELS, DECOMPOSITION)):
        return None
    base_n = sum(levels[k][0] for k in BASE_LEVELS)
    base_p = sum(levels[k][1] for k in BASE_LEVELS) / base_n
    l2_n, l2_correct = levels[DECOMPOSITION]
    l2_p = l2_correct / l2_n
    b_lo, b_hi = wilson(base_p, base_n)
    l_lo, l_hi = wilson(l2_p, l2_n)
    c = chance / 100
    upper = [levels[k] for k in UPPER_LEVELS if levels.get(k, (0, 0.0))[0] > 0]
    upper_max = max((100 * k / n for n, k in upper), default=None)
    upper_at_chance = all(wilson(k / n, n)[0] <= c for n, k in upper) if upper else None
    if b_lo <= c:
        verdict = "no_base"
    elif l_hi >= base_p:
        verdict = "holds"
    elif l_hi >= b_lo:
        verdict = "unclear"
    elif l_lo <= c:
        verdict = "breaks_to_chance"
    else:
        verdict = "breaks"
    base, l2 = (100 * base_p, 100 * b_lo, 100 * b_hi), (100 * l2_p, 100 * l_lo, 100 * l_hi)
    return Readout(model_id, verdict, *base, base_n, *l2, l2_n, chance, upper_max, upper_at_chance,
                   _sentence(model_id, verdict, base, l2, chance, upper_max, upper_at_chance))


def readouts(rows: Iterable[Mapping], chance: float) -> list[Readout]:
    """Read-outs of every model in `rows` (dicts with model_id, level, n, correct), in model order."""
    by_model: dict[str, dict[int, tuple[int, float]]] = {}
    for r in rows:
        by_model.setdefault(str(r["model_id"]), {})[int(r["level"])] = (int(r["n"]), float(r["correct"]))
    out = [readout(m, lv, chance) for m, lv in sorted(by_model.items())]
    return [r for r in out if r is not None]
