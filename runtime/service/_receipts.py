"""Receipts for successful writes: from the stored record, kept in the store, sent as a header."""

from __future__ import annotations

from collections.abc import Mapping as AbcMapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from runtime.mapping import Entity
from runtime.protocol import Caller, ProtocolError, operation_receipt, record_receipt

from . import _seen as seen
from ._fanout import bounded
from ._state import RuntimeState

HEADER = "X-A2App-Receipt"
PAGE = 100


async def _ref_labels(
    state: RuntimeState, entity: Entity, record: AbcMapping[str, Any], shown: Sequence[str]
) -> dict[str, str | None]:
    wanted: list[tuple[Entity, str]] = []
    for name in shown:
        field = entity.fields.get(name)
        if field is None or not field.is_ref or field.entity not in state.mapping.entities:
            continue
        value = record.get(name)
        for ref in value if isinstance(value, list) else [value]:
            if ref is not None and ref != "":
                wanted.append((state.mapping.entities[field.entity or ""], str(ref)))
    try:
        found = await bounded(
            state.fanout, (seen.get_record(state.upstream, t, i) for t, i in wanted)
        )
    except ProtocolError:
        # The write is done and was read back; a label the upstream cannot give now
        # is shown as the id, never turned into a failure of the write.
        found = [None] * len(wanted)
    labels: dict[str, str | None] = {}
    for (target, ref), rec in zip(wanted, found, strict=True):
        value = rec.get(target.label) if rec is not None and target.label else None
        labels[ref] = None if value is None else str(value)
    return labels


@dataclass(frozen=True, slots=True)
class Kept:
    """A receipt as the store keeps it, committed with the rest of its write's end."""

    target: str
    record_id: str | None
    text: str


async def for_record(
    state: RuntimeState,
    verb: str,
    entity: Entity,
    record: AbcMapping[str, Any],
    shown: Sequence[str],
) -> Kept:
    labels = await _ref_labels(state, entity, record, shown)
    text = record_receipt(verb, entity, record, shown, labels)
    return Kept(f"data:{entity.name}", str(record.get("id")), text)


def for_operation(
    name: str,
    target: tuple[Entity, AbcMapping[str, Any]] | None,
    suffix: str = "",
) -> Kept:
    text = operation_receipt(name, target)
    if suffix:
        text = text[:-1] + suffix
    record_id = str(target[1].get("id")) if target else None
    return Kept(f"op:{name}", record_id, text)


def header(text: str) -> dict[str, str]:
    """UTF-8, percent-encoded: header values are Latin-1 on the wire."""
    return {HEADER: quote(text, safe=" !\"#$&'()*+,-./:;<=>?@[]^_`{|}~")}


def feed(state: RuntimeState, caller: Caller, since: str) -> dict[str, Any]:
    """What happened, in the system's own words: the receipts `caller` may see, after `since`."""
    if not since.isdigit():
        raise ProtocolError("usage", "since is the nextCursor of an earlier page (digits).")
    rows = state.store.receipts_since(state.mapping.app.id, int(since), PAGE)
    visible = []
    for row in rows:
        kind, _, name = row.target.partition(":")
        allowed = caller.can_read(name) if kind == "data" else caller.can_run(name)
        if allowed:
            visible.append(
                {
                    "id": row.id,
                    "at": row.at.isoformat().replace("+00:00", "Z"),
                    "target": row.target,
                    "recordId": row.record_id,
                    "text": row.text,
                }
            )
    cursor = str(rows[-1].id) if rows else since
    return {"a2app": True, "receipts": visible, "nextCursor": cursor, "pollAfterMs": 3000}
