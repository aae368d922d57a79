"""Identity, whoami and the describe levels (protocol §5 to §7).

Identity and the root, module, entity and find levels are not metered and never refuse
on Origin (§17, §18): they render the caller's access. The record and relation levels
read the upstream, are metered as data and authorise.
"""

from __future__ import annotations

from collections.abc import Mapping as AbcMapping
from typing import Any, NoReturn

from runtime.mapping import Entity, Module
from runtime.protocol import Caller, ProtocolError, describe

from ._audit import meter
from ._clock import server_now, tz_offset_minutes
from ._state import RuntimeState

ADAPTER_VERSION = "0.1.0"
# More {id, label} items than fit a 2,000-character level, and the most ?all=true reads.
RELATION_SHOWN = 100
RELATION_ALL = 1_000


def identity(state: RuntimeState) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "a2app": True,
        "protocol": "0.1",
        "adapterVersion": ADAPTER_VERSION,
        "app": {"id": state.mapping.app.id, "name": state.mapping.app.name},
        "schemaVersion": state.schema_version,
        "dataVersion": state.store.data_version(state.mapping.app.id),
        "serverNow": server_now(),
        "serverTzOffsetMinutes": tz_offset_minutes(),
    }
    if state.mapping.app.version:
        doc["appVersion"] = state.mapping.app.version
    if state.unverified:
        doc["verified"] = False  # documented extension: served with --allow-unverified
    elif state.withheld:
        doc["verified"] = "partial"  # a partial stamp: the refused part is withheld
    elif state.reads_only:
        doc["verified"] = "reads"
    return doc


def whoami(caller: Caller) -> dict[str, Any]:
    return {
        "a2app": True,
        "credentialId": caller.credential_id,
        "agentName": caller.agent_name,
        "principal": caller.principal,
        "scopes": sorted(caller.scopes),
    }


def _show_all(query: AbcMapping[str, str]) -> bool:
    return query.get("all") == "true"


def describe_root(
    state: RuntimeState, headers: dict[str, str], query: AbcMapping[str, str]
) -> bytes:
    mapping, show_all = state.mapping, _show_all(query)
    caller = state.security.render_caller(headers)
    if query.get("format") == "flat":
        return state.describer.level(("flat",), caller, lambda: describe.flat(mapping, caller))
    if "find" in query:
        term = query["find"]
        if not term:
            raise ProtocolError("usage", "find needs a search term.")
        return state.describer.level(
            ("find", term, show_all),
            caller,
            lambda: describe.find(mapping, term, caller, show_all=show_all),
        )
    return state.describer.level(
        ("root", show_all), caller, lambda: describe.root(mapping, caller, show_all=show_all)
    )


def refuse_depth() -> NoReturn:
    raise ProtocolError("usage", "Describe takes at most four path segments.", status=404)


def _module(state: RuntimeState, name: str) -> Module:
    module = state.mapping.module(name)
    if module is None:
        raise ProtocolError(
            "unknown_module",
            f"No module {name!r}.",
            modules=[m.name for m in state.mapping.modules],
        )
    return module


def _entity(state: RuntimeState, module_name: str, name: str) -> Entity:
    module = _module(state, module_name)
    entity = state.mapping.entities.get(name)
    if entity is None or entity.module != module.name:
        where = f" It is in module {entity.module!r}." if entity is not None else ""
        raise ProtocolError("unknown_entity", f"No entity {name!r} in {module.name!r}.{where}")
    return entity


def describe_module(
    state: RuntimeState, headers: dict[str, str], query: AbcMapping[str, str], name: str
) -> bytes:
    mapping, show_all = state.mapping, _show_all(query)
    module = _module(state, name)
    caller = state.security.render_caller(headers)
    return state.describer.level(
        ("module", module.name, show_all),
        caller,
        lambda: describe.module(mapping, module.name, caller, show_all=show_all),
    )


def _can_read(caller: Caller, entity: str) -> None:
    if not caller.can_read(entity):
        scope = f"data:{entity}:read"
        raise ProtocolError("insufficient_scope", f"Reading needs {scope}.", required=scope)


def describe_entity(
    state: RuntimeState, headers: dict[str, str], query: AbcMapping[str, str],
    module: str, name: str,
) -> bytes:  # fmt: skip
    mapping, show_all = state.mapping, _show_all(query)
    entity = _entity(state, module, name)
    caller = state.security.render_caller(headers)
    _can_read(caller, entity.name)
    return state.describer.level(
        ("entity", entity.name, show_all),
        caller,
        lambda: describe.entity(mapping, entity, caller, show_all=show_all),
    )


async def _record(
    state: RuntimeState, headers: dict[str, str], module: str, name: str, record_id: str
) -> tuple[Entity, Caller, dict[str, Any]]:
    entity = _entity(state, module, name)
    meter(state, headers, "data", audited=False)
    caller = state.security.authorize(headers, f"data:{entity.name}:read", write=False)
    return entity, caller, await state.reads.fetch(entity, record_id)


async def describe_record(
    state: RuntimeState, headers: dict[str, str], module: str, name: str, record_id: str
) -> dict[str, Any]:
    entity, caller, record = await _record(state, headers, module, name, record_id)
    return describe.record(state.mapping, entity, caller, record)


async def describe_relation(
    state: RuntimeState, headers: dict[str, str], query: AbcMapping[str, str],
    module: str, name: str, record_id: str, relation: str,
) -> dict[str, Any]:  # fmt: skip
    show_all = _show_all(query)
    entity, caller, record = await _record(state, headers, module, name, record_id)
    names = describe.relation_names(entity)
    if relation not in names:
        raise ProtocolError("unknown_relation", f"No relation {relation!r}.", relations=names)
    target_name = entity.fields[relation].entity
    assert target_name is not None
    _can_read(caller, target_name)
    ids = [str(v) for v in record.get(relation) or []]
    # Only what can be shown is looked up: a level fits far fewer items than this,
    # and the ids past it are trimmed (and counted) all the same.
    limit = RELATION_ALL if show_all else RELATION_SHOWN
    if show_all and len(ids) > RELATION_ALL:
        raise ProtocolError(
            "usage",
            f"{relation} holds {len(ids)} ids, more than the {RELATION_ALL} one level "
            f"lists; read them with GET /api/collections/{target_name}/records?filter=…",
        )
    items = await state.reads.labels(state.mapping.entities[target_name], ids[:limit])
    items += [{"id": i, "label": None} for i in ids[limit:]]
    return describe.relation(
        entity, str(record["id"]), relation, target_name, items, show_all=show_all
    )
