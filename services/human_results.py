"""Human-evaluation figures, computed once when judgements are written and stored.

`recompute` runs inside the writer's transaction that writes the judgements (an annotator's save, a ratings import,
`campaign finish` / `--reopen`), so the stored figures and the judgements they come from commit together or not at
all. It computes with evaluator.human.results: a finished campaign's results (campaign_results, with the 1,000-draw
bootstrap intervals of Kendall's tau), an open campaign's provisional ones (campaign_provisional: the same figures
except tau's interval, which waits for `campaign finish`: its bootstrap takes seconds, too slow for every save),
quality checks per annotator, and Krippendorff's alpha per language across the campaigns of its protocol and
language. `refresh_stale` recomputes what an upgrade to V9 or a Hub pull left stale.
"""
from __future__ import annotations

import duckdb
import pandas as pd

from evaluator.human import protocols, results
from store import campaigns
from store import human_results as stored
from store.db import transaction
from store.queries import human as human_queries

FINAL_BOOT = 1000
"""Bootstrap draws of tau's interval when a campaign finishes."""
PROVISIONAL_BOOT = 0
"""Draws for an open campaign's figures: tau's point estimate only (its interval is computed on finish)."""

NO_METRICS = pd.DataFrame(columns=["item_id", "system", "metric", "value"])
"""Ratings campaigns have no automatic metric scores to compare with."""


def recompute(con: duckdb.DuckDBPyConnection, campaign_id: str, *, n_boot: int = FINAL_BOOT,
              keep_final: bool = False) -> None:
    """Compute and store one campaign's figures and its language's alphas; inside the caller's transaction.
    `keep_final`: leave a finished campaign's existing campaign_results as they are (they were computed on finish)."""
    c = campaigns.campaign(con, campaign_id)
    if c is None:
        return
    group = stored.language_judgements(con, c.protocol, c.lang)  # this campaign's and its language's others'
    judged = group[group["campaign_id"] == campaign_id].reset_index(drop=True)
    metrics = (NO_METRICS if c.protocol == protocols.RATINGS
               else human_queries.campaign_metric_scores(con, campaign_id=campaign_id))
    seed = c.seed or 0
    if c.status == "finished":
        if not (keep_final and stored.has_results(con, campaign_id)):
            campaigns.put_results(con, campaign_id, results.stored_results(judged, metrics, c.protocol, seed=seed,
                                                                           n_boot=n_boot))
        stored.put_provisional(con, campaign_id, None)
    else:
        stored.put_provisional(con, campaign_id, results.stored_results(judged, metrics, c.protocol, seed=seed,
                                                                        n_boot=PROVISIONAL_BOOT))
    stored.put_quality(con, campaign_id, results.quality(judged, c.protocol))
    stored.put_language_alphas(con, c.protocol, c.lang, results.alphas_by_language(group))
    stored.mark_computed(con, campaign_id)


def recompute_all(con: duckdb.DuckDBPyConnection, campaign_ids: list[str] | tuple[str, ...]) -> None:
    """`recompute` for each campaign (a ratings import touches one per task and language)."""
    for cid in campaign_ids:
        recompute(con, cid)


def refresh_stale(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Recompute, in one transaction, the campaigns whose stored figures are missing or stale (a store upgraded to
    V9, campaigns copied by V8, judgements pulled from the Hub); a finished campaign's results computed on finish
    are kept. The caller holds the writer lock (or the app's start-up connection). Returns the campaigns done."""
    stale = stored.stale_campaigns(con)
    if stale:
        with transaction(con):
            for cid in stale:
                recompute(con, cid, keep_final=True)
    return stale
