"""Access rendering: callers, scope expansion, module access (protocol §6, §7, §16)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from runtime.mapping import Mapping, load_mapping, load_mapping_text
from runtime.protocol._access import (
    Caller,
    all_scopes,
    anonymous_caller,
    anonymous_scopes,
    expand,
    grant_caller,
    module_access,
    ui_caller,
)

ROOT = Path(__file__).resolve().parents[3]
KANBAN_TEXT = (ROOT / "mappings" / "conformance-kanban.yaml").read_text()
KANBAN = load_mapping(ROOT / "mappings" / "conformance-kanban.yaml", resolve_env=False)
KANBAN_MULTI = load_mapping_text(
    KANBAN_TEXT.replace("authMode: none", "authMode: multi-user"), resolve_env=False
)

# tools: operations only; store: two entities, a module op and an entity op;
# plain: one entity and no operations; empty: nothing at all.
SHAPES = load_mapping_text(
    """
format: 1
app: {id: shapes, name: Shapes}
upstream: {baseUrl: "http://127.0.0.1:9"}
modules:
  - {name: tools}
  - {name: store}
  - {name: plain}
  - {name: empty}
entities:
  items:
    module: store
    path: /items/
    fields: {title: {type: string}}
  bins:
    module: store
    path: /bins/
    fields: {title: {type: string}}
  notes:
    module: plain
    path: /notes/
    fields: {title: {type: string}}
operations:
  - {name: ping, module: tools, destructive: false, readOnly: true, params: {}}
  - {name: reboot, module: tools, destructive: true, params: {}}
  - {name: restock, module: store, destructive: false, params: {}}
  - {name: move-item, module: store, entity: items, destructive: false, params: {}}
