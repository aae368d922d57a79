"""The store's revisions, one module each, found by Alembic by path."""

__all__: list[str] = []
