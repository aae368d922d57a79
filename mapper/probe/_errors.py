"""Two families, kept apart: the prober failed, or the foreign API cannot be mapped.

ProbeError                 the prober cannot do its job; exit code on the class
  ├─ UsageError            bad arguments, unset environment variable, unreadable spec (2)
  ├─ UnreachableError      the upstream (or the named spec URL) does not answer (2)
  ├─ RefusedRequest        a request the prober must never send (a bug, never caught)
  ├─ AuthRefused           nothing mapped and the API refused the prober (401/403):
  │                        the message says which --header to pass (2)
  └─ NothingMappable       every source was read and nothing could be mapped (1)

Finding                    the foreign API is wrong or unmappable here: a value, not
                           an exception; it becomes an ``unmapped:`` entry
ForeignApiError            carries one Finding out of a source that has to stop
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .._exits import Exit

# Machine-readable reasons written as "<code>: <detail>" in ``unmapped:``.
REASONS: dict[str, str] = {
    "no-schema": "no JSON schema and no usable sample describes the response",
    "binary-response": "the response is a file or other binary content",
    "html-response": "the response is an HTML page",
    "non-json": "the response is neither JSON nor a known binary type",
    "auth-refused": "the upstream refused the prober's credentials",
    "not-found": "the route answered 404",
    "server-error": "the route answered with a 5xx status",
    "unreachable": "the route did not answer in time or the connection failed",
    "ambiguous-id": "no single id field identifies the records",
    "recursive-schema": "the schema refers to itself",
    "polymorphic": "the schema is one of several unrelated shapes",
    "nested-collection": "a collection reachable only under another record",
    "hyperlinked-ref": "references are URLs, which the runtime does not write",
    "mixed-params": "the operation takes both query and body parameters",
    "binary-request": "the operation takes a file upload",
    "form-body": "the operation takes a form body, and the upstream's other writes take JSON",
    "paging": "the list pages in a way the mapping's pagination cannot walk",
    "outside-upstream": "a link pointing outside the upstream base URL (never followed)",
    "spec-document": "the API's own OpenAPI document, not data",
    "api-root": "an index of the collections, not data",
    "system-collection": "the upstream's own bookkeeping collection (PocketBase's _superusers, …)",
    "auth-collection": "accounts managed through the upstream's own auth routes",
    "hidden-field": "a field the upstream hides from its ordinary API clients",
    "instance-limit": "an instance of a templated collection past the number the probe maps",
    "no-record-answer": "a create that answers no record, no Location and carries no id",
    "derived-field": "a field without a column: a list the upstream derives from other records",
}


@dataclass(frozen=True, slots=True)
class Finding:
    """Something of the foreign API that is not mapped, and why."""

    path: str
    code: str
    detail: str
    method: str | None = None

    @property
    def reason(self) -> str:
        return f"{self.code}: {self.detail}"


class ProbeError(Exception):
    """The prober could not do its job; `exit_code` is what the command exits with."""

    exit_code: Exit = Exit.USAGE

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class UsageError(ProbeError):
    """Bad arguments, an unset variable, or a spec file that cannot be read."""


class UnreachableError(ProbeError):
    """The upstream or the named spec URL does not answer."""


class RefusedRequest(ProbeError):
    """A request the prober must never send: a write method, or a URL outside the base."""


class AuthRefused(ProbeError):
    """Nothing could be mapped and the API refused the prober's requests (401/403):
    not an answer about the API, so no mapping of nothing is written."""

    def __init__(self, message: str, header: str, findings: Sequence[Finding] = ()) -> None:
        super().__init__(message)
        self.header = header
        self.findings = tuple(findings)


class NothingMappable(ProbeError):
    """Every source was read and no entity could be mapped."""

    exit_code: Exit = Exit.NOTHING

    def __init__(self, message: str, findings: Sequence[Finding] = ()) -> None:
        super().__init__(message)
        self.findings = tuple(findings)
