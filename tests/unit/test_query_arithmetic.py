"""A store query only filters, joins, sorts, pivots and counts the rows it lists: every number a page shows is
computed once by the evaluator and stored (docs/architecture.md: "what a store query may do").

The scan reads store/queries as source: the SQL text (string constants, comments and quoted literals left out) for
aggregate functions (avg, sum, median, quantile, stddev, ...), count(...) inside arithmetic and arithmetic
operators between values; the Python code for arithmetic on values and for pandas aggregations. What it finds
must be in ALLOWED, with its reason. The last tests show the scan catches the computations the queries once held.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

QUERIES = Path(__file__).resolve().parents[2] / "store" / "queries"

ALLOWED: dict[tuple[str, str], str] = {
    ("lindsea.py", "a.parse_fail_rate * 100"):
        "unit conversion: a stored 0-1 share shown as a percentage (presentation; no other value enters it)",
    ("model_page.py", "100 * parse_fail_rate"):
        "unit conversion: a stored 0-1 share shown as a percentage (presentation; no other value enters it)",
    ("board.py", "sum("): "counting: the answers behind a model's headline cells (sum of stored item counts n)",
    ("leaderboard.py", 'cells[cells["status"] == "ok"].groupby("model")["n"].sum()'):
        "counting: the answers behind a model's scored cells (sum of stored item counts n), for the stub rule",
    ("self_reported.py", "avg("): "the file's own per-item scores averaged as the file states them, shown beside "
                                  "the stored re-scored aggregate for comparison; never stored or ranked",
}
"""(query module, expression as written, whitespace collapsed) -> why it is allowed. Keep it short."""

AGGREGATES = re.compile(
    r"\b(avg|sum|fsum|sumkahan|kahan_sum|median|mean|mode|quantile\w*|percentile\w*|stddev\w*|var_pop|var_samp|"
    r"variance|corr|covar\w*|regr_\w+|product|entropy|skewness|kurtosis|mad|geomean|favg)\s*\(", re.I)
COUNT_ARITHMETIC = re.compile(
    r"\bcount\s*\([^()]*\)(\s*FILTER\s*\([^()]*\))?\s*[-+*/%]|[-+*/%]\s*count\s*\(", re.I)
ARITHMETIC = re.compile(r"(?<![\w.])((?:\w+\.)?\w+|\))\s*([-+*/%])\s*(?=(\(|(?:\w+\.)?\w+))")
SQL = re.compile(r"\b(SELECT|FROM|WHERE|JOIN|CASE|WHEN|AND|OR|GROUP BY|ORDER BY|FILTER|OVER)\b")
"""A string is SQL (not a label or a message) when it has one of these words, in the house's upper case."""
SQL_WORDS = {"select", "distinct", "exclude", "all", "by", "as", "and", "or", "not", "then", "else", "when", "in"}
PANDAS_AGGREGATES = {"mean", "sum", "median", "std", "var", "quantile", "agg", "aggregate", "cumsum", "diff",
                     "pct_change", "rolling", "expanding", "ewm", "transform", "prod", "sem", "describe", "nunique"}


