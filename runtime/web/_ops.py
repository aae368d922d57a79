"""Operations: `POST /api/ops/{name}` (protocol §13), the `/api/_ops` listing, job polling."""

from __future__ import annotations

from starlette.responses import Response

from runtime import service
from runtime.protocol import ProtocolError

from ._adapter import Call
from ._http import reply


async def run_operation(call: Call) -> Response:
    body, receipt = await service.run_operation(
        call.state, call.headers, call.operation, call.body, precheck=call.precheck()
    )
    return reply(body, headers=receipt)


async def operation_other_verb(call: Call) -> Response:
    raise ProtocolError("usage", "Operations are POST-only.", status=405)


async def operations_listing(call: Call) -> Response:
    """Every declared operation with typed params, and who may run it."""
    call.only()
    return reply(service.operations_listing(call.state, call.headers))


async def listing_other_verb(call: Call) -> Response:
    raise ProtocolError("usage", "The operations listing is GET-only.", status=405)


async def poll_job(call: Call) -> Response:
    """`GET /api/_jobs/{id}`: status and result, for callers holding the operation's scope."""
    doc = service.poll_job(call.state, call.headers, call.path["id"], precheck=call.precheck())
    return reply(doc)


async def job_other_verb(call: Call) -> Response:
    raise ProtocolError("usage", "Jobs are polled with GET.", status=405)