""",
    resolve_env=False,
)

RO_SCOPES = ("data:cards:read", "data:lists:read")
STORE_WRITES = ("data:items:write", "data:bins:write")
STORE_OPS = ("op:restock", "op:move-item")


@dataclass(frozen=True)
class AccessCase:
    name: str
    module: str
    scopes: tuple[str, ...]
    access: str


ACCESS = [
    AccessCase("ops-only module, one op runnable", "tools", ("op:reboot",), "full"),
    AccessCase("ops-only module, nothing runnable", "tools", ("data:items:read",), "none"),
    AccessCase("empty module", "empty", ("*",), "none"),
    AccessCase("nothing readable or runnable", "store", ("op:ping",), "none"),
    AccessCase("writes alone reach nothing", "store", STORE_WRITES, "none"),
    AccessCase("one readable entity", "store", ("data:items:read",), "read-only"),
    AccessCase("one runnable op, nothing readable", "store", ("op:restock",), "read-only"),
    AccessCase("all writable and all runnable", "store", STORE_WRITES + STORE_OPS, "full"),
    AccessCase(
        "all writable, one op missing",
        "store",
        (*STORE_WRITES, "op:restock", "data:items:read"),
        "read-only",
    ),
    AccessCase(
        "all runnable, one entity not writable",
        "store",
        ("data:items:write", "data:bins:read", *STORE_OPS),
        "read-only",
    ),
    AccessCase("everything", "store", ("*",), "full"),
    AccessCase(
        "no operations: writable is full", "plain", ("data:notes:read", "data:notes:write"), "full"
    ),
    AccessCase("no operations: readable is read-only", "plain", ("data:notes:read",), "read-only"),
    AccessCase("no partial wildcards", "plain", ("data:*:read", "data:*:write"), "none"),
]


@pytest.mark.parametrize("case", ACCESS, ids=[c.name for c in ACCESS])
def test_module_access(case: AccessCase) -> None:
    caller = grant_caller(SHAPES, "cred", "agent", "owner", case.scopes)
    assert module_access(SHAPES, case.module, caller) == case.access


@dataclass(frozen=True)
class CallerCase:
    name: str
    mapping: Mapping
    caller: Caller
    kind: str
    credential_id: str
    agent_name: str | None
    credentialled: bool
    access: dict[str, str]  # module -> access


CALLERS = [
    CallerCase(
        "ui", SHAPES, ui_caller(SHAPES), "ui", "ui", None, True,
        {"tools": "full", "store": "full", "plain": "full", "empty": "none"},
    ),
    CallerCase(
        "anonymous, single-user", SHAPES, anonymous_caller(SHAPES), "anonymous", "anonymous", None,
        False, {"tools": "full", "store": "read-only", "plain": "read-only", "empty": "none"},
    ),
    CallerCase(
        "anonymous, multi-user", KANBAN_MULTI, anonymous_caller(KANBAN_MULTI), "none", "anonymous",
        None, False, {"board": "none"},
    ),
    CallerCase(
        "anonymous on the reference model", KANBAN, anonymous_caller(KANBAN), "anonymous",
        "anonymous", None, False, {"board": "read-only"},
    ),
    CallerCase(
        "full grant", KANBAN, grant_caller(KANBAN, "cred_full", "conformance", "owner", ["*"]),
        "grant", "cred_full", "conformance", True, {"board": "full"},
    ),
    CallerCase(
        "read-only grant",
        KANBAN,
        grant_caller(KANBAN, "cred_ro", "reporter", "owner", RO_SCOPES),
        "grant", "cred_ro", "reporter", True, {"board": "read-only"},
    ),
]  # fmt: skip


@pytest.mark.parametrize("case", CALLERS, ids=[c.name for c in CALLERS])
def test_callers(case: CallerCase) -> None:
    caller = case.caller
    assert (caller.kind, caller.credential_id, caller.agent_name, caller.principal) == (
        case.kind,
        case.credential_id,
        case.agent_name,
        "owner",
    )
    assert caller.credentialled is case.credentialled
    rendered = {m.name: module_access(case.mapping, m.name, caller) for m in case.mapping.modules}
    assert rendered == case.access


@dataclass(frozen=True)
class ScopeCase:
    name: str
    mapping: Mapping
    caller: Caller
    scopes: list[str]  # as whoami lists them


SCOPES = [
    ScopeCase(
        "full grant expands every concrete scope",
        KANBAN,
        grant_caller(KANBAN, "cred_full", None, "owner", ["*"]),
        [
            "data:cards:read", "data:cards:write", "data:lists:read", "data:lists:write",
            "op:archive-board", "op:count-cards", "op:finish-card",
        ],
    ),
    ScopeCase(
        "anonymous reach: reads and read-only operations",
        KANBAN,
        anonymous_caller(KANBAN),
        ["data:cards:read", "data:lists:read", "op:count-cards"],
    ),
    ScopeCase("multi-user anonymous", KANBAN_MULTI, anonymous_caller(KANBAN_MULTI), []),
    ScopeCase(
        "a grant keeps exactly what it names",
        SHAPES,
        grant_caller(SHAPES, "c", None, "owner", ["op:ping", "data:zzz:read", "data:items:read"]),
        ["data:items:read", "data:zzz:read", "op:ping"],
    ),
    ScopeCase(
        "a star among other scopes is everything of this app",
        SHAPES,
        grant_caller(SHAPES, "c", None, "owner", ["data:zzz:read", "*"]),
        [
            "data:bins:read", "data:bins:write", "data:items:read", "data:items:write",
            "data:notes:read", "data:notes:write",
            "op:move-item", "op:ping", "op:reboot", "op:restock",
        ],
    ),
    ScopeCase("ui holds everything", SHAPES, ui_caller(SHAPES), sorted(all_scopes(SHAPES))),
]  # fmt: skip


@pytest.mark.parametrize("case", SCOPES, ids=[c.name for c in SCOPES])
def test_scopes_as_whoami_lists_them(case: ScopeCase) -> None:
    assert sorted(case.caller.scopes) == case.scopes


@dataclass(frozen=True)
class Listing:
    name: str
    scopes: tuple[str, ...]
    expected: tuple[str, ...]


LISTINGS = [
    Listing("all scopes", all_scopes(SHAPES), tuple(sorted(expand(SHAPES, ["*"])))),
    Listing(
        "anonymous scopes",
        anonymous_scopes(SHAPES),
        ("data:bins:read", "data:items:read", "data:notes:read", "op:ping"),
    ),
]


@pytest.mark.parametrize("case", LISTINGS, ids=[c.name for c in LISTINGS])
def test_scope_listings_are_sorted_tuples(case: Listing) -> None:
    assert case.scopes == case.expected
    assert list(case.scopes) == sorted(case.scopes)
    assert len(set(case.scopes)) == len(case.scopes)


def test_anonymous_reach_agrees_with_whoami() -> None:
    """What describe shows an anonymous caller is what whoami lists for it (§7)."""
    caller = anonymous_caller(SHAPES)
    listed = set(anonymous_scopes(SHAPES))
    for entity in SHAPES.entities:
        assert caller.can_read(entity) is (f"data:{entity}:read" in listed) is True
        assert caller.can_write(entity) is False
    for op in SHAPES.operations:
        assert caller.can_run(op.name) is op.read_only is (f"op:{op.name}" in listed)


@dataclass(frozen=True)
class CanCase:
    name: str
    scopes: tuple[str, ...]
    read: bool
    write: bool
    run: bool


CAN = [
    CanCase("read only", ("data:items:read",), True, False, False),
    CanCase("write only", ("data:items:write",), False, True, False),
    CanCase("run only", ("op:move-item",), False, False, True),
    CanCase("other entity", ("data:bins:read", "data:bins:write"), False, False, False),
    CanCase("prefix is not a match", ("data:item:read", "op:move"), False, False, False),
    CanCase("star", ("*",), True, True, True),
]


@pytest.mark.parametrize("case", CAN, ids=[c.name for c in CAN])
def test_can(case: CanCase) -> None:
    caller = grant_caller(SHAPES, "c", None, "owner", case.scopes)
    assert (caller.can_read("items"), caller.can_write("items"), caller.can_run("move-item")) == (
        case.read,
        case.write,
        case.run,
    )
