"""Every tool call as an in-process HTTP request to the runtime's own app.

Going through the ASGI app, not the service functions, means a call passes the
same chain as any HTTP client's: Host guard, rate gate, credential and scope,
guard, idempotency, read-back, receipt, audit and the error envelopes. Only
headers built here are sent: nothing of the MCP client's own request (its
Authorization header included) is passed on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import httpx
import mcp_types as types
from starlette.types import ASGIApp

from runtime.protocol import ProtocolError
from runtime.service import RECEIPT_HEADER

from ._plan import Request

# A loopback name: always allowed by the runtime's Host guard (DNS-rebinding defence).
HOST = "127.0.0.1"
TOKEN_HEADER = "X-A2App-Token"


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    body: Any
    receipt: str | None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def code(self) -> str | None:
        code = self.body.get("code") if isinstance(self.body, dict) else None
        return code if isinstance(code, str) else None


class Dispatcher:
    def __init__(self, app: ASGIApp) -> None:
        self._client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url=f"http://{HOST}", timeout=None
        )

    async def send(self, request: Request, token: str | None) -> Reply:
        headers = {"Host": HOST, "Accept": "application/json", **request.headers}
        if token:
            headers[TOKEN_HEADER] = token
        answer = await self._client.request(
            request.method,
            request.path,
            params=request.params,
            json=request.body,
            headers=headers,
        )
        try:
            body = answer.json()
        except ValueError:
            body = ProtocolError("adapter_error", "The runtime answered something not JSON.").body()
        receipt = answer.headers.get(RECEIPT_HEADER)
        return Reply(answer.status_code, body, unquote(receipt) if receipt else None)

    async def aclose(self) -> None:
        await self._client.aclose()


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def rendered(reply: Reply) -> types.CallToolResult:
    """One text content: the answer's JSON, the receipt as its first line after a write;
    a refusal is `isError` with the whole envelope, every violation in it."""
    text = compact(reply.body)
    if reply.ok and reply.receipt:
        text = f"{reply.receipt}\n{text}"
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], is_error=not reply.ok
    )


def refused(error: ProtocolError) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=compact(error.body()))], is_error=True
    )
