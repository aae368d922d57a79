"""A refusal's text chooses the next shape of each field it names, and nothing else."""

from __future__ import annotations

from typing import Any

import pytest

from mapper.verify._repair import asked, reshaped
from mapper.verify._values import EMAIL, IP, LIST, OMIT, SAMPLE, SLUG, URL, UUID, scalar
from runtime.mapping import Entity, Field

FIELDS = {
    "name": Field("name", "string", ("name",), required=True),
    "owner_id": Field("owner_id", "string", ("owner_id",)),
    "pool": Field("pool", "string", ("pool",)),
    "template": Field("template", "json", ("template",)),
    "trigger": Field("trigger", "json", ("trigger",), required=True),
    "count": Field("count", "number", ("count",)),
}
ENTITY = Entity(
    name="things", module="api", path="/things", detail_path="/things/{id}", id_source=("id",),
    id_type="string", label=None, fields=FIELDS,
)  # fmt: skip
BODY = {"name": "a2v x", "owner_id": "a2v o", "pool": "a2v p", "template": {}, "trigger": {},
        "count": 7}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "shapes"),
    [
        ("Artifact key must only contain lowercase letters, numbers, and dashes.", [SLUG]),
        ("Input should be a valid UUID, invalid character: found `v` at 2", [UUID, SLUG]),
        ("Enter a valid email address.", [EMAIL]),
        ("Enter a valid IPv4 or IPv6 address.", [IP]),
        ("value is not a valid IPv4 address", [IP]),
        ("Enter a valid URL.", [URL]),
        ("Input should be a valid list", [LIST]),
        ("Work pool 'a2v p' not found.", [OMIT]),
        ("insert violates foreign key constraint", [OMIT]),
        ("must contain both a `job_configuration` key and a `variables` key", [SAMPLE]),
        ("This field may not be blank.", []),
    ],
)
def test_a_refusal_text_asks_for_shapes(text: str, shapes: list[str]) -> None:
    assert asked(text) == shapes


def _next(refusal: list[dict[str, Any]], **kwargs: Any) -> dict[str, str]:
    options: dict[str, Any] = {"tried": {}, "sampled": {}, "marked": None} | kwargs
    return reshaped(ENTITY, BODY, refusal, **options)


@pytest.mark.parametrize(
    ("refusal", "options", "expected"),
    [
        # the shape the text asks for, for the named field only
        (
            [{"field": "owner_id", "expected": "Input should be a valid UUID"}],
            {},
            {"owner_id": UUID},
        ),
        # a nested path names its top-level field
        (
            [{"field": "template.variables", "expected": "Field required"}],
            {"sampled": {"template": [{"variables": {}}]}},
            {"template": SAMPLE},
        ),
        # no hint: the type's ladder, past what was tried
        (
            [{"field": "pool", "expected": "invalid"}],
            {"tried": {"pool": [SLUG, UUID]}},
            {"pool": EMAIL},
        ),
        # a stored value to copy only when there is one
        ([{"field": "template", "expected": "bad"}], {}, {"template": LIST}),
        # the marked field never becomes a UUID: the run marker would be lost
        ([{"field": "name", "expected": "a valid UUID"}], {"marked": "name"}, {"name": SLUG}),
        # a required field is never left out
        ([{"field": "trigger", "expected": "bad"}], {"tried": {"trigger": [LIST]}}, {}),
        # an optional one is, once nothing else is left
        (
            [{"field": "template", "expected": "bad"}],
            {"tried": {"template": [LIST]}},
            {"template": OMIT},
        ),
        # fields outside the body, types without shapes, and unnamed refusals: nothing
        ([{"field": "other", "expected": "a valid UUID"}], {}, {}),
        ([{"field": "count", "expected": "a valid integer"}], {}, {}),
        ([{"field": None, "expected": "Data integrity conflict"}], {}, {}),
    ],
)
def test_each_named_field_gets_its_next_shape(
    refusal: list[dict[str, Any]], options: dict[str, Any], expected: dict[str, str]
) -> None:
    assert _next(refusal, **options) == expected


@pytest.mark.parametrize(
    ("shape", "check"),
    [
        (SLUG, lambda v: v == "a2v-0123456789-things-4"),
        (EMAIL, lambda v: v == "a2v-0123456789-things-4@example.com"),
        (URL, lambda v: v == "https://example.com/a2v-0123456789-things-4"),
        (UUID, lambda v: len(v) == 36 and v.count("-") == 4),
        (IP, lambda v: v.startswith("192.0.2.") and 1 <= int(v.rsplit(".", 1)[1]) <= 254),
    ],
)
def test_text_takes_the_shape_a_refusal_asked_for(shape: str, check: Any) -> None:
    field = Field("key", "string", ("key",))
    value = scalar(field, variant=0, n=4, tag="a2v-0123456789 things 4", shape=shape)
    assert check(value), value


def test_json_copies_a_stored_value_or_is_left_out() -> None:
    field = Field("template", "json", ("template",))
    stored = {"job_configuration": {}, "variables": {}}
    assert scalar(field, variant=0, n=1, shape=SAMPLE, sample=stored) == stored
    assert scalar(field, variant=0, n=1, shape=OMIT) is not stored
    assert scalar(Field("s", "string", ("s",)), variant=0, n=1, shape=OMIT) is scalar(
        field, variant=0, n=1, shape=OMIT
    )
