"""Dialects by the name a mapping gives in ``upstream.dialect``: one line each."""

from __future__ import annotations

from runtime.protocol import ProtocolError

from ._base import Dialect
from ._directus import DirectusDialect
from ._django import DjangoFilterDialect
from ._jsonserver import JsonServerDialect
from ._plain import PlainDialect
from ._pocketbase import PocketBaseDialect

DIALECTS: dict[str, Dialect] = {
    "none": PlainDialect(),
    "django-filter": DjangoFilterDialect(),
    "pocketbase": PocketBaseDialect(),
    "json-server": JsonServerDialect(),
    "directus": DirectusDialect(),
}


def dialect_for(name: str) -> Dialect:
    """The registered dialect; a mapping naming one not built yet is refused clearly."""
    try:
        return DIALECTS[name]
    except KeyError:
        raise ProtocolError(
            "not_implemented", f"The filter dialect {name!r} is not available in this runtime."
        ) from None
