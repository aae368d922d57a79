"""`dump` is the compiler's inverse: `compile(dump(m)) == m`, and a dumped file is stable."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from runtime.mapping import (
    AllOf,
    Compare,
    FieldType,
    Mapping,
    dump,
    dump_yaml,
    load_document,
    load_mapping,
)
from runtime.mapping._compile import compile_document

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).parent
FILES = [*sorted((ROOT / "mappings").glob("*.yaml")), HERE / "valid-base.yaml"]
BASE = yaml.safe_load((HERE / "valid-base.yaml").read_text())
Edit = Callable[[dict[str, Any]], None]


def _cards(doc: dict[str, Any]) -> dict[str, Any]:
    return dict(doc["entities"]["cards"])


def _set(path: str, value: Any) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        *head, last = path.split(".")
        node = doc
        for key in head:
            node = node[int(key)] if isinstance(node, list) else node.setdefault(key, {})
        node[last] = value

    return edit


def _schedules(doc: dict[str, Any]) -> None:
    sweep = {"when": "daily 09:30", "onMissed": "run", "approvedBy": "owner"}
    doc["operations"] += [
        {"name": "sweep", "module": "board", "destructive": True, "params": {},
         "request": {"method": "POST", "path": "/sweep/", "send": "none"}, "schedule": sweep},
        {"name": "tally", "module": "board", "destructive": False, "readOnly": True,
         "params": {}, "crud": {"action": "count", "entity": "cards"},
         "schedule": {"when": "every 15m"}},
    ]  # fmt: skip
    doc.setdefault("serve", {})["timeZone"] = "Europe/Berlin"


# Every corner of the format the checked-in files do not reach.
VARIANTS: list[tuple[str, Edit]] = [
    ("bearer", _set("upstream.auth", {"type": "bearer", "token": "${DEMO_TOKEN}"})),
    ("basic", _set("upstream.auth", {"type": "basic", "username": "${U}", "password": "${P}"})),
    ("query auth", _set("upstream.auth", {"type": "query", "name": "key", "value": "${K}"})),
    ("no auth", _set("upstream.auth", {"type": "none"})),
    ("headers", _set("upstream.headers", {"Accept": "application/json", "X-K": "${K}"})),
    ("envelope", _set("upstream.envelope", {"item": "data.record", "write": "data"})),
    ("timeout", _set("upstream.timeoutSeconds", 2.5)),
    ("missing records answered 403", _set("upstream.notFoundStatus", 403)),
    (
        "cursor paging",
        _set(
            "upstream.pagination",
            {
                "style": "cursor",
                "cursor": "after",
                "size": "limit",
                "items": "data",
                "nextFrom": "id",
                "more": "has_more",
                "maxSize": 100,
            },
        ),
    ),
    (
        "offset paging",
        _set(
            "upstream.pagination",
            {"style": "offset", "offset": "o", "size": "n", "items": "", "firstPage": 0},
        ),
    ),
    (
        "range paging",
        _set(
            "upstream.pagination",
            {
                "style": "range",
                "items": "",
                "unit": "rows",
                "unitHeader": "Range-Unit",
                "totalHeader": "Content-Range",
            },
        ),
    ),
    (
        "next in a header",
        _set(
            "upstream.pagination",
            {
                "style": "cursor",
                "cursor": "after",
                "size": "limit",
                "items": "",
                "nextHeader": "X-Next-Cursor",
            },
        ),
    ),
    (
        "list by POST",
        _set(
            "entities.cards.list",
            {
                "method": "POST",
                "path": "/api/cards/filter",
                "pagination": {"style": "offset", "offset": "offset", "size": "limit", "items": ""},
                "evidence": [{"source": "openapi", "detail": "POST /api/cards/filter"}],
            },
        ),
    ),
    ("list path only", _set("entities.cards.list", {"path": "/api/cards/all"})),
    ("errors and dialect", lambda d: d["upstream"].update(errors="rails", dialect="ransack")),
    (
        "serve",
        _set(
            "serve",
            {
                "authMode": "multi-user",
                "allowedOrigins": ["https://a.example"],
                "allowedHosts": ["api.example"],
                "credentialHint": "ask",
                "approvals": "owner",
                "conventions": {"x": "y"},
                "rateLimits": {"data": 10, "ops": 2},
                "scanLimit": 50,
            },
        ),
    ),
    ("feed with defaults", _set("serve.feed", {"entities": ["cards"]})),
    ("feed", _set("serve.feed", {"entities": ["cards"], "interval": 30, "budget": 120})),
    (
        "triggers",
        _set(
            "serve.triggers",
            [
                {
                    "type": "card.due_soon",
                    "entity": "cards",
                    "capability": "summarize",
                    "filter": 'due != "" && due <= @todayEnd',
                    "payload": ["title", "due"],
                    "dedupKey": ["id", "due"],
                },
                {"type": "card.seen", "entity": "cards", "filter": "id != ''"},
            ],
        ),
    ),
    (
        "hooks",
        _set(
            "serve.hooks",
            {
                "billing": {
                    "scheme": "standard-webhooks",
                    "secret": "${BILLING_HOOK_SECRET}",
                    "event": "invoice.paid",
                    "payload": ["type", "data.id"],
                    "capability": "reconcile",
                    "tolerance": 60,
                },
                "github": {
                    "scheme": "hmac-sha256",
                    "secret": "${GITHUB_HOOK_SECRET}",
                    "event": "repo.pushed",
                    "header": "X-Hub-Signature-256",
                    "prefix": "sha256=",
                },
                "plain": {
                    "scheme": "hmac-sha256",
                    "secret": "${PLAIN_HOOK_SECRET}",
                    "event": "thing.changed",
                    "header": "X-Signature",
                    "encoding": "base64",
                },
            },
        ),
    ),
    (
        "field flags",
        _set(
            "entities.cards.fields.title",
            {
                "type": "string",
                "source": "meta.title",
                "required": True,
                "readOnly": True,
                "serverSets": ["create", "update"],
                "nullable": False,
                "max": 9,
                "normalize": ["trim"],
                "description": "d",
                "evidence": ["openapi", {"source": "sample", "detail": "x"}],
                "confidence": "low",
                "note": "n",
            },
        ),
    ),
    (
        "create-only field",
        _set("entities.cards.fields.slug", {"type": "string", "createOnly": True}),
    ),
    (
        "update-only field",
        _set("entities.cards.fields.slug", {"type": "string", "updateOnly": True}),
    ),
    ("number decimals", _set("entities.cards.fields.cost", {"type": "number", "decimals": 2})),
    ("write answers", _set("entities.cards.write", {"answer": "card", "findBy": "title"})),
    ("bare write answers", _set("entities.cards.write", {"answer": ""})),
    (
        "client-chosen id",
        _set("entities.cards.id", {"source": "slug", "type": "string", "client": True}),
    ),
    (
        "read and write names differ",
        _set(
            "entities.cards.fields.list",
            {"type": "ref", "entity": "lists", "source": "list.id", "writeSource": "list_id"},
        ),
    ),
    (
        "epoch seconds",
        _set("entities.cards.fields.made", {"type": "datetime", "codec": "epoch-seconds"}),
    ),
    ("epoch ms", _set("entities.cards.fields.seen", {"type": "datetime", "codec": "epoch-ms"})),
    (
        "decimal text",
        _set("entities.cards.fields.cost", {"type": "number", "codec": "decimal-string"}),
    ),
    ("0/1 boolean", _set("entities.cards.fields.done", {"type": "boolean", "codec": "int-bool"})),
    ("form bodies", lambda d: d["upstream"].update(bodyEncoding="form")),
    ("update by POST", _set("entities.cards.write", {"update": "POST"})),
    (
        "open enum",
        _set(
            "entities.cards.fields.priority",
            {"type": "enum", "values": ["low", "high"], "valuesClosed": False},
        ),
    ),
    (
        "open list enum",
        _set(
            "entities.cards.fields.tags",
            {"type": "list<enum>", "values": ["a"], "valuesClosed": False},
        ),
    ),
    (
        "on delete",
        _set(
            "entities.cards.fields.list",
            {"type": "ref", "entity": "lists", "onDelete": "ignore", "upstreamOnDelete": "cascade"},
        ),
    ),
    (
        "write spec",
        _set(
            "entities.cards.write",
            {"create": False, "update": False, "delete": False, "wrap": "card"},
        ),
    ),
    ("put", _set("entities.cards.write", {"update": "PUT"})),
    (
        "detail path and id",
        lambda d: d["entities"]["cards"].update(
            detailPath="/api/card/{id}",
            id={"source": "pk", "type": "integer"},
            auth=True,
            summary="s",
            writeAllow=["password"],
            evidence=["owner"],
            confidence="high",
        ),
    ),
    (
        "filter forms",
        _set(
            "entities.cards.filter",
            {
                "title": {
                    "=": {"param": "title", "proven": True, "evidence": ["verify"]},
                    "~": "title__icontains",
                }
            },
        ),
    ),
    (
        "sort forms",
        _set(
            "entities.cards.sort",
            {"param": "o", "desc": "~", "separator": ";", "fields": ["title"], "proven": True},
        ),
    ),
    (
        "unmapped",
        _set(
            "unmapped",
            [{"path": "/x", "method": "GET", "reason": "r"}, {"path": "/y", "reason": "s"}],
        ),
    ),
    ("probe block", _set("probe", {"tool": "t", "sources": ["openapi"], "notes": ["n"]})),
    (
        "applies when",
        _set(
            "operations.0.appliesWhen",
            {
                "all": [
                    {"field": "priority", "in": ["low", "high"]},
                    {"not": {"field": "due", "isBlank": True}},
                    {"any": [{"field": "title", "eq": "a"}, {"field": "title", "ne": {"k": [1]}}]},
                    {"field": "priority", "notIn": ["x"]},
                ]
            },
        ),
    ),
    (
        "operation extras",
        lambda d: d["operations"][0].update(
            description="finish it",
            readOnly=True,
            idempotent=True,
            response={"pick": "data.card", "fields": ["title"]},
            evidence=[{"source": "name", "detail": "finish"}],
            confidence="medium",
        ),
    ),
    (
        "crud and job",
        lambda d: d["operations"].extend(
            [
                {
                    "name": "close",
                    "module": "board",
                    "entity": "cards",
                    "destructive": False,
                    "params": {"card": {"type": "ref", "entity": "cards", "required": True}},
                    "crud": {
                        "action": "update",
                        "entity": "cards",
                        "target": "card",
                        "set": {"priority": "low"},
                    },
                },
                {
                    "name": "export",
                    "module": "board",
                    "destructive": False,
                    "params": {},
                    "job": {
                        "request": {"method": "POST", "path": "/export/", "send": "none"},
                        "timeoutSeconds": 30,
                    },
                },
            ]
        ),
    ),
    ("schedules in a time zone", _schedules),
]


def _roundtrip(mapping: Mapping) -> Mapping:
    return compile_document(
        dump(mapping), content_hash=mapping.content_hash, env=None,
        source_path=mapping.source_path,
    )  # fmt: skip


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_checked_in_mapping_round_trips(path: Path) -> None:
    mapping = load_mapping(path, resolve_env=False)
    assert _roundtrip(mapping) == mapping
    doc = dump(mapping)
    assert dump(load_document(doc, resolve_env=False)) == doc


@pytest.mark.parametrize("path", sorted((ROOT / "mappings").glob("*.probed.yaml")),
                         ids=lambda p: p.name)  # fmt: skip
def test_a_probed_file_is_exactly_its_dump(path: Path) -> None:
    """The prober writes with `dump`: its files are already in dump's normal form."""
    text = path.read_text()
    header = [line[2:] if line.startswith("# ") else line[1:]
              for line in text.splitlines() if line.startswith("#")]  # fmt: skip
    mapping = load_mapping(path, resolve_env=False)
    assert dump(mapping) == yaml.safe_load(text)
    assert dump_yaml(mapping, header) == text


@pytest.mark.parametrize(("name", "edit"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_every_corner_of_the_format_round_trips(name: str, edit: Edit) -> None:
    doc = copy.deepcopy(BASE)
    edit(doc)
    mapping = load_document(doc, resolve_env=False)
    assert _roundtrip(mapping) == mapping
    dumped = dump(mapping)
    # Normalised, not lost: what the file said is what the dump says, defaults aside.
    # (the content hash is the written text's; a normalised text has its own)
    again = load_document(dumped, resolve_env=False)
    assert dataclasses.replace(again, content_hash=mapping.content_hash) == mapping
    assert yaml.safe_load(dump_yaml(mapping)) == dumped


def test_the_model_is_typed() -> None:
    doc = copy.deepcopy(BASE)
    dict(VARIANTS)["applies when"](doc)
    mapping = load_document(doc, resolve_env=False)
    assert mapping.entities["cards"].fields["due"].type is FieldType.STRING
    assert mapping.upstream.pagination.style == "page"
    when = mapping.operations[0].applies_when
    assert isinstance(when, AllOf) and isinstance(when.items[0], Compare)
    assert when.items[0].value == ("low", "high")
    assert not hasattr(mapping, "raw") and not hasattr(mapping, "doc")
