"""Several apps behind one listener: `/apps/{appId}/...` goes to that app's own FastAPI
app with the prefix stripped, and the root answers the directory.

Each app keeps everything it has when served alone (its state, middleware, lifespan);
the dispatcher runs every app's lifespan itself, since an ASGI server only runs the
lifespan of the app it was given.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

from fastapi import FastAPI
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Mount
from starlette.types import ASGIApp, Receive, Scope, Send

from runtime import service
from runtime.protocol import ProtocolError
from runtime.service import RuntimeState

from ._app import create_app
from ._directory import APPS, IDENTITY, ServedApp, directory_doc, served_apps
from ._http import error_reply, reply
from ._middleware import Intake, route_path

ROOT_IDENTITY = (IDENTITY, "/.well-known/a2app.json", APPS)
HINT = "Several apps are served here: each under /apps/{appId}/... (see GET /api/_a2app/apps)."


@dataclass(frozen=True, slots=True)
class Runtime:
    """What a served runtime answers: the ASGI app, and each app id's base path in it
    ("" for a single app, /apps/{id} for several). A request to `base + path` reaches
    the app as `path` would reach it served alone.

    `root` is where routes of the runtime as a whole go (the MCP gateway's `/mcp`): the
    one app itself, or the directory's app beside the apps; its lifespan runs with theirs.
    """

    app: ASGIApp
    root: Starlette
    bases: dict[str, str]
    apps: tuple[Starlette, ...]

    def lifespan(self) -> AbstractAsyncContextManager[None]:
        """Every app's lifespan (feed, schedules, triggers) and the root's: what the
        listener runs, and what runs the runtime with no listener (the gateway on stdio)."""
        return _lifespans(self.apps if self.root in self.apps else (*self.apps, self.root))


@asynccontextmanager
async def _lifespans(apps: Sequence[Starlette]) -> AsyncIterator[None]:
    """Started in turn, stopped in reverse; one that fails to start stops those started."""
    async with AsyncExitStack() as stack:
        for app in apps:
            context: AbstractAsyncContextManager[object] = app.router.lifespan_context(app)
            await stack.enter_async_context(context)
        yield


def runtime_app(states: Sequence[RuntimeState]) -> Runtime:
    """One app served as it always is; several under /apps/{id} with a directory at the root."""
    apps = served_apps(states)
    bases = {app.id: app.base for app in apps}
    if len(states) == 1:
        one = create_app(states[0], directory=apps)
        return Runtime(one, one, bases, (one,))
    served = {
        app.id: create_app(state, directory=apps) for state, app in zip(states, apps, strict=True)
    }
    root = _directory_root(states, apps)
    return Runtime(_Dispatcher(served, root), root, bases, tuple(served.values()))


def _directory_root(states: Sequence[RuntimeState], apps: Sequence[ServedApp]) -> Starlette:
    async def directory(scope: Scope, receive: Receive, send: Send) -> None:
        path = route_path(scope)
        if path in ROOT_IDENTITY:
            await reply(directory_doc(apps))(scope, receive, send)
            return
        unknown = scope.get("a2app.unknown_app")
        message = HINT if unknown is None else f"No app {unknown!r} is served here. {HINT}"
        error = ProtocolError("not_found", message, apps=[app.base for app in apps])
        await error_reply(error)(scope, receive, send)

    hosts = [service.allowed_hosts(state.mapping) for state in states]

    def allowed(host: str | None) -> bool:
        return any(service.host_allowed(host, h) for h in hosts)

    # The directory under everything a whole-runtime route (inserted first) does not take.
    return Starlette(
        routes=[Mount("/", app=directory)], middleware=[Middleware(Intake, allowed=allowed)]
    )


class _Dispatcher:
    def __init__(self, apps: dict[str, FastAPI], root: Starlette) -> None:
        self._apps = apps
        self._root = root

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        path: str = scope.get("path", "")
        if path.startswith("/apps/"):
            app_id, slash, rest = path[len("/apps/") :].partition("/")
            app = self._apps.get(app_id)
            if app is not None:
                await app(_within(scope, f"/apps/{app_id}", slash + rest), receive, send)
                return
            scope = {**scope, "a2app.unknown_app": app_id}
        await self._root(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        """The runtime's lifespan under the ASGI server, as `Runtime.lifespan` runs it."""
        await receive()  # lifespan.startup
        context = _lifespans((*self._apps.values(), self._root))
        try:
            await context.__aenter__()
        except Exception as exc:
            await send({"type": "lifespan.startup.failed", "message": repr(exc)})
            return
        await send({"type": "lifespan.startup.complete"})
        await receive()  # lifespan.shutdown
        await context.__aexit__(None, None, None)
        await send({"type": "lifespan.shutdown.complete"})


def _within(scope: Scope, prefix: str, rest: str) -> Scope:
    """The scope an app sees: the path below its prefix, the prefix as root_path."""
    inner = {**scope, "path": rest or "/", "root_path": scope.get("root_path", "") + prefix}
    raw = scope.get("raw_path")
    if raw is not None:
        encoded = prefix.encode("latin-1")
        # a prefix spelled otherwise in the raw path (escaped): route on the decoded path
        inner["raw_path"] = raw[len(encoded) :] or b"/" if raw.startswith(encoded) else None
    return inner
