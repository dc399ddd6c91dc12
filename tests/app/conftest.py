"""Fixtures the page tests share, defined in tests/helpers: `db` (the fixture store as the app's store) and
`demo_db` (the demo store as a first start fills it). A module that defines its own fixture of that name uses it."""
from tests.helpers.demo_pages import demo_store_db  # noqa: F401
from tests.helpers.fixtures_store import pages_fixture_db  # noqa: F401
