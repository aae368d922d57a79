"""`/api/realtime`: PocketBase's realtime protocol (an SSE stream and its subscriptions)."""

from __future__ import annotations

from starlette.responses import Response, StreamingResponse

from runtime.protocol import ProtocolError

from ._adapter import Call

STREAM_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


async def realtime(call: Call) -> Response:
    """`GET` opens the stream; `POST {clientId, subscriptions}` replaces its topics (204)."""
    hub = call.state.realtime
    if call.method == "GET":
        call.only()
        client = hub.connect()
        return StreamingResponse(
            hub.stream(client), media_type="text/event-stream", headers=STREAM_HEADERS
        )
    if call.method == "POST":
        call.only()
        hub.subscribe(call.headers, call.body)
        return Response(status_code=204)
    raise ProtocolError("usage", "Realtime is opened with GET and subscribed with POST.",
                        status=405)  # fmt: skip
