"""Whether the store holds the embedded demo content (built from `data/demo` by services/demo.py)."""
from __future__ import annotations

import pandas as pd

from store.queries import query


@query
def demo_models(con) -> pd.DataFrame:
    """Visible models with runs from the embedded demo content: model_id, family, runs (empty when none)."""
    return con.execute("""
        SELECT m.model_id, m.family, count(*) AS runs, m.family = 'baseline' AS baseline
        FROM runs r JOIN models m USING (model_id)
        WHERE m.origin = 'demo' AND NOT m.hidden AND NOT r.superseded
          AND (r.source_file LIKE 'demo:%' OR r.source_file LIKE 'data/demo/%')
        GROUP BY m.model_id, m.family ORDER BY baseline, m.model_id""").df()
