"""The directory of the apps one runtime serves: `GET /api/_a2app/apps`, and, when
several apps are served, the document at the root identity paths.

The directory carries `a2app: true` and `directory: true` but never an `app` field, so
no client can take it for one app's identity (protocol §5: a client checks `app.id`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from runtime.service import ADAPTER_VERSION, RuntimeState, server_now

IDENTITY = "/api/_a2app"
DESCRIBE = "/api/_a2app/describe"
APPS = "/api/_a2app/apps"


@dataclass(frozen=True, slots=True)
class ServedApp:
    id: str
    name: str | None
    base: str  # "" for the one app of a single-app runtime, else /apps/{id}


def served_apps(states: Sequence[RuntimeState]) -> tuple[ServedApp, ...]:
    """Each state's app and its base path: the root for one app, /apps/{id} for several."""
    several = len(states) > 1
    return tuple(
        ServedApp(
            s.mapping.app.id, s.mapping.app.name, f"/apps/{s.mapping.app.id}" if several else ""
        )
        for s in states
    )


def directory_doc(apps: Sequence[ServedApp]) -> dict[str, Any]:
    return {
        "a2app": True,
        "directory": True,
        "protocol": "0.1",
        "adapterVersion": ADAPTER_VERSION,
        "apps": [
            {
                "id": app.id,
                "name": app.name,
                "base": app.base,
                "identity": app.base + IDENTITY,
                "describe": app.base + DESCRIBE,
            }
            for app in apps
        ],
        "serverNow": server_now(),
    }
