"""Filter candidates from spec parameters; sort fields found by up/down probes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from mapper.probe._draft import FieldDraft
from mapper.probe.decide._filters import filter_candidates, probe_sort, sort_param
from mapper.probe.live import Exchange
from mapper.probe.sources import SpecDoc, group, read_routes

from ..fakes import payload

FIELDS = {
    "title": FieldDraft("title", "title", "string"),
    "priority": FieldDraft("priority", "priority", "enum", values=("low", "high")),
    "due": FieldDraft("due", "due", "string", day_key=True),
    "done": FieldDraft("done", "done", "boolean"),
    "created": FieldDraft("created", "created", "datetime"),
    "list": FieldDraft("list", "list", "ref", entity="lists"),
    "tags": FieldDraft("tags", "tags", "list<ref>", entity="tags"),
}


def _cards_params() -> Any:
    colls, _, _ = group(read_routes(SpecDoc(payload("drf-openapi.json"), "s", "openapi")))
    return next(c for c in colls if c.name == "cards").query


def test_django_filter_lookups_become_protocol_operators() -> None:
    found = filter_candidates(_cards_params(), FIELDS, "id", "django-filter")
    spelled = {f: {op: p.param for op, p in ops.items()} for f, ops in found.items()}
    assert spelled == {
        "id": {"=": "id"},
        "title": {"=": "title", "~": "title__icontains"},
        "priority": {"=": "priority"},
        "due": {"<": "due__lt", "<=": "due__lte", "=": "due", ">": "due__gt", ">=": "due__gte"},
        "done": {"=": "done"},
        "created": {
            "<": "created__lt",
            "<=": "created__lte",
            "=": "created",
            ">": "created__gt",
            ">=": "created__gte",
        },
        "list": {"=": "list"},
        "tags": {"?=": "tags"},
    }
    assert all(p.evidence[0].source == "openapi" for ops in found.values() for p in ops.values())
    assert sort_param(_cards_params()) == "ordering"


def _page(first_id: str) -> Exchange:
    body = {"results": [{"id": first_id}]}
    return Exchange("GET", "/x", 200, "json", body, None, httpx.Headers(), None, {})


def test_sort_fields_are_those_that_reorder_the_answer() -> None:
    records = [{"id": "a", "title": "x", "done": True}, {"id": "b", "title": "y", "done": True}]
    honoured = {"id", "title"}

    def fetch(params: Mapping[str, str]) -> Exchange:
        key = params["ordering"]
        if key.lstrip("-") not in honoured:
            return _page("a")
        return _page("b" if key.startswith("-") else "a")

    fields = {
        "title": FIELDS["title"],
        "done": FIELDS["done"],
        "notes": FieldDraft("notes", "notes", "json"),
    }
    sort, notes = probe_sort("ordering", fields, records, "id", fetch)
    assert sort is not None and sort.fields == ("id", "title")
    assert notes[-1] == "sort ordering: not tested for done (one value in samples)"
