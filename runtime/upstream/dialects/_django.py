"""django-filter with DRF's ``OrderingFilter``: ``?done=true&ordering=-due,title``."""

from __future__ import annotations

from ._plain import PlainDialect


class DjangoFilterDialect(PlainDialect):
    name = "django-filter"
    # Django spells a path through related objects `list__board`.
    path_separator = "__"

    def null_param(self, param: str, is_null: bool) -> tuple[str, str] | None:
        base = param.removesuffix("__exact")
        return f"{base}__isnull", "true" if is_null else "false"
