"""Values made from the mapping, compared as declared, judged by the runtime's own guard.

Synthesised values differ from what an upstream typically defaults to (a
boolean is written `true`, a number is never 0, an enum avoids its first value),
so a read-back that shows the value proves the write, not the default.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import ipaddress
import re
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from runtime.mapping import Entity, Field
from runtime.protocol import Violation, check, stored_as_sent

from ._marker import TAG_PREFIX, tag_field

NO_VALUE: Any = object()
OUTSIDE_ENUM = "a2v-not-a-value"
_DATETIMES = ("2031-02-03T04:05:06Z", "2032-03-04T05:06:07Z")


# What the stored records show of a field's values: text in a slug's alphabet (names
# an upstream checks beyond its spec), JSON that is always a list. The other shapes are
# learnt from a refusal (see `_repair`): text as a UUID, an email address or a URL, JSON
# as a copy of a value the upstream already stores (`SAMPLE`), or no value (`OMIT`).
SLUG = "slug"
LIST = "list"
UUID = "uuid"
EMAIL = "email"
URL = "url"
SAMPLE = "sample"
# Left out of the body: an optional field whose made-up values the upstream refuses.
OMIT = "omit"
# Stored values kept per field as models for `SAMPLE`.
SAMPLES_KEPT = 3
_SLUG = re.compile(r"^[a-z0-9_-]+$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
IP = "ip"


def _is_uuid(text: str) -> bool:
    try:
        return str(uuid.UUID(text)) == text.lower()
    except ValueError:
        return False


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


# Text shapes stored values may share, narrowest first: a UUID is in a slug's alphabet
# too, and must be told apart before it.
_TEXT_SHAPES: tuple[tuple[str, Callable[[str], bool]], ...] = (
    (UUID, _is_uuid),
    (IP, _is_ip),
    (EMAIL, lambda v: _EMAIL.match(v) is not None),
    (URL, lambda v: v.startswith(("http://", "https://"))),
    (SLUG, lambda v: _SLUG.match(v) is not None),
)


def sampled_shapes(entity: Entity, records: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """The shapes every stored value of a field shares, so made-up values keep to them."""
    shapes: dict[str, str] = {}
    listed = list(records)
    tagged = tag_field(entity)
    for field in entity.fields.values():
        values = [r[field.name] for r in listed if r.get(field.name) is not None]
        if not values:
            continue
        text = field.type == "string" and all(isinstance(v, str) for v in values)
        # The field carrying the run marker keeps it first (sweeps match it at the
        # start): no shape that would drop or move it.
        kinds = [k for k in _TEXT_SHAPES if field is not tagged or k[0] not in (UUID, IP, URL)]
        shape = next((k for k, fits in kinds if text and all(map(fits, values))), None)
        if shape is not None:
            shapes[field.name] = shape
        elif field.type == "json" and all(isinstance(v, list) for v in values):
            shapes[field.name] = LIST
    return shapes


def sampled_values(entity: Entity, records: Iterable[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """A few distinct stored values of each JSON field, to copy when a made-up one is
    refused (a structure the upstream checks beyond its spec)."""
    out: dict[str, list[Any]] = {}
    listed = list(records)
    for field in entity.fields.values():
        if field.type != "json" or field.read_only:
            continue
        kept: list[Any] = []
        for record in listed:
            value = record.get(field.name)
            if value not in (None, {}, []) and value not in kept:
                kept.append(value)
            if len(kept) == SAMPLES_KEPT:
                break
        if kept:
            out[field.name] = kept
    return out


def tag_text(run_id: str, entity: Entity, n: int) -> str:
    return f"{TAG_PREFIX}{run_id} {entity.name} {n}"


def _slug(text: str) -> str:
    """Text in a slug's narrowest alphabet (lower case, digits, dashes: an underscore is
    refused by some); the run marker still ends at a word boundary (`-`)."""
    return re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")


def _fit(text: str, field: Field, variant: int) -> str:
    if field.max is None or len(text) <= field.max:
        return text
    short = f"{variant}{text.split()[-1]}"  # still distinct per variant and record
    return short[-field.max :] if field.max > 0 else ""


def scalar(
    field: Field,
    *,
    variant: int,
    n: int,
    tag: str | None = None,
    shape: str | None = None,
    sample: Any = None,
) -> Any:
    """A value of `field` the guard accepts; `variant` 1 differs from variant 0; in the
    `shape` the stored values share or a refusal asked for, if any (`sample`: the stored
    value a `SAMPLE` shape copies)."""
    kind = field.type
    if shape == OMIT:
        return NO_VALUE
    if kind == "string" and field.candidates and tag is None:
        # An open enum: values seen stored upstream, never free text it may refuse.
        return _pick(field.candidates, variant)
    if kind == "string":
        if field.day_key:
            return dt.date(2031 + variant, 1 + variant, 1 + n % 28).isoformat()
        text = tag if tag is not None else f"a2v {field.name} {n}"
        text = _fit(text + (" upd" if variant else ""), field, variant)
        return _shaped(text, shape)
    if kind == "number":
        return 7 + variant
    if kind == "boolean":
        return variant == 0
    if kind == "datetime":
        return _DATETIMES[variant % 2]
    if kind in ("enum", "list<enum>"):
        if not field.values:
            return NO_VALUE
        pick = _pick(field.values, variant)
        return [pick] if kind == "list<enum>" else pick
    if kind == "json" and shape == LIST:
        return ["a2v", f"variant-{variant}"]
    if kind == "json" and shape == SAMPLE and sample is not None:
        return sample
    if kind == "json":
        # Text values: a form body carries text only, so an object of text reads back
        # the same through a form and through JSON.
        return {"a2v": "yes", "variant": str(variant)}
    return NO_VALUE  # binary, and refs, which need records (see Ctx)


def _shaped(text: str, shape: str | None) -> str:
    """Text in a shape; the run marker survives in all but a UUID's (derived from it)."""
    if shape == SLUG:
        return _slug(text)
    if shape == EMAIL:
        return f"{_slug(text)}@example.com"
    if shape == URL:
        return f"https://example.com/{_slug(text)}"
    if shape == UUID:
        return str(uuid.uuid5(uuid.NAMESPACE_URL, text))
    if shape == IP:
        # An address of the range kept for documentation (RFC 5737), one per text.
        return f"192.0.2.{1 + int(uuid.uuid5(uuid.NAMESPACE_URL, text)) % 254}"
    return text


