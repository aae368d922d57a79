"""The FastAPI app in front of the service: middleware, one route per verb and path,
errors in the protocol's envelope; `runtime_app`, which puts several apps behind one
listener (each under /apps/{appId}); and `run`, which serves mappings on uvicorn."""

from runtime.service import DuplicateApp as DuplicateApp
from runtime.service import GateRefused as GateRefused
from runtime.service import ServeOptions as ServeOptions
from runtime.service import SharedWindowsError as SharedWindowsError
from runtime.service import build_state as build_state
from runtime.service import build_states as build_states

from ._app import create_app as create_app
from ._apps import Runtime as Runtime
from ._apps import runtime_app as runtime_app
from ._directory import ServedApp as ServedApp
from ._directory import directory_doc as directory_doc
from ._mcp import MCP_PATH as MCP_PATH
from ._mcp import mount_mcp as mount_mcp
from ._middleware import route_path as route_path
from ._serve import Announce as Announce
from ._serve import run as run

__all__ = [
    "MCP_PATH",
    "Announce",
    "DuplicateApp",
    "GateRefused",
    "Runtime",
    "ServeOptions",
    "ServedApp",
    "SharedWindowsError",
    "build_state",
    "build_states",
    "create_app",
    "directory_doc",
    "mount_mcp",
    "route_path",
    "run",
    "runtime_app",
]
