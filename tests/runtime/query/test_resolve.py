"""The resolver protocol: the engine runs on any resolver, not only mapping entities."""

from __future__ import annotations

from typing import Any

import pytest

from runtime.protocol import ProtocolError
from runtime.query import (
    FieldResolver,
    Path,
    ResolvedPath,
    Stage,
    compile_filter,
    compile_sort,
    parse_filter,
    parse_sort,
)

from ._dataset import resolver


class Flat:
    """A resolver over plain dicts: every field is numeric, `xs` is a list of numbers."""

    def resolve(self, path: Path) -> ResolvedPath:
        name = path.parts[0]
        if len(path.parts) > 1 or path.modifier or name not in ("n", "xs"):
            raise ProtocolError("invalid_filter", f"no field {path}")
        if name == "xs":
            return ResolvedPath("xs", "number", "list", (Stage(lambda r: r.get("xs") or [], True),))
        return ResolvedPath("n", "number", "number", (Stage(lambda r: r.get("n")),))


def test_a_custom_resolver_drives_the_engine() -> None:
    flat: FieldResolver = Flat()
    rows: list[dict[str, Any]] = [{"n": 2, "xs": [1, 5]}, {"n": 10, "xs": []}, {"n": None}]
    pick = compile_filter(parse_filter("n > 1 && xs ?> 4"), flat)
    assert [pick(r) for r in rows] == [True, False, False]
    every = compile_filter(parse_filter("xs > 0"), flat)
    assert [every(r) for r in rows] == [True, False, False]
    assert compile_sort(parse_sort("-n"), flat)(rows) == [rows[1], rows[0], rows[2]]
    with pytest.raises(ProtocolError) as caught:
        compile_filter(parse_filter("m = 1"), flat)
    assert caught.value.extra == {"got": "m = 1"}


@pytest.mark.parametrize(
    ("path", "kind", "multi"),
    [
        (Path(("title",)), "text", False),
        (Path(("due",)), "day", False),
        (Path(("created",)), "datetime", False),
        (Path(("tags",)), "text", True),
        (Path(("tags",), "length"), "number", False),
        (Path(("tags", "name")), "text", True),
        (Path(("owner", "manager", "name")), "text", False),
        (Path(("meta", "a", "0")), "json", False),
        (Path(("id",)), "text", False),
    ],
)
def test_entity_resolver_kinds(path: Path, kind: str, multi: bool) -> None:
    resolved = resolver().resolve(path)
    assert (resolved.kind, resolved.multi) == (kind, multi)
    assert resolved.text == str(path)


def test_only_fan_outs_that_pocketbase_joins_are_keyed() -> None:
    stages = resolver().resolve(Path(("tags", "name"))).stages
    assert [s.key for s in stages if s.many] == ["tags"]
    assert [s.key for s in resolver().resolve(Path(("labels",))).stages] == [None]
    assert [s.key for s in resolver().resolve(Path(("labels",), "each")).stages] == ["labels"]
