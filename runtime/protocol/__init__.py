"""The A2App protocol: vocabulary, guard rules, errors, fingerprints, describe."""

from ._errors import REGISTRY as REGISTRY
from ._errors import ErrorSpec as ErrorSpec
from ._errors import ProtocolError as ProtocolError
from ._fingerprint import field_doc as field_doc
from ._fingerprint import schema_version as schema_version
from ._jsjson import compact_json as compact_json
from ._jsjson import js_length as js_length
from ._jsjson import js_string as js_string
from ._jsjson import stable_json as stable_json

__all__ = [
    "REGISTRY",
    "ErrorSpec",
    "ProtocolError",
    "compact_json",
    "field_doc",
    "js_length",
    "js_string",
    "schema_version",
    "stable_json",
]
