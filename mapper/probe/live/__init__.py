"""The probe's live half: the read-only transport every request leaves through, and
what a sampled answer says (envelopes, records, value kinds, the last record).

The transport's names and the HTML reader load with their first use: they bring the
HTTP stack and the runtime's upstream client, which a probe of a spec file never needs.
"""

from typing import TYPE_CHECKING, Any

from ._lastrecord import has_ids as has_ids
from ._lastrecord import last_record as last_record
from ._lastrecord import size_cap as size_cap
from ._samples import NEXT_KEYS as NEXT_KEYS
from ._samples import TOTAL_KEYS as TOTAL_KEYS
from ._samples import Envelope as Envelope
from ._samples import dig as dig
from ._samples import envelope_of as envelope_of
from ._samples import flatten_record as flatten_record
from ._samples import jsonapi_targets as jsonapi_targets
from ._samples import records_of as records_of
from ._samples import sample_claims as sample_claims
from ._samples import values_at as values_at
from ._values import CODEC_SHOWN as CODEC_SHOWN
from ._values import kind_of as kind_of

if TYPE_CHECKING:
    from ._html import HtmlLink as HtmlLink
    from ._html import html_links as html_links
    from ._http import SAFE_METHODS as SAFE_METHODS
    from ._http import Exchange as Exchange
    from ._http import ProbeClient as ProbeClient
    from ._http import ReadOnlyTransport as ReadOnlyTransport
    from ._http import classify as classify

_TRANSPORT = frozenset({"SAFE_METHODS", "Exchange", "ProbeClient", "ReadOnlyTransport", "classify"})
_HTML = frozenset({"HtmlLink", "html_links"})

__all__ = [
    "CODEC_SHOWN", "NEXT_KEYS", "SAFE_METHODS", "TOTAL_KEYS", "Envelope", "Exchange", "HtmlLink",
    "ProbeClient", "ReadOnlyTransport", "classify", "dig", "envelope_of", "flatten_record",
    "has_ids", "html_links",
    "jsonapi_targets", "kind_of", "last_record", "records_of", "sample_claims", "size_cap",
    "values_at",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in _TRANSPORT:
        from . import _http

        return getattr(_http, name)
    if name in _HTML:
        from . import _html

        return getattr(_html, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
