"""Several apps behind one listener: `/apps/{appId}/...` goes to that app's own FastAPI
app with the prefix stripped, and the root answers the directory.

Each app keeps everything it has when served alone (its state, middleware, lifespan);
the dispatcher runs every app's lifespan itself, since an ASGI server only runs the
lifespan of the app it was given.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass

from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

from runtime import service
from runtime.protocol import ProtocolError
from runtime.service import RuntimeState

from ._app import create_app
from ._directory import APPS, IDENTITY, ServedApp, directory_doc, served_apps
from ._http import error_reply, reply
from ._middleware import HeadLimit, HostGuard, route_path

ROOT_IDENTITY = (IDENTITY, "/.well-known/a2app.json", APPS)
HINT = "Several apps are served here: each under /apps/{appId}/... (see GET /api/_a2app/apps)."


@dataclass(frozen=True, slots=True)
class Runtime:
    """What a served runtime answers: the ASGI app, and each app id's base path in it
    ("" for a single app, /apps/{id} for several). A request to `base + path` reaches
    the app as `path` would reach it served alone."""

    app: ASGIApp
    bases: dict[str, str]


def runtime_app(states: Sequence[RuntimeState]) -> Runtime:
    """One app served as it always is; several under /apps/{id} with a directory at the root."""
    apps = served_apps(states)
    bases = {app.id: app.base for app in apps}
    if len(states) == 1:
        return Runtime(create_app(states[0], directory=apps), bases)
    return Runtime(_Dispatcher(states, apps), bases)


def _directory_root(states: Sequence[RuntimeState], apps: Sequence[ServedApp]) -> ASGIApp:
    async def root(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        path = route_path(scope)
        if path in ROOT_IDENTITY:
            await reply(directory_doc(apps))(scope, receive, send)
            return
        unknown = scope.get("a2app.unknown_app")
        message = HINT if unknown is None else f"No app {unknown!r} is served here. {HINT}"
        error = ProtocolError("not_found", message, apps=[app.base for app in apps])
        await error_reply(error)(scope, receive, send)

    hosts = [service.allowed_hosts(state.mapping) for state in states]
    guarded = HostGuard(root, lambda host: any(service.host_allowed(host, h) for h in hosts))
    return HeadLimit(guarded)


class _Dispatcher:
    def __init__(self, states: Sequence[RuntimeState], apps: Sequence[ServedApp]) -> None:
        self._apps: dict[str, FastAPI] = {
            app.id: create_app(state, directory=apps)
            for state, app in zip(states, apps, strict=True)
        }
        self._root = _directory_root(states, apps)

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
        """Start every app's lifespan (feed, schedules, triggers) in turn, stop them in
        reverse; an app that fails to start stops those already started."""
        await receive()  # lifespan.startup
        async with AsyncExitStack() as stack:
            try:
                for app in self._apps.values():
                    await stack.enter_async_context(app.router.lifespan_context(app))
            except Exception as exc:
                await send({"type": "lifespan.startup.failed", "message": repr(exc)})
                return
            await send({"type": "lifespan.startup.complete"})
            await receive()  # lifespan.shutdown
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
