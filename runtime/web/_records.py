"""`/api/collections/{entity}/records[/{id}]`: one route per verb (protocol §9)."""

from __future__ import annotations

from starlette.responses import Response

from runtime import service
from runtime.service import RECORD_PARAMS

from ._adapter import Call
from ._http import reply

# A write answers with the stored record, which `fields` trims as on a read. No
# `expand`: reads after a write that failed would make a done write look failed.
WRITE_PARAMS = ("fields",)


async def list_records(call: Call) -> Response:
    service.authorise_read(call.state, call.headers, call.entity)
    service.refuse_stray_parts(call.query)  # first: a filter cut at a raw `&&` is told as such
    call.only(*RECORD_PARAMS)
    return reply(await call.state.reads.listing(call.entity, call.query))


async def view_record(call: Call) -> Response:
    state, entity = call.state, call.entity
    service.authorise_read(state, call.headers, entity)
    service.refuse_stray_parts(call.query)
    call.only(*RECORD_PARAMS)
    # as a list does: `expand` and `fields` are checked before the upstream is asked
    state.reads.check_shape(entity, call.query)
    record = await state.reads.fetch(entity, call.path["id"])
    return reply((await state.reads.shaped(entity, [record], call.query))[0])


async def create_record(call: Call) -> Response:
    body, receipt = await service.create_record(
        call.state, call.headers, call.entity, call.body,
        record_id=call.path.get("id"), fields=call.query.get("fields"),
        precheck=call.precheck(*WRITE_PARAMS),
    )  # fmt: skip
    return reply(body, headers=receipt)


async def update_record(call: Call) -> Response:
    body, receipt = await service.update_record(
        call.state, call.headers, call.entity, call.body,
        record_id=call.path.get("id"), fields=call.query.get("fields"),
        precheck=call.precheck(*WRITE_PARAMS),
    )  # fmt: skip
    return reply(body, headers=receipt)


async def delete_record(call: Call) -> Response:
    body, receipt = await service.delete_record(
        call.state, call.headers, call.entity,
        record_id=call.path.get("id"), fields=call.query.get("fields"),
        precheck=call.precheck(*WRITE_PARAMS),
    )  # fmt: skip
    return reply(body, headers=receipt)


async def other_verb(call: Call) -> Response:
    """A verb records do not take: 405, after the write's authorisation like the others."""
    service.refuse_verb(call.state, call.headers, call.entity, call.path.get("id"), call.method)
