"""The A2App protocol: vocabulary, guard rules, errors, fingerprints, describe."""

from . import _describe as describe
from ._access import Caller as Caller
from ._access import anonymous_caller as anonymous_caller
from ._access import grant_caller as grant_caller
from ._access import schedule_caller as schedule_caller
from ._access import ui_caller as ui_caller
from ._approval import approval_key as approval_key
from ._body import Unrepresentable as Unrepresentable
from ._body import parse_body as parse_body
from ._body import wire_safe as wire_safe
from ._errors import REGISTRY as REGISTRY
from ._errors import UNREACHABLE_CODES as UNREACHABLE_CODES
from ._errors import UPSTREAM_CODES as UPSTREAM_CODES
from ._errors import ErrorCode as ErrorCode
from ._errors import ErrorSpec as ErrorSpec
from ._errors import ProtocolError as ProtocolError
from ._fingerprint import field_doc as field_doc
from ._fingerprint import schema_version as schema_version
from ._guard import MAX_REFS as MAX_REFS
from ._guard import Violation as Violation
from ._guard import check as check
from ._guard import guard_error as guard_error
from ._guard import is_blank as is_blank
from ._guard import ref_ids as ref_ids
from ._ids import OPAQUE_EXPECTED as OPAQUE_EXPECTED
from ._ids import steers as steers
from ._jsjson import canonical_json as canonical_json
from ._jsjson import compact_json as compact_json
from ._jsjson import js_length as js_length
from ._jsjson import js_string as js_string
from ._jsjson import stable_json as stable_json
from ._marker import VERIFY_MARK as VERIFY_MARK
from ._readback import instant as instant
from ._readback import json_equal as json_equal
from ._readback import not_stored_error as not_stored_error
from ._readback import read_back as read_back
from ._readback import stored_as_sent as stored_as_sent
from ._receipts import operation_receipt as operation_receipt
from ._receipts import record_receipt as record_receipt

__all__ = [
    "MAX_REFS",
    "OPAQUE_EXPECTED",
    "REGISTRY",
    "UNREACHABLE_CODES",
    "UPSTREAM_CODES",
    "VERIFY_MARK",
    "Caller",
    "ErrorCode",
    "ErrorSpec",
    "ProtocolError",
    "Unrepresentable",
    "Violation",
    "anonymous_caller",
    "approval_key",
    "canonical_json",
    "check",
    "compact_json",
    "describe",
    "field_doc",
    "grant_caller",
    "guard_error",
    "instant",
    "is_blank",
    "js_length",
    "js_string",
    "json_equal",
    "not_stored_error",
    "operation_receipt",
    "parse_body",
    "read_back",
    "record_receipt",
    "ref_ids",
    "schedule_caller",
    "schema_version",
    "stable_json",
    "steers",
    "stored_as_sent",
    "ui_caller",
    "wire_safe",
]
