"""Human evaluation queries: campaigns, their stored figures (a finished campaign's results, an open one's
provisional ones, quality checks per annotator, alpha per language: all computed by the wiring when judgements are
written), the automatic metric scores of the rated candidates, and the BHASA paper's human rows (reported, never
ranked)."""
from __future__ import annotations

import pandas as pd

from store.queries import query


@query
def human_campaigns(con, *, status: str | None = None) -> pd.DataFrame:
    """campaign_id, task, lang, protocol, n_items, k, seed, status, annotators, judged items."""
    return con.execute("""
        SELECT c.campaign_id, c.task, c.lang, c.protocol, c.n_items, c.k, c.seed, c.status,
               (SELECT count(DISTINCT annotator) FROM campaign_assignments a WHERE a.campaign_id = c.campaign_id)
                   AS annotators,
               (SELECT count(DISTINCT annotator || '/' || seq) FROM judgements j WHERE j.campaign_id = c.campaign_id)
                   AS judged
        FROM campaigns c WHERE ? IS NULL OR c.status = ? ORDER BY c.created_at, c.campaign_id""",
                       [status, status]).df()


@query
def campaign_metric_scores(con, *, campaign_id: str) -> pd.DataFrame:
    """item_id, system ("model|prompt_lang"), metric, value: the automatic score of every answer of the campaign's
    rated candidates (each run and option order; evaluator.human.results averages them per item and system)."""
    return con.execute("""
        SELECT s.item_id, r.model_id || '|' || r.prompt_lang AS system, s.metric, s.value
        FROM campaign_candidates k JOIN campaigns c USING (campaign_id)
        JOIN runs r ON r.task = c.task AND r.lang = c.lang AND NOT r.superseded
             AND r.model_id || '|' || r.prompt_lang = k.system
        JOIN scores s ON s.run_id = r.run_id AND s.item_id = k.item_id
        WHERE k.campaign_id = ? ORDER BY ALL""", [campaign_id]).df()


@query
def human_reported(con, *, task: str | None = None) -> pd.DataFrame:
    """The papers' human-evaluation rows (metric human_*), as reported: never ranked with campaign results."""
    return con.execute("""
        SELECT source, task, lang, metric, system, prompt_lang, value, note FROM reported
        WHERE metric LIKE 'human\\_%' ESCAPE '\\' AND (? IS NULL OR task = ?)
        ORDER BY task, lang, metric, system, prompt_lang""", [task, task]).df()


@query
def human_board_cells(con, *, prompt_lang: str = "en", family: str | None = None) -> pd.DataFrame:
    """model, task, lang, protocol, campaign_id, criterion, value, low, high, n, items, correct: the stored per-system
    means of FINISHED campaigns for the leaderboard's human column (systems run with `prompt_lang`, tasks of
    `family`); open campaigns have no stored results and so never appear."""
    return con.execute("""
        SELECT m.model_id AS model, c.task, c.lang, c.protocol, c.campaign_id, r.criterion, r.value, r.low, r.high,
               r.n, r.items, r.correct
        FROM campaign_results r JOIN campaigns c USING (campaign_id)
        JOIN models m ON r.system = m.model_id || '|' || ?
        LEFT JOIN tasks t ON t.task = c.task
        WHERE c.status = 'finished' AND r.kind = 'mean' AND (? IS NULL OR t.family = ?)
        ORDER BY m.model_id, c.lang, c.task, c.campaign_id, r.criterion""", [prompt_lang, family, family]).df()


@query
def campaign_results(con, *, campaign_id: str, kind: str) -> pd.DataFrame:
    """A campaign's stored results of one kind (mean | alpha | tau): a finished campaign's as computed when it
    finished (campaign_results), an open one's provisional figures (campaign_provisional) as computed at its
    latest judgement; `provisional` says which."""
    return con.execute("""
        SELECT system, criterion, level, value, low, high, n, items, correct, false AS provisional
        FROM campaign_results r JOIN campaigns c USING (campaign_id)
        WHERE campaign_id = ? AND kind = ? AND c.status = 'finished'
        UNION ALL
        SELECT system, criterion, level, value, low, high, n, items, correct, true AS provisional
        FROM campaign_provisional p JOIN campaigns c USING (campaign_id)
        WHERE campaign_id = ? AND kind = ? AND c.status <> 'finished'
        ORDER BY system, criterion, level""", [campaign_id, kind, campaign_id, kind]).df()


@query
def campaign_quality(con, *, campaign_id: str) -> pd.DataFrame:
    """annotator, repeat_agreement, repeats, caught_corrupted: the stored quality checks of a campaign."""
    return con.execute("""
        SELECT annotator, repeat_agreement, repeats, caught_corrupted FROM campaign_quality
        WHERE campaign_id = ? ORDER BY annotator""", [campaign_id]).df()


@query
def language_alphas(con) -> pd.DataFrame:
    """protocol, lang, campaigns, criterion, level, alpha, units, annotators: the stored Krippendorff's alpha per
    protocol, language and criterion across campaigns."""
    return con.execute("""
        SELECT protocol, lang, campaigns, criterion, level, alpha, units, annotators FROM language_alphas
        ORDER BY protocol, lang, criterion""").df()

