"""An upstream's refusal of a write the guard accepts, read into the mapping's fix."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mapper.verify._failures import Correction, CreateRefused
from mapper.verify._writing import refused
from runtime.protocol import ProtocolError

from .fake import mapping


def _refusal(*fields: str) -> ProtocolError:
    found = [{"field": f, "code": "invalid", "message": "This field is required."} for f in fields]
    return ProtocolError("upstream_rejected", "The upstream app refused the values.",
                         violations=found)  # fmt: skip


def test_a_refusal_naming_only_the_record_s_key_says_to_wrap_under_it() -> None:
    cards = mapping().entities["cards"]
    failure = refused(CreateRefused, cards, _refusal("card", "card"), "create")
    assert failure.fix == "set entities.cards.write.wrap to card"
    assert failure.corrections == (
        Correction(("entities", "cards", "write", "wrap"), "set", "card"),
    )


# A key that does not name the record (`board`) is more likely a field the mapping lacks.
@pytest.mark.parametrize(
    "named", [("title",), ("card", "title"), ("id",), (), ("card.title",), ("board",)]
)
def test_other_refusals_name_the_fields_to_declare(named: tuple[str, ...]) -> None:
    cards = mapping().entities["cards"]
    failure = refused(CreateRefused, cards, _refusal(*named), "create")
    assert failure.fix.startswith("declare ") and not failure.corrections


def test_a_refusal_naming_the_wrapping_key_already_used_is_not_a_wrap_fix() -> None:
    cards = mapping().entities["cards"]
    wrapped = replace(cards, write=replace(cards.write, wrap="card"))
    failure = refused(CreateRefused, wrapped, _refusal("card"), "create")
    assert failure.fix.startswith("declare card ")
