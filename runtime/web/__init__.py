"""The FastAPI app in front of the service: middleware, one route per verb and path,
errors in the protocol's envelope, and `run`, which serves a mapping on uvicorn."""

from runtime.service import GateRefused as GateRefused
from runtime.service import ServeOptions as ServeOptions
from runtime.service import build_state as build_state

from ._app import create_app as create_app
from ._middleware import route_path as route_path
from ._serve import Announce as Announce
from ._serve import run as run

__all__ = [
    "Announce",
    "GateRefused",
    "ServeOptions",
    "build_state",
    "create_app",
    "route_path",
    "run",
]
