"""Alembic migrations of the runtime store; run by `Store.open`, never by hand."""

__all__: list[str] = []  # Alembic finds the revisions by path; nothing is imported from here
