"""Test helpers: stand-in servers, fixture data and stores, file builders, the browser driver."""
