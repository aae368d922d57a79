"""Filter claims of a dialect with a native filter language, told as the runtime tells them.

Such a dialect (PocketBase) takes whole expressions in one parameter; the
verifier sends exactly what the runtime's planner would send for the filter it
checks, so what is proven is what is served.
"""

from __future__ import annotations

from runtime.mapping import Entity
from runtime.query import parse_filter, plan
from runtime.upstream import Dialect

from ._failures import NotAClaim


def native_params(dialect: Dialect, entity: Entity, text: str) -> dict[str, str] | None:
    """The parameters the runtime pushes for `text`; None for a dialect without a native filter.

    A filter the runtime would keep local is not a pushdown to prove: `NotAClaim`.
    """
    if getattr(dialect, "filter_param", None) is None:
        return None
    told = plan(entity, parse_filter(text), (), dialect, can_page=False)
    if told.residual or not told.pushed:
        raise NotAClaim(f"the runtime keeps `{text}` local for the {dialect.name} dialect")
    return dict(told.params)
