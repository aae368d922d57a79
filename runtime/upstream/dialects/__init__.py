"""Filter dialects: how one upstream spells filter values and sort keys in its query string.

One module per dialect, looked up by ``upstream.dialect`` in `DIALECTS`:

    none           plain ``param=value`` pairs, ``sort=a,-b``          (_plain)
    django-filter  ``f__isnull``, ``ordering=-a``, ``list__board``      (_django)
    json-server    ``f_ne``, ``f_like`` (a regex), ``_sort``/``_order`` (_jsonserver)
    pocketbase     one native ``filter`` expression, ``sort=-a``       (_pocketbase)
    directus       ``filter[f][_eq]``, ``filter[f][_null]``, ``sort=-a`` (_directus)

What every dialect offers is `Dialect` (`_base`); the optional members some add
are reached through `sort_params`, `encode_filter` and `native_filter`, the
planner's own (`runtime.query`), so a dialect is spelled alike wherever it is used.
"""

from runtime.query import encode_filter as encode_filter
from runtime.query import native_filter as native_filter
from runtime.query import sort_params as sort_params

from ._base import Dialect as Dialect
from ._directus import DirectusDialect as DirectusDialect
from ._django import DjangoFilterDialect as DjangoFilterDialect
from ._jsonserver import JsonServerDialect as JsonServerDialect
from ._jsonserver import regex_escape as regex_escape
from ._plain import PlainDialect as PlainDialect
from ._pocketbase import PocketBaseDialect as PocketBaseDialect
from ._registry import DIALECTS as DIALECTS
from ._registry import dialect_for as dialect_for

__all__ = [
    "DIALECTS",
    "Dialect",
    "DirectusDialect",
    "DjangoFilterDialect",
    "JsonServerDialect",
    "PlainDialect",
    "PocketBaseDialect",
    "dialect_for",
    "encode_filter",
    "native_filter",
    "regex_escape",
    "sort_params",
]
