"""The MCP server: the fixed tools over the runtime's own app, one credential per caller."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mcp_types as types
from mcp.server.caching import CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from starlette.requests import Request as HttpRequest
from starlette.types import ASGIApp

from runtime.protocol import ProtocolError

from . import _confirm as confirm
from ._dispatch import Dispatcher, Reply, refused, rendered
from ._plan import Request, plan
from ._tools import TOOLS, Call, check

NAME = "a2app-gateway"
# The list is the same for every caller and every app: one fixed set, cacheable by all.
TOOLS_TTL_MS = 24 * 3600 * 1000
_PENDING = (
    "The owner has not approved this call yet; ask them to run "
    "`a2map approvals approve {key}`, then make the same call again."
)


def bearer(headers: Mapping[str, str]) -> str | None:
    value = headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


class Gateway:
    """MCP over the A2App surface of `app`, whose apps live at `bases` ({app id: base path},
    "" when one app is served at the root).

    `token` is the credential of a stdio client; over HTTP each request's bearer token
    is used instead. Apps in `owner_approvals` have `serve.approvals: owner`.
    """

    def __init__(
        self,
        app: ASGIApp,
        bases: Mapping[str, str],
        *,
        token: str | None = None,
        owner_approvals: frozenset[str] = frozenset(),
        version: str = "",
    ) -> None:
        if not bases:
            raise ValueError("the gateway needs at least one app")
        self.bases = dict(bases)
        self._token = token
        self._owner = owner_approvals
        self._dispatch = Dispatcher(app)
        self._seal = confirm.Seal()
        self.server: Server[Any] = Server(
            NAME,
            version=version,
            cache_hints={"tools/list": CacheHint(ttl_ms=TOOLS_TTL_MS, scope="public")},
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )

    async def aclose(self) -> None:
        await self._dispatch.aclose()

    async def known(self, token: str) -> bool:
        """Whether some served app knows `token` (a grant like any other)."""
        for app, base in self.bases.items():
            reply = await self._dispatch.send(
                Request(app, "GET", f"{base}/api/_a2app/whoami"), token
            )
            if reply.ok:
                return True
        return False

    def _caller(self, ctx: ServerRequestContext[Any, Any]) -> str | None:
        if isinstance(ctx.request, HttpRequest):
            return bearer(ctx.request.headers)
        return self._token

    async def _list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list(TOOLS))

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        token = self._caller(ctx)
        try:
            call = check(params.name, params.arguments)
            if self._wants_apps(call):
                return await self._apps(token)
            request = plan(call, self.bases)
        except ProtocolError as error:
            return refused(error)
        reply = await self._dispatch.send(request, token)
        if call.tool == "describe" and reply.ok and reply.body.get("level") == "root":
            reply = await self._versioned(request, reply, token)
        if request.operation is not None and reply.code == "approval_required":
            return await self._confirmed(ctx, params, call, request, reply, token)
        return rendered(reply)

    async def _versioned(self, request: Request, root: Reply, token: str | None) -> Reply:
        """The root level with the app's `schemaVersion` (from its identity), so a client
        can cache the levels below against it without another call."""
        base = self.bases[request.app]
        identity = await self._dispatch.send(
            Request(request.app, "GET", f"{base}/api/_a2app"), token
        )
        version = identity.body.get("schemaVersion") if isinstance(identity.body, dict) else None
        if not isinstance(version, str):
            return root
        return Reply(root.status, {**root.body, "schemaVersion": version}, root.receipt)

    def _wants_apps(self, call: Call) -> bool:
        """describe with no app, path or find, when several apps are served: the apps."""
        named = ("app", "path", "find")
        return (
            call.tool == "describe"
            and len(self.bases) > 1
            and not any(call.text(k) is not None for k in named)
        )

    async def _apps(self, token: str | None) -> types.CallToolResult:
        apps = []
        for app, base in self.bases.items():
            reply = await self._dispatch.send(Request(app, "GET", f"{base}/api/_a2app"), token)
            name = reply.body.get("name") if isinstance(reply.body, dict) else None
            apps.append({"id": app, "name": name or app})
        return rendered(
            Reply(200, {"level": "apps", "apps": apps, "next": ["describe app=<id>"]}, None)
        )

    async def _confirmed(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        call: Call,
        request: Request,
        refusal: Reply,
        token: str | None,
    ) -> types.CallToolResult | types.InputRequiredResult:
        name = request.operation or ""
        key = refusal.body.get("approvalKey")
        if not isinstance(key, str):
            return rendered(refusal)
        if request.app in self._owner:
            # The owner decides out of band; the key alone runs nothing, so presenting it
            # here only asks whether the owner has said yes yet.
            reply = await self._dispatch.send(request.approved(key), token)
            if reply.code == "approval_pending":
                # the model holds no key: what it does next is the same call again
                reply = Reply(
                    reply.status, {**reply.body, "message": _PENDING.format(key=key)}, None
                )
            return rendered(reply)
        if not confirm.can_ask(ctx):
            return refused(confirm.unavailable(name))
        args = call.object("args") or {}
        message = confirm.question(request.app, name, args)
        if confirm.uses_input_required(ctx):
            state = self._seal.of(token, request.app, name, args)
            if not self._seal.matches(params.request_state, token, request.app, name, args):
                return confirm.ask(message, state)
            answer: object = (params.input_responses or {}).get(confirm.QUESTION)
        else:
            answer = await ctx.session.elicit_form(
                message, confirm.SCHEMA, related_request_id=ctx.request_id
            )
        if not confirm.said_yes(answer):
            return refused(confirm.declined(name))
        return rendered(await self._dispatch.send(request.approved(key), token))
