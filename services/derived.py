"""The derived tables' back-fills, in the one order they depend on each other (after a store upgrade or a Hub pull).

Each fills or recomputes only what is missing or stale, so the whole sequence is cheap on an up-to-date store.
Called at every start (`services.demo.ensure_default_db`) and after every pull (`services.hub_sync.rollup_all`).
"""
from __future__ import annotations

import duckdb


def backfill_derived(con: duckdb.DuckDBPyConnection) -> None:
    """Fill the derived tables a store written before them, or a pull that replaced or merged rows, left missing or
    stale: drill-down pre-aggregates (V7) first, since the levels (V11) and paired tests (V13) read them."""
    from services.drill_levels import backfill_levels
    from services.drilldown import backfill_drilldowns
    from services.human_results import refresh_stale
    from services.leakage import backfill_leakage
    from services.page_figures import backfill_page_figures
    from services.pair_tests import backfill_pair_tests
    from services.usage_store import backfill_usage

    backfill_drilldowns(con)  # cells stored or exported before the drill-down tables (V7)
    refresh_stale(con)  # human-evaluation figures before V9 (and V8's copied ratings), or of pulled judgements
    backfill_usage(con)  # cost and speed of models stored before V10
    backfill_levels(con)  # drill-down levels before V11, and of cells back-filled just now
    backfill_page_figures(con)  # reported rows normalised, Model page field, ceilings (V12)
    backfill_pair_tests(con)  # Compare's paired tests before V13, and of cells back-filled or pulled just now
    backfill_leakage(con)  # output leakage signals of cells stored or pulled before V20
