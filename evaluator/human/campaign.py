"""Plan a campaign, pure and seeded: which items, which blinded candidates, who rates what in which order.

`plan` takes the candidates every chosen system produced (and the references), samples `n_items` items that every
system answered with `random.Random(seed)`, gives each candidate an opaque id, assigns every item to `k` annotators
(round robin over a seeded annotator order, so loads differ by at most one item), shuffles the candidates per
annotator and item, appends `n_repeats` quality-check repeats per annotator (an earlier item again, reshuffled), and
adds one deliberately corrupted candidate (another item's reference) to one sampled item. Same inputs and seed, same
plan.
"""
from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

REFERENCE = "reference"
"""The system name of the reference candidate."""
CORRUPTED = "corrupted"
"""The system name of the quality-check candidate (a translation or summary of a different item)."""


class CampaignError(ValueError):
    """A campaign that cannot be planned as asked; the message names the field."""


@dataclass(frozen=True)
class Candidate:
    item_id: str
    cand_id: str
    system: str
    text: str


@dataclass(frozen=True)
class Assignment:
    annotator: str
    seq: int
    item_id: str
    cand_order: tuple[str, ...]
    is_repeat: bool = False


@dataclass
class Plan:
    """Everything `store.campaigns.create` writes."""

    items: list[str]
    candidates: list[Candidate] = field(default_factory=list)
    assignments: list[Assignment] = field(default_factory=list)


def system_key(model_id: str, prompt_lang: str) -> str:
    """How a (model, prompt language) system is named in the campaign tables."""
    return f"{model_id}|{prompt_lang}"


def _cand_id(seed: int, item_id: str, system: str) -> str:
    return hashlib.sha256(f"{seed}\0{item_id}\0{system}".encode()).hexdigest()[:10]


def eligible_items(outputs: dict[str, dict[str, str]], references: dict[str, str]) -> list[str]:
    """Items (sorted) that every system answered with non-empty text and that have a reference."""
    systems = list(outputs)
    common = set(references) if not systems else set.intersection(
        *({i for i, t in outputs[s].items() if t and t.strip()} for s in systems))
    return sorted(i for i in common if i in references and references[i] and references[i].strip())


def _check(outputs: dict, n_items: int, annotators: list[str], k: int, n_repeats: int, n_eligible: int) -> None:
    if not outputs:
        raise CampaignError("systems: choose at least one system")
    if len(set(annotators)) != len(annotators) or not annotators:
        raise CampaignError("annotators: give distinct, non-empty annotator names")
    if not 1 <= k <= len(annotators):
        raise CampaignError(f"k: {k} annotators per item needs 1..{len(annotators)} (the annotators given)")
    if n_items < 2:
        raise CampaignError("n_items: at least 2 (the corrupted candidate borrows another item's reference)")
    if n_eligible < n_items:
        raise CampaignError(f"n_items: {n_items} asked but only {n_eligible} items were answered by every system")
    if n_repeats < 0:
        raise CampaignError("n_repeats: must be 0 or more")


def plan(outputs: dict[str, dict[str, str]], references: dict[str, str], *, n_items: int, annotators: list[str],
         k: int, seed: int, n_repeats: int = 1, with_reference: bool = True, corrupt: bool = True) -> Plan:
    """The campaign plan; `outputs` maps system key -> item id -> candidate text."""
    pool = eligible_items(outputs, references)
    _check(outputs, n_items, annotators, k, n_repeats, len(pool))
    rng = random.Random(seed)
    items = sorted(rng.sample(pool, n_items))
    rng.shuffle(items)
    out = Plan(items=items)
    for item in items:
        texts = {s: outputs[s][item] for s in outputs}
        if with_reference:
            texts[REFERENCE] = references[item]
        out.candidates += [Candidate(item, _cand_id(seed, item, s), s, t) for s, t in texts.items()]
    if corrupt:
        target, donor = items[0], items[1]
        out.candidates.append(Candidate(target, _cand_id(seed, target, CORRUPTED), CORRUPTED, references[donor]))
    by_item: dict[str, list[str]] = {}
    for c in out.candidates:
        by_item.setdefault(c.item_id, []).append(c.cand_id)
    order = list(annotators)
    rng.shuffle(order)
    per_annotator: dict[str, list[str]] = {a: [] for a in annotators}
    for i, item in enumerate(items):
        for j in range(k):
            per_annotator[order[(i * k + j) % len(order)]].append(item)
    for a in annotators:
        mine = per_annotator[a]
        repeats = rng.sample(mine, min(n_repeats, len(mine)))
        for seq, (item, rep) in enumerate([(x, False) for x in mine] + [(x, True) for x in repeats]):
            cands = list(by_item[item])
            rng.shuffle(cands)
            out.assignments.append(Assignment(a, seq, item, tuple(cands), rep))
    return out
