"""Mapping format 1: the contract between the mapper and the runtime."""

from typing import TYPE_CHECKING, Any

from ._codecs import CODEC_TYPES as CODEC_TYPES
from ._codecs import CODECS as CODECS
from ._codecs import decode as decode_value
from ._codecs import encode as encode_value
from ._compile import compile_auth as compile_auth
from ._compile import compile_listing as compile_listing
from ._compile import compile_pagination as compile_pagination
from ._compile import default_label as default_label
from ._dump import declared_type as declared_type
from ._dump import dump as dump
from ._dump import dump_evidence as dump_evidence
from ._dump import dump_yaml as dump_yaml
from ._errors import CODES as PROBLEM_CODES
from ._errors import MappingError as MappingError
from ._errors import Problem as Problem
from ._interpolate import without_defaults as without_defaults
from ._loader import check_document as check_document
from ._loader import check_text as check_text
from ._loader import content_hash as content_hash
from ._loader import load_document as load_document
from ._loader import load_mapping as load_mapping
from ._loader import load_mapping_text as load_mapping_text
from ._model import DAY_KEY_FORMAT as DAY_KEY_FORMAT
from ._model import FIELD_TYPES as FIELD_TYPES
from ._model import FILTER_OPERATORS as FILTER_OPERATORS
from ._model import NORMALIZATIONS as NORMALIZATIONS
from ._model import READ_ONLY as READ_ONLY
from ._model import SERVER_WRITES as SERVER_WRITES
from ._model import App as App
from ._model import Auth as Auth
from ._model import AuthType as AuthType
from ._model import CrudExecutor as CrudExecutor
from ._model import Dialect as Dialect
from ._model import Entity as Entity
from ._model import ErrorStyle as ErrorStyle
from ._model import Evidence as Evidence
from ._model import Feed as Feed
from ._model import Field as Field
from ._model import FieldType as FieldType
from ._model import FilterParam as FilterParam
from ._model import Hook as Hook
from ._model import JobExecutor as JobExecutor
from ._model import ListSpec as ListSpec
from ._model import Mapping as Mapping
from ._model import Module as Module
from ._model import Operation as Operation
from ._model import Pagination as Pagination
from ._model import PaginationStyle as PaginationStyle
from ._model import ProbeRecord as ProbeRecord
from ._model import RateLimits as RateLimits
from ._model import Request as Request
from ._model import ResponseProjection as ResponseProjection
from ._model import Schedule as Schedule
from ._model import Serve as Serve
from ._model import SortSpec as SortSpec
from ._model import Trigger as Trigger
from ._model import Unmapped as Unmapped
from ._model import Upstream as Upstream
from ._model import WriteSpec as WriteSpec
from ._model import served_values as served_values
from ._predicate import AllOf as AllOf
from ._predicate import AnyOf as AnyOf
from ._predicate import Compare as Compare
from ._predicate import Not as Not
from ._predicate import Predicate as Predicate
from ._predicate import compile_predicate as compile_predicate
from ._predicate import dump_predicate as dump_predicate
from ._schema import schema as schema
from ._semantics import feed_requests_per_minute as feed_requests_per_minute
from ._yaml import dump as yaml_text

__all__ = [
    "DAY_KEY_FORMAT", "FIELD_TYPES", "FILTER_OPERATORS", "NORMALIZATIONS", "PROBLEM_CODES",
    "READ_ONLY", "SERVER_WRITES", "AllOf", "AnyOf", "App", "Auth", "AuthType", "Compare",
    "CrudExecutor", "Dialect", "Entity", "ErrorStyle", "Evidence", "Feed", "Field", "FieldType",
    "FilterParam", "Hook", "JobExecutor", "Mapping", "MappingError", "Module", "Not", "Operation",
    "Pagination", "PaginationStyle", "Predicate", "ProbeRecord", "Problem", "RateLimits",
    "Request", "ResponseProjection", "Schedule", "Serve", "SortSpec", "Trigger", "Unmapped",
    "Upstream", "WriteSpec", "check_document", "check_text", "compile_auth", "compile_pagination",
    "compile_predicate", "content_hash", "declared_type", "default_label", "dump", "dump_evidence",
    "dump_predicate", "dump_yaml", "feed_requests_per_minute", "load_document", "load_mapping",
    "load_mapping_text", "schema", "served_values", "without_defaults", "yaml_text",
]  # fmt: skip

# verification stamps (written by `a2map verify`, read by the serve gate); they load with
# their first use, so that writing a mapping (`a2map probe`) does without them
if TYPE_CHECKING:
    from ._stamp import STAMP_FORMAT as STAMP_FORMAT
    from ._stamp import STAMP_SUFFIX as STAMP_SUFFIX
    from ._stamp import Stamp as Stamp
    from ._stamp import StampCheck as StampCheck
    from ._stamp import StampError as StampError
    from ._stamp import StampStatus as StampStatus
    from ._stamp import load_stamp as load_stamp
    from ._stamp import public_url as public_url
    from ._stamp import remove_stamp as remove_stamp
    from ._stamp import stamp_path as stamp_path
    from ._stamp import stamp_status as stamp_status
    from ._stamp import unproven_ref_checks as unproven_ref_checks
    from ._stamp import write_stamp as write_stamp
    from ._withheld import SCOPES as WITHHOLD_SCOPES
    from ._withheld import Refusal as Refusal
    from ._withheld import Scope as WithholdScope
    from ._withheld import Withheld as Withheld
    from ._withheld import withhold as withhold

_STAMP = frozenset(
    {"STAMP_FORMAT", "STAMP_SUFFIX", "Stamp", "StampCheck", "StampError", "StampStatus",
     "load_stamp", "public_url", "remove_stamp", "stamp_path", "stamp_status",
     "unproven_ref_checks", "write_stamp"}
)  # fmt: skip
_WITHHELD = {
    "WITHHOLD_SCOPES": "SCOPES", "Refusal": "Refusal", "WithholdScope": "Scope",
    "Withheld": "Withheld", "withhold": "withhold",
}  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in _STAMP:
        from . import _stamp

        return getattr(_stamp, name)
    if name in _WITHHELD:
        from . import _withheld

        return getattr(_withheld, _WITHHELD[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# value codecs: the wire's spelling of a protocol value (a field's `codec`)
__all__ += ["CODECS", "CODEC_TYPES", "decode_value", "encode_value"]

__all__ += [
    "STAMP_FORMAT", "STAMP_SUFFIX", "Stamp", "StampCheck", "StampError", "StampStatus",
    "load_stamp", "public_url", "remove_stamp", "stamp_path", "stamp_status",
    "unproven_ref_checks", "write_stamp",
]  # fmt: skip
__all__ += ["WITHHOLD_SCOPES", "Refusal", "Withheld", "WithholdScope", "withhold"]
__all__ += ["ListSpec", "compile_listing"]