def _sql_text(text: str) -> str:
    """SQL with comments, quoted literals and the harmless stars (`SELECT *`, `t.*`, `count(*)`) removed."""
    text = re.sub(r"--[^\n]*", " ", text)
    text = re.sub(r"'(?:[^']|'')*'", "''", text)
    text = re.sub(r"(?i)\b(select|exclude)\s+\*", r"\1 ", text)
    text = re.sub(r"\.\*", "", text)
    return re.sub(r"\(\s*\*\s*\)", "()", text)


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (module, function, attribute): prose, not SQL."""
    return {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}


def _sql_findings(text: str) -> list[str]:
    sql = _sql_text(text)
    found = [m.group(0) for m in AGGREGATES.finditer(sql)] + [m.group(0) for m in COUNT_ARITHMETIC.finditer(sql)]
    for m in ARITHMETIC.finditer(sql):
        left, op, right = m.groups()
        if left.lower() in SQL_WORDS or right.lower() in SQL_WORDS or (op == "-" and right.isdigit() and left == ")"):
            continue
        found.append(f"{left} {op} {right}")
    return found


def _python_findings(tree: ast.AST, source: str) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow)):
            if not (isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)):
                found.append(ast.get_source_segment(source, node))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in PANDAS_AGGREGATES:
                found.append(ast.get_source_segment(source, node))
            for kw in node.keywords:
                if kw.arg == "aggfunc" and not (isinstance(kw.value, ast.Constant) and kw.value.value == "first"):
                    found.append(ast.get_source_segment(source, node))
    return found


def computations(source: str) -> list[str]:
    """Every computation the scan finds in a query module's source, whitespace collapsed."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    found = _python_findings(tree, source)
    texts = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):  # an f-string: its text parts, a placeholder for each value
            skip |= {id(v) for v in node.values}
            texts.append("".join(v.value if isinstance(v, ast.Constant) else " x " for v in node.values))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            texts.append(node.value)
    for text in texts:
        if SQL.search(text):
            found += _sql_findings(text)
    return [" ".join(f.split()) for f in found]


def test_store_queries_only_filter_join_and_count():
    seen, offenders = set(), []
    for path in sorted(QUERIES.glob("*.py")):
        for expr in computations(path.read_text(encoding="utf-8")):
            if (path.name, expr) in ALLOWED:
                seen.add((path.name, expr))
            else:
                offenders.append(f"{path.name}: {expr}")
    assert not offenders, "computed in a store query (compute it in the evaluator and store it):\n" + "\n".join(
        offenders)
    assert seen == set(ALLOWED), f"allow-list entries no longer needed: {set(ALLOWED) - seen}"


@pytest.mark.parametrize("added, found", [
    ('con.execute("""SELECT model_id, avg(value) AS ceiling FROM aggregates GROUP BY ALL""")', "avg("),
    ('con.execute("""SELECT median(o.value) AS field_median FROM cell o""")', "median("),
    ('con.execute("""SELECT 1 + count(*) FILTER (WHERE o.ci_low > c.ci_high) AS rank_best FROM c""")', "1 + count"),
    ('con.execute("""SELECT value - field_median AS delta FROM ranked""")', "value - field_median"),
    ('con.execute("""SELECT 100.0 * unparsed / answers AS pct FROM runs""")', "unparsed / answers"),
    ('df["normalized"] = (df["value"] - df["chance"]) / (100 - df["chance"]) * 100',
     '(df["value"] - df["chance"]) / (100 - df["chance"]) * 100'),
    ('out = df.groupby("model")["value"].mean()', '.mean()'),
    ('wide = df.pivot_table(index="m", columns="c", values="v", aggfunc="mean")', "aggfunc"),
])
def test_the_scan_fails_when_a_computation_is_added(added, found):
    """Each forbidden computation (the ones once moved out of the queries among them), added to a real query
    module, is reported; the module as it is reports only its allow-listed expressions."""
    source = (QUERIES / "pacute.py").read_text(encoding="utf-8")
    before = computations(source)
    after = computations(source + "\n\ndef added(con, df):\n    " + added.replace("\n", "\n    ") + "\n")
    new = [e for e in after if e not in before]
    assert new and any(found in e for e in new), new


def test_counting_listed_rows_and_comparisons_pass():
    """Counting the rows a query lists, comparing stored values, picking values in a pivot and quoted text pass."""
    ok = '''sql = """SELECT count(DISTINCT model_id) AS models, count(*) AS cells, any_value(v) FILTER (WHERE l = 'A'),
    value < chance AS below, 'L' || level || ' (n=' || max(n) OVER w || ')', 'a-b/c*d' AS x, t.*
    FROM t -- a comment: 100 * x / y
    """'''
    assert computations(ok) == []
