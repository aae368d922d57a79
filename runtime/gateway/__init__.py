"""An MCP gateway over the A2App surface: four fixed tools (describe, records, operation,
tasks), each call an in-process HTTP request to the runtime's own app, so it passes the
same chain as any HTTP client. Stdio for desktop clients, streamable HTTP at `/mcp`."""

from ._gateway import Gateway as Gateway
from ._tools import TOOLS as TOOLS
from ._transports import MCP_PATH as MCP_PATH
from ._transports import HttpEndpoint as HttpEndpoint
from ._transports import UnknownToken as UnknownToken
from ._transports import mount_mcp as mount_mcp
from ._transports import serve_stdio as serve_stdio

__all__ = [
    "MCP_PATH", "TOOLS", "Gateway", "HttpEndpoint", "UnknownToken", "mount_mcp", "serve_stdio"
]  # fmt: skip
