"""The registry: every filter dialect a mapping may name is registered, or refused by name."""

from __future__ import annotations

import pytest

from runtime.mapping import schema
from runtime.protocol import ProtocolError
from runtime.upstream.dialects import DIALECTS, dialect_for

# Named by the mapping format and not built yet: a mapping naming one is refused clearly.
NOT_BUILT = {"ransack"}


def _named_by_the_schema() -> set[str]:
    return set(schema()["$defs"]["upstream"]["properties"]["dialect"]["enum"])


def test_every_dialect_the_schema_names_is_registered_or_known_not_built() -> None:
    assert set(DIALECTS) == _named_by_the_schema() - NOT_BUILT
    assert _named_by_the_schema() >= NOT_BUILT


@pytest.mark.parametrize("name", sorted(_named_by_the_schema() - NOT_BUILT))
def test_each_registered_dialect_answers_to_its_name(name: str) -> None:
    assert dialect_for(name) is DIALECTS[name]
    assert dialect_for(name).name == name


@pytest.mark.parametrize("name", sorted(NOT_BUILT))
def test_a_dialect_not_built_is_refused_as_not_implemented(name: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        dialect_for(name)
    assert caught.value.code == "not_implemented"


def test_only_a_native_filter_language_takes_conditions_whole() -> None:
    renders = {name for name, d in DIALECTS.items() if hasattr(d, "render_conditions")}
    assert renders == {"pocketbase"}
    assert all(hasattr(DIALECTS[name], "filter_param") for name in renders)
