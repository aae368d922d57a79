"""Inbound webhooks (`serve.hooks`): a signed delivery from the upstream's side becomes
one event (protocol §14.1), and with a capability one task, as a declared trigger's would.

The signature is the credential, so no agent token is asked for. A refused delivery is
audited (target `hook:<name>`) without its body, its headers or the secret.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from runtime.mapping import Mapping, Problem
from runtime.protocol import ProtocolError, parse_body

from ._audit import audit, entry
from ._events import trigger
from ._signatures import SCHEMES, BadSignature, whsec_key
from ._state import RuntimeState

log = logging.getLogger("a2app.runtime")


def hook_problems(mapping: Mapping) -> list[Problem]:
    """A Standard Webhooks secret whose value is no `whsec_<base64>`: found when the runtime
    starts, where the environment is read, rather than as a refusal of every delivery."""
    problems = []
    for name, hook in mapping.serve.hooks.items():
        if hook.scheme != "standard-webhooks":
            continue
        try:
            whsec_key(hook.secret)
        except BadSignature:
            # the variable's value is never repeated: it is the secret
            message = "the secret's environment variable does not hold whsec_<base64>"
            problems.append(Problem(("serve", "hooks", name, "secret"), message))
    return problems


def _field(body: dict[str, Any], dotted: str) -> Any:
    node: Any = body
    for part in dotted.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def receive_hook(
    state: RuntimeState, name: str, method: str, headers: dict[str, str], raw: bytes
) -> dict[str, Any]:
    """`POST /api/_a2app/hooks/{name}`: `{a2app, event, duplicate[, task]}`; a delivery
    whose id (or signature) was seen before raises nothing and says `duplicate: true`."""
    hook = state.mapping.serve.hooks.get(name)
    if hook is None:
        raise ProtocolError("not_found", f"No webhook named {name!r} is declared.")
    if method != "POST":
        raise ProtocolError("usage", "A webhook is delivered with POST.", status=405)
    try:
        delivery = SCHEMES[hook.scheme](hook, headers, raw, time.time())
    except BadSignature as exc:
        audit(state, entry(None, f"hook:{name}", "rejected", code="invalid_signature"))
        log.warning("webhook %s refused: %s", name, exc.reason)
        raise ProtocolError("invalid_signature") from None
    body = parse_body(raw) or {}
    payload = {path: _field(body, path) for path in hook.payload} if hook.payload else body
    # per hook: two senders may number their deliveries alike
    raised = trigger(state, hook.event, payload, hook.capability, f"hook:{name}:{delivery}")
    doc: dict[str, Any] = {"a2app": True, "event": raised.event.id, "duplicate": not raised.new}
    if raised.task is not None:
        doc["task"] = raised.task.id
    return doc
