"""What the planner asks of an upstream's dialect: how a value and a sort are written.

A dialect has the two members of `Encoder` and may add optional ones, reached
through the functions below, which fall back to the members every dialect has:

    sort_params(spec, keys, *, entity) -> dict[str, str]: sorting that needs several
        parameters (json-server's ``_sort=a,b&_order=asc,desc``);
    encode_filter(op, field, value) -> str | None: a value whose spelling depends on
        the operator (json-server's ``_like`` takes a regular expression);
    render_conditions(entity, conditions) -> NativeFilter: whole expressions in one
        parameter (PocketBase's ``filter``; see `ConditionRenderer`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from runtime.mapping import Entity, Field, SortSpec, encode_value


class Encoder(Protocol):
    def encode_value(self, field: Field | None, value: Any) -> str | None:
        """The query-string text of one filter value; None when it cannot be sent as one."""
        ...

    def sort_param(
        self, spec: SortSpec, keys: Sequence[tuple[str, bool]], *, entity: Entity | None = None
    ) -> tuple[str, str]:
        """``(param, value)`` sorting by `keys` (protocol field name, descending?)."""
        ...


def sort_params(
    encoder: Encoder,
    spec: SortSpec,
    keys: Sequence[tuple[str, bool]],
    *,
    entity: Entity | None = None,
) -> dict[str, str]:
    """Every query parameter sorting by `keys`, however many the dialect needs."""
    many = getattr(encoder, "sort_params", None)
    if many is not None:
        return dict(many(spec, keys, entity=entity))
    name, value = encoder.sort_param(spec, keys, entity=entity)
    return {name: value}


def encode_filter(encoder: Encoder, op: str, field: Field | None, value: Any) -> str | None:
    """The query-string text of `value` compared by the protocol operator `op`."""
    if field is not None and field.codec is not None:
        # The upstream compares what it stores: its own spelling (epoch seconds, 0/1).
        if isinstance(value, list | tuple):
            value = [encode_value(field.codec, v) for v in value]
        else:
            value = encode_value(field.codec, value)
    by_op = getattr(encoder, "encode_filter", None)
    if by_op is not None:
        encoded: str | None = by_op(op, field, value)
        return encoded
    return encoder.encode_value(field, value)
