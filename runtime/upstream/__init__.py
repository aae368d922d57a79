"""The only code that talks to the foreign API: auth injection, base-URL confinement,
pagination strategies, filter dialects, and foreign failures translated at one boundary.
"""

from . import dialects as dialects
from ._client import ListingTag as ListingTag
from ._client import UpstreamClient as UpstreamClient
from ._confine import BaseUrl as BaseUrl
from ._operation_request import OperationRequest as OperationRequest
from ._operation_request import fill_path as fill_path
from ._operation_request import operation_request as operation_request
from ._records import to_protocol as to_protocol
from ._records import to_upstream as to_upstream
from ._translate import delete_not_done as delete_not_done
from ._translate import retry_after as retry_after
from ._translate import translating as translating
from ._translate import unproven_unreferenced as unproven_unreferenced
from ._walk import Page as Page
from ._walk import Scan as Scan
from .dialects import DIALECTS as DIALECTS
from .dialects import Dialect as Dialect
from .dialects import DjangoFilterDialect as DjangoFilterDialect
from .dialects import JsonServerDialect as JsonServerDialect
from .dialects import PlainDialect as PlainDialect
from .dialects import PocketBaseDialect as PocketBaseDialect
from .dialects import dialect_for as dialect_for
from .dialects import encode_filter as encode_filter
from .dialects import native_filter as native_filter
from .dialects import sort_params as sort_params

__all__ = [
    "DIALECTS",
    "BaseUrl",
    "Dialect",
    "DjangoFilterDialect",
    "JsonServerDialect",
    "ListingTag",
    "OperationRequest",
    "Page",
    "PlainDialect",
    "PocketBaseDialect",
    "Scan",
    "UpstreamClient",
    "delete_not_done",
    "dialect_for",
    "dialects",
    "encode_filter",
    "fill_path",
    "native_filter",
    "operation_request",
    "retry_after",
    "sort_params",
    "to_protocol",
    "to_upstream",
    "translating",
    "unproven_unreferenced",
]
