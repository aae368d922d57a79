"""The A2App protocol: vocabulary, guard rules, errors, fingerprints, describe."""

from ._approval import approval_key as approval_key
from ._errors import REGISTRY as REGISTRY
from ._errors import ErrorSpec as ErrorSpec
from ._errors import ProtocolError as ProtocolError
from ._fingerprint import field_doc as field_doc
from ._fingerprint import schema_version as schema_version
from ._guard import Violation as Violation
from ._guard import check as check
from ._guard import guard_error as guard_error
from ._guard import not_stored_error as not_stored_error
from ._guard import read_back as read_back
from ._jsjson import canonical_json as canonical_json
from ._jsjson import compact_json as compact_json
from ._jsjson import js_length as js_length
from ._jsjson import js_string as js_string
from ._jsjson import stable_json as stable_json

__all__ = [
    "REGISTRY", "ErrorSpec", "ProtocolError", "Violation", "approval_key", "canonical_json",
    "check", "compact_json", "field_doc", "guard_error", "js_length", "js_string",
    "not_stored_error", "read_back", "schema_version", "stable_json",
]  # fmt: skip
