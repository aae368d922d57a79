"""Alembic migrations of the runtime store; run by `Store.open`, never by hand."""
