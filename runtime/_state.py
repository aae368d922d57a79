"""Everything a request needs, built once when an app is served."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runtime.mapping import Mapping
from runtime.protocol import schema_version

from ._fanout import process_gate
from ._security import RateLimiter, Security

if TYPE_CHECKING:
    from runtime.store import Store
    from runtime.upstream import UpstreamClient


@dataclass(slots=True)
class RuntimeState:
    mapping: Mapping
    store: Store
    upstream: UpstreamClient
    unverified: bool = False
    reads_only: bool = False  # a read-only stamp: writes were never proven
    drift: int = 0  # pushdowns the local re-check contradicted
    audit_file: Path | None = None
    jobs: Any = None  # the JobRunner, set when the app is built
    describe_cache: dict[tuple[Any, ...], bytes] = field(default_factory=dict)
    fanout: asyncio.Semaphore = field(default_factory=process_gate)
    security: Security = field(init=False)
    limiter: RateLimiter = field(init=False)
    schema_version: str = field(init=False)

    def __post_init__(self) -> None:
        app_id = self.mapping.app.id
        self.security = Security(self.mapping, lambda token: self.store.find_grant(token, app_id))
        limits = self.mapping.serve.rate_limits
        self.limiter = RateLimiter({"data": limits.data, "ops": limits.ops})
        # The mapping is frozen for the life of the process, so the fingerprint is too.
        self.schema_version = schema_version(self.mapping)
