"""The app→agent plane under /api/_a2app: events, tasks (protocol §14), context (§8) and
the signed webhooks that raise events."""

from __future__ import annotations

from starlette.responses import Response

from runtime import service
from runtime.protocol import ProtocolError

from ._adapter import Call
from ._http import reply

READS = ("GET", "HEAD")


async def events(call: Call) -> Response:
    """`GET /api/_a2app/events?since=<cursor>`."""
    if call.method not in READS:
        raise ProtocolError("usage", "Events are read with GET.", status=405)
    caller = service.authorise(call.state, call.headers)
    call.only("since")
    since = call.query.get("since", "0") or "0"
    return reply(service.events_feed(call.state, caller, since))


async def context(call: Call) -> Response:
    """`GET /api/_a2app/context`; `PUT` from the app's UI or the owner (docs/protocol.md)."""
    if call.method == "PUT":
        return reply(
            service.set_context(call.state, call.headers, call.body, precheck=call.precheck())
        )
    if call.method not in READS:
        raise ProtocolError("usage", "The context is read with GET and set with PUT.", status=405)
    return reply(service.context_doc(call.state, call.headers, precheck=call.precheck()))


async def tasks(call: Call) -> Response:
    """`GET /api/_a2app/tasks[?status=]`; any other verb lacks the task id."""
    state, headers = call.state, call.headers
    if call.method in READS:
        status = call.query.get("status")
        return reply(service.list_tasks(state, headers, status, precheck=call.precheck("status")))
    service.no_task_id(state, headers, precheck=call.precheck())


async def task(call: Call) -> Response:
    """`GET /api/_a2app/tasks/{id}`."""
    doc = service.get_task(
        call.state, call.headers, call.path["id"], call.method, precheck=call.precheck()
    )
    return reply(doc)


async def task_action(call: Call) -> Response:
    """`POST /api/_a2app/tasks/{id}/{action}`: claim, progress, complete, cancel."""
    path = call.path
    doc = service.act_on_task(
        call.state, call.headers, path["id"], path["action"], call.method, call.body,
        precheck=call.precheck(),
    )  # fmt: skip
    return reply(doc)


async def hook(call: Call) -> Response:
    """`POST /api/_a2app/hooks/{name}`: no agent token; the signature is the credential."""
    return reply(
        service.receive_hook(call.state, call.path["name"], call.method, call.headers, call.body)
    )
