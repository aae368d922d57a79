"""Navigational describe: levels, access, absence rules and the budget (protocol §6)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from runtime.mapping import Mapping, load_mapping, load_mapping_text
from runtime.protocol import _describe as describe
from runtime.protocol._access import Caller, anonymous_caller, grant_caller, ui_caller
from runtime.protocol._jsjson import compact_json, js_length

ROOT = Path(__file__).resolve().parents[3]
KANBAN_TEXT = (ROOT / "mappings" / "conformance-kanban.yaml").read_text()
KANBAN = load_mapping(ROOT / "mappings" / "conformance-kanban.yaml", resolve_env=False)
KANBAN_MULTI = load_mapping_text(
    KANBAN_TEXT.replace("authMode: none", "authMode: multi-user"), resolve_env=False
)
CARDS = KANBAN.entities["cards"]
LISTS = KANBAN.entities["lists"]

FULL = grant_caller(KANBAN, "cred_full", "conformance", "owner", ["*"])
RO = grant_caller(KANBAN, "cred_ro", "reporter", "owner", ["data:cards:read", "data:lists:read"])
CARDS_ONLY = grant_caller(KANBAN, "c", None, "owner", ["data:cards:read", "op:finish-card"])
ANON = anonymous_caller(KANBAN)
UI = ui_caller(KANBAN)
NOBODY = anonymous_caller(KANBAN_MULTI)

BUDGET = 2000
BOARD_SUMMARY = "lists and the cards on them"


def size(doc: Any) -> int:
    return js_length(compact_json(doc))


def build_mapping(
    modules: list[dict[str, Any]],
    entities: dict[str, Any] | None = None,
    operations: list[dict[str, Any]] | None = None,
) -> Mapping:
    doc = {
        "format": 1,
        "app": {"id": "big", "name": "Big"},
        "upstream": {"baseUrl": "http://127.0.0.1:9"},
        "modules": modules,
        "entities": entities or {},
        "operations": operations or [],
    }
    return load_mapping_text(yaml.safe_dump(doc, allow_unicode=True), resolve_env=False)


def prose(length: int, seed: str) -> str:
    text = f"{seed}: " + "lorem ipsum dolor sit amet consectetur " * (length // 20 + 1)
    return text[:length]


# --------------------------------------------------------------------- root


@dataclass(frozen=True)
class RootCase:
    name: str
    mapping: Mapping
    caller: Caller
    access: str


ROOTS = [
    RootCase("full grant", KANBAN, FULL, "full"),
    RootCase("same-origin ui", KANBAN, UI, "full"),
    RootCase("anonymous on a single-user app", KANBAN, ANON, "read-only"),
    RootCase("read-only grant", KANBAN, RO, "read-only"),
    RootCase("anonymous on a multi-user app", KANBAN_MULTI, NOBODY, "none"),
]


@pytest.mark.parametrize("case", ROOTS, ids=[c.name for c in ROOTS])
def test_root_rows(case: RootCase) -> None:
    doc = describe.root(case.mapping, case.caller)
    assert doc["level"] == "root"
    assert doc["app"] == {"id": "conformance_kanban", "name": "Conformance Kanban"}
    assert doc["modules"] == [
        {
            "name": "board",
            "entities": 2,
            "operations": 3,
            "access": case.access,
            "summary": BOARD_SUMMARY,
        }
    ]
    assert doc["next"] == ["describe/{module}", "describe?find={term}"]


@pytest.mark.parametrize("case", ROOTS, ids=[c.name for c in ROOTS])
def test_root_publishes_no_schema(case: RootCase) -> None:
    doc = describe.root(case.mapping, case.caller)
    assert set(doc) == {"level", "app", "modules", "conventions", "next"}
    text = compact_json(doc)
    assert '"fields"' not in text
    assert '"params"' not in text
    assert all(isinstance(row["entities"], int) for row in doc["modules"])


@dataclass(frozen=True)
class ConventionsCase:
    name: str
    mapping: Mapping
    expected: dict[str, str]


OVERRIDDEN = load_mapping_text(
    KANBAN_TEXT.replace(
        "serve:\n", "serve:\n  conventions: {writes: Use the operations., pagination: none}\n"
    ),
    resolve_env=False,
)
CONVENTIONS = [
    ConventionsCase("defaults", KANBAN, dict(describe.DEFAULT_CONVENTIONS)),
    ConventionsCase(
        "app keys merged on top",
        OVERRIDDEN,
        {**describe.DEFAULT_CONVENTIONS, "writes": "Use the operations.", "pagination": "none"},
    ),
]


@pytest.mark.parametrize("case", CONVENTIONS, ids=[c.name for c in CONVENTIONS])
def test_root_conventions(case: ConventionsCase) -> None:
    assert set(describe.DEFAULT_CONVENTIONS) == {"writes", "labels", "dates", "honesty"}
    assert describe.root(case.mapping, FULL)["conventions"] == case.expected


# ------------------------------------------------------------------- module

MODULE_NEXT = ["describe/board/{entity}", "board <operation> [--params]"]


def test_module_level_of_the_reference_model() -> None:
    assert describe.module(KANBAN, "board", FULL) == {
        "level": "module",
        "path": "board",
        "summary": BOARD_SUMMARY,
        "entities": [
            {"name": "lists", "summary": "columns the cards move through"},
            {"name": "cards", "summary": "the work itself"},
        ],
        "operations": [
            {"name": "archive-board", "destructive": True, "summary": "Archive the main board."},
            {"name": "count-cards", "destructive": False, "summary": "Count the finished cards."},
        ],
        "next": MODULE_NEXT,
    }


@dataclass(frozen=True)
class ModuleCase:
    name: str
    mapping: Mapping
    caller: Caller
    entities: list[str]
    operations: list[str]
    next: list[str]


BOTH = ["lists", "cards"]
MODULES = [
    ModuleCase("full", KANBAN, FULL, BOTH, ["archive-board", "count-cards"], MODULE_NEXT),
    ModuleCase("anonymous", KANBAN, ANON, BOTH, ["count-cards"], MODULE_NEXT),
    ModuleCase("read-only grant", KANBAN, RO, BOTH, [], MODULE_NEXT[:1]),
    ModuleCase("entity op is not a module op", KANBAN, CARDS_ONLY, ["cards"], [], MODULE_NEXT[:1]),
    ModuleCase("multi-user anonymous", KANBAN_MULTI, NOBODY, [], [], MODULE_NEXT[:1]),
]  # fmt: skip


@pytest.mark.parametrize("case", MODULES, ids=[c.name for c in MODULES])
def test_module_lists_what_the_caller_reaches(case: ModuleCase) -> None:
    doc = describe.module(case.mapping, "board", case.caller)
    assert [e["name"] for e in doc["entities"]] == case.entities
    assert [o["name"] for o in doc["operations"]] == case.operations
    assert doc["next"] == case.next
    assert "truncated" not in doc
    assert "fields" not in doc and all("fields" not in e for e in doc["entities"])


# ------------------------------------------------------------------- entity


def test_entity_level_of_the_reference_model() -> None:
    assert describe.entity(KANBAN, CARDS, FULL) == {
        "level": "entity",
        "path": "board/cards",
        "label": "title",
        "records": "/api/collections/cards/records",
        "fields": {
            "title": {"type": "string", "required": True, "max": 200},
            "list": {"type": "ref", "entity": "lists"},
            "priority": {"type": "enum", "values": ["none", "low", "medium", "high", "urgent"]},
            "due": {"type": "string", "max": 10, "format": "YYYY-MM-DD"},
            "done": {"type": "boolean"},
            "created": {"type": "datetime", "readOnly": True},
        },
        "operations": [
            {
                "name": "finish-card",
                "destructive": False,
                "params": {"card": {"type": "ref", "required": True, "entity": "cards"}},
                "description": "Mark one card done.",
                "entity": "cards",
            }
        ],
        "next": ["describe/board/cards/{id}", "data cards list"],
    }


LIBRARY = build_mapping(
    [{"name": "shelf"}, {"name": "people"}],
    {
        "books": {
            "module": "shelf",
            "path": "/books/",
            "fields": {
                "name": {"type": "string", "required": True},
                "secret": {"type": "string", "writeOnly": True},
                "authors": {"type": "list<ref>", "entity": "authors"},
                "hidden": {"type": "list<ref>", "entity": "authors", "writeOnly": True},
                "loans": {"type": "number"},
            },
        },
        "authors": {"module": "shelf", "path": "/authors/", "fields": {"age": {"type": "number"}}},
        "members": {
            "module": "people",
            "path": "/members/",
            "auth": True,
            "fields": {"email": {"type": "string", "required": True}},
        },
    },
    [
        {
            "name": "lend",
            "module": "shelf",
            "entity": "books",
            "destructive": True,
            "params": {
                "to": {
                    "type": "ref",
                    "entity": "members",
                    "required": True,
                    "description": "who borrows",
                }
            },
            "appliesWhen": {"field": "loans", "eq": 0},
        },
        {
            "name": "peek",
            "module": "shelf",
            "entity": "books",
            "destructive": False,
            "readOnly": True,
            "idempotent": True,
            "params": {},
        },
    ],
)
LIBRARY_FULL = grant_caller(LIBRARY, "c", None, "owner", ["*"])
BOOKS = LIBRARY.entities["books"]

LEND_DOC = {
    "name": "lend",
    "destructive": True,
    "params": {
        "to": {"type": "ref", "required": True, "entity": "members", "description": "who borrows"}
    },
    "entity": "books",
}
PEEK_DOC = {
    "name": "peek",
    "destructive": False,
    "params": {},
    "readOnly": True,
    "idempotent": True,
    "entity": "books",
}


@dataclass(frozen=True)
class EntityCase:
    name: str
    mapping: Mapping
    entity: str
    caller: Caller
    expected: dict[str, Any]  # keys the level must carry with exactly these values
    absent: tuple[str, ...] = ()


ENTITIES = [
    EntityCase("anonymous runs no attached op", KANBAN, "cards", ANON, {"operations": []}),
    EntityCase("read-only grant runs none", KANBAN, "cards", RO, {"operations": []}),
    EntityCase(
        "entity without operations",
        KANBAN,
        "lists",
        FULL,
        {"path": "board/lists", "label": "title", "operations": []},
        ("auth",),
    ),
    EntityCase(
        "write-only fields are never listed",
        LIBRARY,
        "books",
        LIBRARY_FULL,
        {
            "label": "name",
            "fields": {
                "name": {"type": "string", "required": True},
                "authors": {"type": "list<ref>", "entity": "authors"},
                "loans": {"type": "number"},
            },
            "operations": [LEND_DOC, PEEK_DOC],
        },
        ("auth", "truncated"),
    ),
    EntityCase(
        "only runnable operations",
        LIBRARY,
        "books",
        grant_caller(LIBRARY, "c", None, "owner", ["data:books:read", "op:peek"]),
        {"operations": [PEEK_DOC]},
    ),
    EntityCase("no label field", LIBRARY, "authors", LIBRARY_FULL, {"label": None}),
    EntityCase(
        "accounts entity",
        LIBRARY,
        "members",
        LIBRARY_FULL,
        {"auth": True, "label": "email", "records": "/api/collections/members/records"},
    ),
]


@pytest.mark.parametrize("case", ENTITIES, ids=[c.name for c in ENTITIES])
def test_entity_level(case: EntityCase) -> None:
    ent = case.mapping.entities[case.entity]
    doc = describe.entity(case.mapping, ent, case.caller)
    assert {k: doc.get(k, "<absent>") for k in case.expected} == case.expected
    assert [k for k in case.absent if k in doc] == []
    assert doc["level"] == "entity"


# ------------------------------------------------------------------- record

SEED = {"id": "card_seed", "title": "Welcome card", "list": "list_todo", "priority": "low"}
FINISH_OPEN = {"name": "finish-card", "available": True}
FINISH_DONE = {"name": "finish-card", "available": False, "blocked": "done is true"}


@dataclass(frozen=True)
class RecordCase:
    name: str
    caller: Caller
    record: dict[str, Any]
    operations: list[dict[str, Any]]
    label: str | None = "Welcome card"
    record_id: str = "card_seed"
    next: list[str] = field(default_factory=list)


RECORDS = [
    RecordCase(
        "seed card is open",
        FULL,
        SEED,
        [FINISH_OPEN],
        next=["board/cards/card_seed finish-card", "data cards get card_seed"],
    ),
    RecordCase(
        "done card is blocked",
        FULL,
        {**SEED, "done": True},
        [FINISH_DONE],
        next=["data cards get card_seed"],
    ),
    RecordCase(
        "done stored as text is blocked",
        FULL,
        {**SEED, "done": "true"},
        [FINISH_DONE],
        next=["data cards get card_seed"],
    ),
    RecordCase(
        "not-done card is open",
        FULL,
        {**SEED, "done": False},
        [FINISH_OPEN],
        next=["board/cards/card_seed finish-card", "data cards get card_seed"],
    ),
    RecordCase(
        "anonymous sees no op it cannot run",
        ANON,
        {**SEED, "done": True},
        [],
        next=["data cards get card_seed"],
    ),
    RecordCase(
        "missing label is null, not the text null",
        FULL,
        {"id": "c2"},
        [FINISH_OPEN],
        None,
        "c2",
        ["board/cards/c2 finish-card", "data cards get c2"],
    ),
    RecordCase(
        "null label is null",
        FULL,
        {"id": "c2", "title": None},
        [FINISH_OPEN],
        None,
        "c2",
        ["board/cards/c2 finish-card", "data cards get c2"],
    ),
    RecordCase(
        "numeric label is stringified like JavaScript",
        CARDS_ONLY,
        {"id": 7, "title": 42.0, "done": True},
        [FINISH_DONE],
        "42",
        "7",
        ["data cards get 7"],
    ),
    RecordCase(
        "boolean label is stringified like JavaScript",
        CARDS_ONLY,
        {"id": "c3", "title": False},
        [FINISH_OPEN],
        "false",
        "c3",
        ["board/cards/c3 finish-card", "data cards get c3"],
    ),
]


@pytest.mark.parametrize("case", RECORDS, ids=[c.name for c in RECORDS])
def test_record_level(case: RecordCase) -> None:
    assert describe.record(KANBAN, CARDS, case.caller, case.record) == {
        "level": "record",
        "path": f"board/cards/{case.record_id}",
        "id": case.record_id,
        "label": case.label,
        "operations": case.operations,
        "next": case.next,
    }


@dataclass(frozen=True)
class RelationCase:
    name: str
    record: dict[str, Any]
    relations: list[dict[str, Any]]
    operations: list[dict[str, Any]]
    next: list[str]


BOOK = {"id": "b1", "name": "Dune", "secret": "s3cr3t", "hidden": ["a9"]}
LEND_BLOCKED = {
    "name": "lend",
    "available": False,
    "destructive": True,
    "blocked": "loans is 2, not 0",
}
LEND_OPEN = {"name": "lend", "available": True, "destructive": True}
PEEK_OPEN = {"name": "peek", "available": True}

BOOK_RELATIONS = [
    RelationCase(
        "stored list is counted",
        {**BOOK, "authors": ["a1", "a2"], "loans": 2},
        [{"name": "authors", "entity": "authors", "count": 2}],
        [LEND_BLOCKED, PEEK_OPEN],
        ["describe/shelf/books/b1/authors", "shelf/books/b1 peek", "data books get b1"],
    ),
    RelationCase(
        "absent list has no count",
        {**BOOK, "loans": "0"},
        [{"name": "authors", "entity": "authors"}],
        [LEND_OPEN, PEEK_OPEN],
        [
            "describe/shelf/books/b1/authors",
            "shelf/books/b1 lend",
            "shelf/books/b1 peek",
            "data books get b1",
        ],
    ),
]


@pytest.mark.parametrize("case", BOOK_RELATIONS, ids=[c.name for c in BOOK_RELATIONS])
def test_record_relations(case: RelationCase) -> None:
    doc = describe.record(LIBRARY, BOOKS, LIBRARY_FULL, case.record)
    assert doc == {
        "level": "record",
        "path": "shelf/books/b1",
        "id": "b1",
        "label": "Dune",
        "operations": case.operations,
        "relations": case.relations,
        "next": case.next,
    }
    assert "s3cr3t" not in compact_json(doc)
    assert describe.relation_names(BOOKS) == ["authors"]


def test_relation_level() -> None:
    items = [{"id": "a1", "label": "Herbert"}, {"id": "gone", "label": None}]
    assert describe.relation(BOOKS, "b1", "authors", "authors", items) == {
        "level": "relation",
        "path": "shelf/books/b1/authors",
        "entity": "authors",
        "items": items,
        "next": ["data authors get {id}", "describe/shelf/books/b1"],
    }


# --------------------------------------------------------------------- find


@dataclass(frozen=True)
class FindCase:
    name: str
    mapping: Mapping
    caller: Caller
    term: str
    matches: list[dict[str, str]]


CARD_MATCHES = [
    {"path": "board/cards", "level": "entity"},
    {"path": "board", "operation": "count-cards"},
    {"path": "board/cards", "operation": "finish-card"},
]

FINDS = [
    FindCase("class-A term", KANBAN, FULL, "card", CARD_MATCHES),
    FindCase("case-insensitive", KANBAN, FULL, "CaRd", CARD_MATCHES),
    FindCase(
        "modules, then entities, then operations",
        KANBAN,
        FULL,
        "ar",
        [
            {"path": "board", "level": "module"},
            {"path": "board/cards", "level": "entity"},
            {"path": "board", "operation": "archive-board"},
            {"path": "board", "operation": "count-cards"},
            {"path": "board/cards", "operation": "finish-card"},
        ],
    ),
    FindCase(
        "anonymous finds read-only ops only",
        KANBAN,
        ANON,
        "card",
        CARD_MATCHES[:2],
    ),
    FindCase("read-only grant finds no op", KANBAN, RO, "card", CARD_MATCHES[:1]),
    FindCase(
        "modules are found even when unreachable",
        KANBAN_MULTI,
        NOBODY,
        "ar",
        [{"path": "board", "level": "module"}],
    ),
    FindCase("no match", KANBAN, FULL, "zebra", []),
]


@pytest.mark.parametrize("case", FINDS, ids=[c.name for c in FINDS])
def test_find(case: FindCase) -> None:
    assert describe.find(case.mapping, case.term, case.caller) == {
        "level": "find",
        "term": case.term,
        "matches": case.matches,
        "next": ["describe/{path}"],
    }


# ------------------------------------------------------------------- budget

REFERENCE_LEVELS: list[tuple[str, Callable[[], dict[str, Any]]]] = [
    ("root", lambda: describe.root(KANBAN, FULL)),
    ("module", lambda: describe.module(KANBAN, "board", FULL)),
    ("entity", lambda: describe.entity(KANBAN, CARDS, FULL)),
    ("record", lambda: describe.record(KANBAN, CARDS, FULL, {**SEED, "done": True})),
    ("find", lambda: describe.find(KANBAN, "card", FULL)),
]


@pytest.mark.parametrize(
    "build", [b for _, b in REFERENCE_LEVELS], ids=[n for n, _ in REFERENCE_LEVELS]
)
def test_reference_levels_fit_the_budget(build: Callable[[], dict[str, Any]]) -> None:
    doc = build()
    assert size(doc) <= BUDGET
    assert "truncated" not in doc


def _wide(count: int) -> Mapping:
    return build_mapping(
        [{"name": f"m{i:02}", "summary": prose(120, f"module {i}")} for i in range(count)]
    )


WIDE_20 = _wide(20)  # fits once summaries are dropped
WIDE_60 = _wide(60)  # does not fit even without summaries
WIDE_CALLER = grant_caller(WIDE_60, "c", None, "owner", ["*"])

BIG = build_mapping(
    [{"name": "big"}, {"name": "heavy"}, {"name": "opsheavy"}],
    {
        **{
            f"e{i:02}": {
                "module": "big",
                "summary": prose(80, f"entity {i}"),
                "path": f"/e{i:02}/",
                "fields": {"title": {"type": "string"}},
            }
            for i in range(40)
        },
        "wide": {
            "module": "heavy",
            "path": "/wide/",
            "fields": {
                f"a_rather_long_field_name_{i:02}": {"type": "string", "max": 100}
                for i in range(80)
            },
        },
        **{
            f"h{i}": {"module": "opsheavy", "path": f"/h{i}/", "fields": {"t": {"type": "string"}}}
            for i in range(3)
        },
    },
    [
        *(
            {
                "name": f"tool-{i}",
                "module": "big",
                "destructive": False,
                "description": prose(150, f"tool {i}"),
                "params": {},
            }
            for i in range(3)
        ),
        *(
            {
                "name": f"op-{i:02}",
                "module": "big",
                "entity": "e00",
                "destructive": i % 2 == 0,
                "description": prose(60, f"op {i}"),
                "params": {"target": {"type": "ref", "entity": "e00", "required": True}},
            }
            for i in range(40)
        ),
        *(
            {
                "name": f"wide-op-{i}",
                "module": "heavy",
                "entity": "wide",
                "destructive": False,
                "params": {},
            }
            for i in range(5)
        ),
        *(
            {
                "name": f"heavy-op-{i:02}",
                "module": "opsheavy",
                "destructive": False,
                "description": prose(100, f"heavy {i}"),
                "params": {},
            }
            for i in range(30)
        ),
    ],
)
BIG_CALLER = grant_caller(BIG, "c", None, "owner", ["*"])
E00 = BIG.entities["e00"]
MANY_ITEMS = [{"id": f"item-{i:03}", "label": prose(40, f"item {i}")} for i in range(200)]


@dataclass(frozen=True)
class TrimCase:
    name: str
    build: Callable[[bool], dict[str, Any]]  # show_all -> level
    key: str  # the list that is trimmed
    move: str  # appended to next when trimmed
    total: int
    strip: tuple[str, ...] = ()  # row keys a trimmed level sheds first


TRIMS = [
    TrimCase(
        "root rows",
        lambda show_all: describe.root(WIDE_60, WIDE_CALLER, show_all=show_all),
        "modules",
        "describe?all=true",
        60,
        ("summary",),
    ),
    TrimCase(
        "module entities",
        lambda show_all: describe.module(BIG, "big", BIG_CALLER, show_all=show_all),
        "entities",
        "describe/big?all=true",
        40,
    ),
    TrimCase(
        "entity operations",
        lambda show_all: describe.entity(BIG, E00, BIG_CALLER, show_all=show_all),
        "operations",
        "describe/big/e00?all=true",
        40,
    ),
    TrimCase(
        "find matches",
        lambda show_all: describe.find(BIG, "op-", BIG_CALLER, show_all=show_all),
        "matches",
        "describe?find=op-&all=true",
        75,
    ),
    TrimCase(
        "relation items",
        lambda show_all: describe.relation(E00, "r1", "rel", "e01", MANY_ITEMS, show_all=show_all),
        "items",
        "describe/big/e00/r1/rel?all=true",
        200,
    ),
]


def _bare(rows: list[dict[str, Any]], strip: tuple[str, ...]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k not in strip} for row in rows]


@pytest.mark.parametrize("case", TRIMS, ids=[c.name for c in TRIMS])
def test_trimming_drops_from_the_end_and_says_so(case: TrimCase) -> None:
    doc, whole = case.build(False), case.build(True)
    everything = _bare(whole[case.key], case.strip)
    kept = doc[case.key]
    dropped = case.total - len(kept)
    assert len(everything) == case.total
    assert size(doc) <= BUDGET < size(whole)
    assert 1 <= dropped < case.total
    assert kept == everything[: len(kept)]
    assert doc["truncated"] == dropped
    assert doc["next"] == [*whole["next"], case.move]
    untouched = [k for k in whole if k not in (case.key, "next")]
    assert {k: doc[k] for k in untouched} == {k: whole[k] for k in untouched}
    # the largest prefix that fits: one more entry would not
    grown = {**doc, case.key: everything[: len(kept) + 1], "truncated": dropped - 1}
    assert size(grown) > BUDGET


@pytest.mark.parametrize("case", TRIMS, ids=[c.name for c in TRIMS])
def test_show_all_returns_everything(case: TrimCase) -> None:
    whole = case.build(True)
    assert len(whole[case.key]) == case.total
    assert "truncated" not in whole
    assert not any(move.endswith("all=true") for move in whole["next"])


def test_root_drops_summaries_before_rows() -> None:
    caller = grant_caller(WIDE_20, "c", None, "owner", ["*"])
    doc = describe.root(WIDE_20, caller)
    whole = describe.root(WIDE_20, caller, show_all=True)
    assert size(doc) <= BUDGET < size(whole)
    assert all("summary" in row for row in whole["modules"])
    assert doc["modules"] == _bare(whole["modules"], ("summary",))
    assert "truncated" not in doc
    assert doc["next"] == whole["next"] == ["describe/{module}", "describe?find={term}"]


@dataclass(frozen=True)
class NeverCase:
    name: str
    build: Callable[[bool], dict[str, Any]]
    kept: str  # never trimmed, even past the budget
    trimmed: str


NEVER = [
    NeverCase(
        "entity fields",
        lambda show_all: describe.entity(BIG, BIG.entities["wide"], BIG_CALLER, show_all=show_all),
        "fields",
        "operations",
    ),
    NeverCase(
        "module operations",
        lambda show_all: describe.module(BIG, "opsheavy", BIG_CALLER, show_all=show_all),
        "operations",
        "entities",
    ),
]


@pytest.mark.parametrize("case", NEVER, ids=[c.name for c in NEVER])
def test_lists_that_are_never_trimmed(case: NeverCase) -> None:
    doc, whole = case.build(False), case.build(True)
    assert size({**whole, case.trimmed: []}) > BUDGET
    assert doc[case.kept] == whole[case.kept]
    assert doc[case.trimmed] == []
    assert doc["truncated"] == len(whole[case.trimmed]) > 0


@dataclass(frozen=True)
class UnitsCase:
    char: str
    kept: bool


UNITS = [
    UnitsCase("a", True),
    UnitsCase("\u00e9", True),  # two UTF-8 bytes, one UTF-16 unit
    UnitsCase("\u4e2d", True),  # three UTF-8 bytes, one UTF-16 unit
    UnitsCase("\U0001d11e", False),  # one code point, two UTF-16 units
    UnitsCase("\U0001f600", False),
]


@pytest.mark.parametrize("case", UNITS, ids=[f"U+{ord(c.char):04X}" for c in UNITS])
def test_budget_counts_utf16_units(case: UnitsCase) -> None:
    """A summary sized to exactly 2,000 code points: kept unless it is astral."""
    probe = build_mapping([{"name": "m", "summary": "x"}])
    room = BUDGET - len(compact_json(describe.root(probe, FULL))) + 1
    summary = case.char * room
    doc = describe.root(build_mapping([{"name": "m", "summary": summary}]), FULL)
    assert ("summary" in doc["modules"][0]) is case.kept
    assert size(doc) <= BUDGET
    assert "truncated" not in doc


@dataclass(frozen=True)
class LengthCase:
    text: str
    units: int


LENGTHS = [
    LengthCase("", 0),
    LengthCase("abc", 3),
    LengthCase("\u00e9", 1),
    LengthCase("\u4e2d\u6587", 2),
    LengthCase("\U0001d11e", 2),
    LengthCase("a\U0001f600b", 4),
]


@pytest.mark.parametrize("case", LENGTHS, ids=[repr(c.text) for c in LENGTHS])
def test_js_length(case: LengthCase) -> None:
    assert js_length(case.text) == case.units


def test_compact_json_is_what_javascript_measures() -> None:
    assert compact_json({"a": ["\u00e9", 1.0, 2.5], "b": {"c": None}}) == (
        '{"a":["\u00e9",1,2.5],"b":{"c":null}}'
    )


def test_an_entity_whose_ids_the_client_chooses_says_so() -> None:
    chosen = replace(CARDS, id_client=True)
    mapping = replace(KANBAN, entities={**KANBAN.entities, "cards": chosen})
    doc = describe.entity(mapping, chosen, FULL)
    assert doc["id"] == {"type": "string", "required": True, "chosenBy": "client"}
    assert list(doc).index("id") < list(doc).index("fields")
    flat = next(e for e in describe.flat(mapping, FULL)["entities"] if e["name"] == "cards")
    assert flat["id"] == doc["id"]
    assert "id" not in describe.entity(KANBAN, CARDS, FULL)  # server-given ids: as before
