from __future__ import annotations

from typing import Any

from rest_framework.filters import OrderingFilter


class StableOrderingFilter(OrderingFilter):
    """``?ordering=`` with ``id`` appended as a tie-breaker, so pages never overlap."""

    def get_ordering(self, request: Any, queryset: Any, view: Any) -> Any:
        ordering = super().get_ordering(request, queryset, view)
        if not ordering:
            return ordering
        names = [str(term).lstrip("-") for term in ordering]
        if "id" not in names and "pk" not in names:
            ordering = [*ordering, "id"]
        return ordering
