"""`/mcp` on the runtime: the MCP gateway, loaded on its first request.

The MCP SDK and what it brings (pydantic models, a JWT and a crypto library) add
about 30 MB to the process and a third of a second to its start; a runtime nobody
reaches over MCP pays neither. The lifespan holds a task group from the start, so
the SDK's session manager, started on the first request, runs inside it and stops
with the runtime.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup, TaskStatus
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from runtime.protocol import ProtocolError
from runtime.service import RuntimeState, owner_approved

from ._apps import Runtime
from ._http import error_reply

if TYPE_CHECKING:
    from runtime.gateway import HttpEndpoint

MCP_PATH = "/mcp"


class _LazyMcp:
    def __init__(
        self,
        target: ASGIApp,
        bases: Mapping[str, str],
        owner_approvals: frozenset[str],
        allowed_origins: frozenset[str],
    ) -> None:
        self._target = target
        self._bases = dict(bases)
        self._owner = owner_approvals
        self._origins = allowed_origins
        self._endpoint: HttpEndpoint | None = None
        self._lock = anyio.Lock()
        self.group: TaskGroup | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        endpoint = self._endpoint or await self._load()
        if endpoint is None:
            # only outside the runtime's lifespan: before it started, or racing its stop
            error = ProtocolError("adapter_error", "The MCP gateway runs only while serving.")
            await error_reply(error)(scope, receive, send)
            return
        await endpoint.app(scope, receive, send)

    async def _load(self) -> HttpEndpoint | None:
        async with self._lock:
            if self._endpoint is None and self.group is not None:
                from runtime.gateway import HttpEndpoint  # deferred: see the module's doc

                endpoint = HttpEndpoint(
                    self._target, self._bases, owner_approvals=self._owner,
                    allowed_origins=self._origins,
                )  # fmt: skip
                await self.group.start(_hold, endpoint)
                self._endpoint = endpoint
        return self._endpoint


async def _hold(endpoint: HttpEndpoint, *, task_status: TaskStatus[None]) -> None:
    async with endpoint.run():
        task_status.started()
        await anyio.sleep_forever()


def mount_mcp(runtime: Runtime, states: Sequence[RuntimeState]) -> None:
    """The gateway at /mcp of the runtime as a whole (ahead of its catch-all route), over
    every app it serves; the apps' own UI origins are the only browser origins let in."""
    owner = owner_approved(states)
    origins = frozenset(o for s in states for o in s.mapping.serve.allowed_origins)
    root = runtime.root
    lazy = _LazyMcp(runtime.app, runtime.bases, owner, origins)
    root.router.routes.insert(0, Route(MCP_PATH, endpoint=lazy))
    outer = root.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[Any]:
        context: AbstractAsyncContextManager[Any] = outer(app)
        async with context as state, anyio.create_task_group() as group:
            lazy.group = group
            try:
                yield state
            finally:
                lazy.group = None
                group.cancel_scope.cancel()

    root.router.lifespan_context = lifespan
