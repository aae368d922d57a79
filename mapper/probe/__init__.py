"""`a2map probe`: inspect a foreign REST API read-only and draft its mapping.

Sources (an OpenAPI 3.0/3.1 or Swagger 2 spec, DRF ``OPTIONS`` metadata, API
roots and links, live samples of every list route) are read separately, merged
with evidence per decision, built as the runtime's typed mapping and written
with the runtime's `dump` as a deterministic mapping file.
"""

import typing as _typing

from ._command import Written as Written
from ._command import probe_command as probe_command
from ._command import summary as probe_summary
from ._command import write_draft as write_draft
from ._draft import Draft as Draft
from ._errors import REASONS as REASONS
from ._errors import AuthRefused as AuthRefused
from ._errors import Finding as Finding
from ._errors import NothingMappable as NothingMappable
from ._errors import ProbeError as ProbeError
from ._errors import RefusedRequest as RefusedRequest
from ._errors import UnreachableError as UnreachableError
from ._errors import UsageError as UsageError
from ._naming import singular as singular
from ._run import ProbeOptions as ProbeOptions
from ._run import ProbeRun as ProbeRun
from ._run import probe as probe
from .render import build_mapping as build_mapping
from .render import render as render

if _typing.TYPE_CHECKING:
    from .live import SAFE_METHODS as SAFE_METHODS
    from .live import ReadOnlyTransport as ReadOnlyTransport

__all__ = [
    "REASONS", "SAFE_METHODS", "AuthRefused", "Draft", "Finding", "NothingMappable",
    "ProbeError", "ProbeOptions", "ProbeRun", "ReadOnlyTransport", "RefusedRequest",
    "UnreachableError", "UsageError", "Written", "build_mapping", "probe", "probe_command",
    "probe_summary", "render", "singular", "write_draft",
]  # fmt: skip


def __getattr__(name: str) -> _typing.Any:
    # The transport loads with its first use, as in `live`: a spec file alone needs no HTTP.
    if name in ("SAFE_METHODS", "ReadOnlyTransport"):
        from . import live

        return getattr(live, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