def _pick(values: tuple[Any, ...], variant: int) -> Any:
    """Not the first value (a likely default); variant 1 differs from variant 0."""
    pick = values[1 % len(values)] if variant == 0 else values[2 % len(values)]
    if variant and len(values) == 2:
        pick = values[0]
    return pick


def body_for(
    entity: Entity,
    *,
    run_id: str,
    n: int,
    variant: int,
    refs: Mapping[str, Any],
    only: set[str] | None = None,
    shapes: Mapping[str, str] | None = None,
    samples: Mapping[str, Sequence[Any]] | None = None,
    update: bool = False,
) -> dict[str, Any]:
    """Every writable field that reads back, and the required ones (or `only` these), with
    a synthesised value in the shape stored values share (`sampled_shapes`) or a refusal
    taught (`_repair`); refs given. An update body (`update`) has the fields written on
    update only too."""
    tagged = tag_field(entity)
    body: dict[str, Any] = {}
    for field in entity.fields.values():
        if field.read_only or (only is not None and field.name not in only):
            continue
        if field.update_only and not update and only is None:
            continue  # a create body: the upstream takes it on update only
        if field.write_only and not field.required and only is None:
            # Never read back, so a write of it proves nothing; it stays out unless
            # required (a password), since a made-up value of it (a payment token, a
            # coupon code) only invites a refusal that says nothing about the rest.
            continue
        if field.is_ref:
            if field.name in refs:
                body[field.name] = refs[field.name]
            continue
        tag = tag_text(run_id, entity, n) if tagged is field else None
        shape = (shapes or {}).get(field.name)
        kept = (samples or {}).get(field.name) or [None]
        value = scalar(
            field, variant=variant, n=n, tag=tag, shape=shape, sample=kept[variant % len(kept)]
        )
        if value is not NO_VALUE:
            body[field.name] = value
    return body


def guard(entity: Entity, body: Mapping[str, Any], *, create: bool) -> list[Violation]:
    """What the runtime's guard would refuse in this body."""
    return check(
        entity.fields, body, require=create, write_allow=entity.write_allow, update=not create
    )


def type_violation(field: Field, value: Any) -> Violation | None:
    """Whether a stored value would pass the guard as a write of its declared field."""
    if value is None:
        return None
    writable = dataclasses.replace(field, read_only=False, required=False)
    if not field.values_closed:
        # An open enum's values are candidates: anything stored there is fine.
        writable = dataclasses.replace(writable, values=())
    found = check({field.name: writable}, {field.name: value}, require=False)
    if found:
        return found[0]
    if field.type == "ref" and not isinstance(value, str):
        return Violation("invalid_ref", field.name, "a record id", value)
    if field.type in ("list<ref>", "list<enum>") and not isinstance(value, list):
        return Violation("invalid_ref", field.name, "a list", value)
    return None


def same(field: Field, sent: Any, stored: Any) -> bool:
    """Did the upstream store what was sent? The runtime's own read-back rule, so what
    is verified is what is served."""
    return stored_as_sent(field, sent, stored)
