"""A refused create mended: each field the refusal names gets its value in another shape.

An upstream checks values beyond what its mapping can say (a name in a slug's
alphabet, an id that must parse as a UUID, a structure inside a JSON field). The
refusal names the field and says what it wanted; the verifier changes only the
values it names, in the shape the message asks for when it says one, else the next
shape the field's type allows, and tries again within a small budget
(`REPAIR_ROUNDS`). What it learns holds for the rest of the run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from runtime.mapping import Entity

from ._values import EMAIL, IP, LIST, OMIT, SAMPLE, SLUG, URL, UUID

# Refused creates retried per create; every round changes only fields the last
# refusal named, so more rounds are needed only when the upstream reports one field
# at a time, or a value's first new shape is refused too. What a round learns holds
# for the run, so later creates of the entity start right.
REPAIR_ROUNDS = 5

# What a refusal's text asks for, first match first (a UUID check mentions
# "characters" too, so it goes before the slug words).
_ASKS: tuple[tuple[re.Pattern[str], str], ...] = (
    # A value naming a record that does not exist (a reference by name): no made-up
    # value will do, so an optional field is left out.
    (
        re.compile(
            r"not found|could not find|does not exist|no such|unknown|foreign key",
            re.IGNORECASE,
        ),
        OMIT,
    ),
    (re.compile(r"\buuid|guid\b", re.IGNORECASE), UUID),
    (re.compile(r"\bip ?(v[46] ?)?address|\bipv[46]\b", re.IGNORECASE), IP),
    (re.compile(r"e-?mail", re.IGNORECASE), EMAIL),
    (re.compile(r"\b(url|uri|http|https|link)\b", re.IGNORECASE), URL),
    (re.compile(r"\b(list|array|sequence)\b", re.IGNORECASE), LIST),
    (
        re.compile(r"\b(object|dict|dictionary|mapping|hash)\b|must contain", re.IGNORECASE),
        SAMPLE,
    ),
    (
        re.compile(
            r"lower ?case|slug|letters|digits|numbers|dash|hyphen|underscore|alphanumeric"
            r"|space|pattern|match|format|invalid char",
            re.IGNORECASE,
        ),
        SLUG,
    ),
)
# Without a hint, the shapes a type may try, in order. An optional field whose made-up
# values are all refused is left out at last (`OMIT`), so the rest of the create is
# still proven; the check's note names what was left out.
_LADDER: dict[str, tuple[str, ...]] = {
    "string": (SLUG, UUID, EMAIL, URL, OMIT),
    "json": (SAMPLE, LIST, OMIT),
}


def asked(text: str) -> list[str]:
    """The shapes a refusal's text asks for, in the order it says them."""
    return [shape for pattern, shape in _ASKS if pattern.search(text)]


def reshaped(
    entity: Entity,
    body: Mapping[str, Any],
    refusal: Iterable[Mapping[str, Any]],
    *,
    tried: Mapping[str, Iterable[str]],
    sampled: Mapping[str, object],
    marked: str | None,
) -> dict[str, str]:
    """The next shape of each body field the refusal names (`{field: shape}`), skipping
    shapes tried already; empty when no named field has one left.

    `sampled`: the fields with stored values to copy; `marked`: the field carrying the
    run marker, which never becomes a UUID (the marker would be lost)."""
    texts: dict[str, list[str]] = {}
    for violation in refusal:
        named = str(violation.get("field") or "")
        name = re.split(r"[.\[]", named, maxsplit=1)[0]
        if name in body and name in entity.fields:
            texts.setdefault(name, []).append(str(violation.get("expected") or ""))
    out: dict[str, str] = {}
    for name, said in texts.items():
        kind = str(entity.fields[name].type)
        allowed = _LADDER.get(kind, ())
        done = set(tried.get(name, ()))
        order = [s for s in asked(" ".join(said)) if s in allowed] + list(allowed)
        for shape in order:
            if shape in done or (shape == SAMPLE and name not in sampled):
                continue
            if shape == OMIT and entity.fields[name].required:
                continue
            if shape == UUID and name == marked:
                continue
            out[name] = shape
            break
    return out
