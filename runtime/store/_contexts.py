"""The UI's context (protocol §8): one row per app, so every process answers the same."""

from __future__ import annotations

from sqlalchemy import delete, insert, select

from ._base import StoreBase
from ._rows import Context
from ._tables import contexts


class ContextsMixin(StoreBase):
    def get_context(self, app_id: str) -> Context | None:
        with self._read() as conn:
            row = conn.execute(select(contexts).where(contexts.c.app_id == app_id)).first()
        if row is None:
            return None
        selected = tuple((str(s["entity"]), str(s["id"])) for s in row.selected)
        return Context(view=row.view, selected=selected)

    def set_context(self, app_id: str, context: Context) -> None:
        """Replace the app's context whole (a UI says what it shows now, not a change)."""
        row = {
            "app_id": app_id,
            "view": context.view,
            "selected": [{"entity": e, "id": i} for e, i in context.selected],
            "updated_at": self._now(),
        }
        with self._write() as conn:
            conn.execute(delete(contexts).where(contexts.c.app_id == app_id))
            conn.execute(insert(contexts).values(row))
