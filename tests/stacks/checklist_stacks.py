"""The stacks the acceptance checklist runs on, one row each, and how to read each directly.

A row says how to start the stack, what an owner gives `a2map probe` (the root URL and a
credential), how the upstream lists its own records (its own paging, never the
mapping's), and the facts the checklist compares the served protocol with: how the
upstream stores a few fields, one filter in the upstream's own words (query parameters,
or the keys of a filter body POSTed as Prefect lists), and the writes. A row verify
cannot prove whole names exactly the claims it refuses, each with why; the rest is
served through the partial stamp. The checks themselves are in `test_checklist.py` and
are the same for every row.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import httpx

from samples.stacks_common.launch import StackError
from samples.stripe_mock.spec import stripe_spec
from tests.fixtures.servers import start_kanban
from tests.fixtures.stacks import (
    start_directus,
    start_jsonserver,
    start_pocketbase,
    start_prefect,
    start_rails,
    start_stack,
    start_stripe,
)

Records = list[dict[str, Any]]


class Upstream(Protocol):
    """What every sample server hands the tests: where it is and how to authenticate."""

    @property
    def url(self) -> str: ...

    @property
    def token(self) -> str | None: ...

    @property
    def headers(self) -> dict[str, str]: ...


# The upstream's own filter: query parameters, or the keys of a POSTed filter body
Walk = Callable[[Upstream, str, Mapping[str, Any]], Records]


def _get(upstream: Upstream, url: str, params: Mapping[str, str]) -> httpx.Response:
    # an empty `params` would replace a next URL's own query: pass none then
    answer = httpx.get(url, params=dict(params) or None, headers=upstream.headers, timeout=30)
    assert answer.status_code == 200, f"GET {url}: {answer.status_code} {answer.text[:300]}"
    return answer


def follow_next(items: str, next_key: str) -> Walk:
    """Pages linked by a next URL in the body (DRF's `{count, next, results}`)."""

    def walk(upstream: Upstream, path: str, params: Mapping[str, str]) -> Records:
        records: Records = []
        url: str | None = upstream.url + path
        query: Mapping[str, str] = params
        while url:
            body = _get(upstream, url, query).json()
            records.extend(body[items])
            url, query = body.get(next_key), {}
        return records

    return walk


def numbered_pages(page: str, size: str, per_page: int, items: str = "") -> Walk:
    """Pages by number until a short one (Rails, PocketBase)."""

    def walk(upstream: Upstream, path: str, params: Mapping[str, str]) -> Records:
        records: Records = []
        number = 1
        while True:
            query = {**params, page: str(number), size: str(per_page)}
            body = _get(upstream, upstream.url + path, query).json()
            chunk = body[items] if items else body
            records.extend(chunk)
            if len(chunk) < per_page:
                return records
            number += 1

    return walk


def offset_pages(limit: str, offset: str, per_page: int, items: str) -> Walk:
    """Pages by offset until a short one (Directus's `limit` and `offset`)."""

    def walk(upstream: Upstream, path: str, params: Mapping[str, str]) -> Records:
        records: Records = []
        while True:
            query = {**params, limit: str(per_page), offset: str(len(records))}
            chunk = _get(upstream, upstream.url + path, query).json()[items]
            records.extend(chunk)
            if len(chunk) < per_page:
                return records

    return walk


def posted_offsets(per_page: int) -> Walk:
    """Pages POSTed as `{offset, limit, <filter objects>}` until a short one (Prefect)."""

    def walk(upstream: Upstream, path: str, params: Mapping[str, Any]) -> Records:
        records: Records = []
        while True:
            body = {**params, "offset": len(records), "limit": per_page}
            answer = httpx.post(upstream.url + path, json=body, headers=upstream.headers,
                                timeout=30)  # fmt: skip
            assert answer.status_code == 200, f"POST {path}: {answer.status_code} {answer.text}"
            chunk: Records = answer.json()
            records.extend(chunk)
            if len(chunk) < per_page:
                return records

    return walk


def cursor_after(size: int) -> Walk:
    """Pages by the last id (Stripe's `limit`, `starting_after`, `has_more`, items in `data`)."""

    def walk(upstream: Upstream, path: str, params: Mapping[str, str]) -> Records:
        records: Records = []
        query = {**params, "limit": str(size)}
        while True:
            body = _get(upstream, upstream.url + path, query).json()
            records.extend(body["data"])
            if not body["has_more"] or not body["data"]:
                return records
            query = {**params, "limit": str(size), "starting_after": str(body["data"][-1]["id"])}

    return walk


def whole(upstream: Upstream, path: str, params: Mapping[str, str]) -> Records:
    """One answer holds the whole listing (json-server without `_page`)."""
    records: Records = _get(upstream, upstream.url + path, params).json()
    return records


@dataclass(frozen=True)
class Ref:
    """A body value: the id of the first record of `entity`, as the runtime lists it."""

    entity: str


@dataclass(frozen=True)
class Stack:
    name: str
    start: Callable[[], contextlib.AbstractContextManager[Any]]
    app_id: str
    # `--header` values as an owner writes them (secrets as ${VAR}), and the variables
    secret_header: str | None
    secrets: Callable[[Upstream], dict[str, str]]
    # {entity: the upstream's own path of its listing}
    paths: Mapping[str, str]
    walk: Walk
    # Describe as the upstream stores them: {"entity.field": attribute: value}
    described: Mapping[str, Mapping[str, Any]]
    # One filter the upstream evaluates itself: (protocol filter, the upstream's own params)
    native: tuple[str, dict[str, Any]]
    # A cross-field `||`: (protocol filter, the records of the direct listing it selects)
    either: tuple[str, Callable[[dict[str, Any]], bool]]
    create: Mapping[str, Any]
    update: Mapping[str, Any]
    # A create with several mistakes, and every violation code the guard must name
    invalid: tuple[Mapping[str, Any], tuple[str, ...]]
    # Where `a2map probe` needs more than the root URL and the credential, and why
    probe_extra: tuple[str, ...] = ()
    entity: str = "cards"
    # Served by a gateway under this path prefix (tests/fixtures/prefixproxy.py), or not
    mount: str | None = None
    # Where `a2map verify` needs more than the mapping, and why
    verify_extra: tuple[str, ...] = ()
    # What the upstream truly cannot do: {claim: the failure verify refuses it with}.
    # Empty: verify exits 0. Else it exits 1, refusing exactly these, and the runtime
    # serves the proven part through the gate.
    refused: Mapping[str, str] = field(default_factory=dict)
    # The write claims verify cannot prove there, withheld: a claim pattern (fnmatch)
    # and the reason its note gives. Every such claim matches one; each pattern, some.
    unproven: Mapping[str, str | tuple[str, ...]] = field(default_factory=dict)
    # With `refused`: a create the runtime then refuses (403 `writes_not_verified`),
    # naming a refused claim: (entity, body, claim)
    refused_create: tuple[str, Mapping[str, Any], str] | None = None
    # The refused claim a delete of `entity` is refused with, when verify refused it
    refused_delete: str | None = None
    # Claims proven or refused by how fast verify reads back, each with why: the
    # upstream itself changes the value over time
    timing: Mapping[str, str] = field(default_factory=dict)
    # On an upstream that keeps every run's records (--allow-leftovers), claims that
    # pass or fail by what earlier runs left there, each with why
    drifting: Mapping[str, str] = field(default_factory=dict)


def _stripe_spec() -> str:
    try:
        return str(stripe_spec())
    except StackError:
        return "stripe-spec-not-installed.json"  # the stack will not start either


def _token(variable: str) -> Callable[[Upstream], dict[str, str]]:
    return lambda upstream: {variable: str(upstream.token)}


def _high_or_done(priority: str, done: str) -> Callable[[dict[str, Any]], bool]:
    return lambda record: record.get(priority) == "high" or record.get(done) is True


# What `verify` refuses on Prefect, and why; the rest (every listing, read, field type,
# the other entities' writes, filters) is proven and served through the partial stamp.
# A made-up value Prefect refuses is mended by what the refusal says (a name in a slug's
# alphabet, a UUID, a reference that names nothing left out); what stays refused is
# what Prefect does with a value, or what no made-up value can satisfy.
PREFECT_REFUSED: dict[str, str] = {
    # a trigger and its actions: required structures the verifier cannot make up
    "entities.automations.write.create": "CreateRefused",
    "entities.automations.write.create.minimal": "CreateRefused",
    # Prefect rewrites these JSON fields into structures of its own (adds keys, drops
    # unknown ones), so a made-up value does not read back as sent
    "entities.block_schemas.write.create": "WriteNotPersisted",
    "entities.flow_runs.write.create": "WriteNotPersisted",
    "entities.task_runs.write.create": "WriteNotPersisted",
    "entities.work_queues.write.create": "WriteNotPersisted",
    "entities.work_queues.write.update": "WriteNotPersisted",
    # a deployment's concurrency_limit moves into a global limit; labels are rewritten
    "entities.deployments.write.create": "WriteNotPersisted",
    "entities.deployments.write.update": "WriteNotPersisted",
    # a pending flow run's job variables cannot be updated
    "entities.flow_runs.write.update": "UpdateRefused",
    # the default listing hides anonymous block documents (the run made one)
    "entities.block_documents.list.created": "ListMissingRecords",
    # a body that is a bare list, which the spec-drawn params do not model
    "operations.labels-flow-run": "OperationRefused",
    "operations.create-flow-run-bulk-deployment": "OperationRefused",
    "operations.schedules-deployment-post": "OperationRefused",
    # answers 500 to the run's own flow run; answers CSV, which the runtime does not relay
    "operations.input-flow-run": "OperationRefused",
    "operations.logs-download-flow-run": "OperationRefused",
}  # fmt: skip


READ_ONLY = {"readOnly": True}
REQUIRED = {"required": True}
DAY = {"type": "string", "format": "YYYY-MM-DD"}

STACKS: tuple[Stack, ...] = (
    Stack(
        name="django",
        start=lambda: start_kanban(seed="rich"),
        app_id="drf-kanban",
        secret_header="Authorization: Token ${DRF_KANBAN_TOKEN}",
        secrets=_token("DRF_KANBAN_TOKEN"),
        paths={"cards": "/api/cards/", "lists": "/api/lists/", "boards": "/api/boards/",
               "tags": "/api/tags/"},
        walk=follow_next("results", "next"),
        described={
            "cards.title": {"type": "string", **REQUIRED, "max": 200},
            "cards.list": {"type": "ref", "entity": "lists"},
            "cards.tags": {"type": "list<ref>", "entity": "tags"},
            "cards.due": DAY,
            "cards.created": {"type": "datetime", **READ_ONLY},
            "cards.priority": {"type": "enum", "values": [
                "high", "low", "medium", "none", "urgent"]},
        },
        native=('priority = "high"', {"priority": "high"}),
        either=('priority = "high" || done = true', _high_or_done("priority", "done")),
        create={"title": "Checklist card", "list": Ref("lists"), "priority": "high",
                "due": "2027-01-02", "done": False},
        update={"title": "Checklist card, done", "done": True, "due": None},
        invalid=({"list": Ref("lists"), "due": "31-12-2026", "done": "yes", "nope": 1},
                 ("missing_required", "invalid_daykey", "invalid_boolean", "unknown_field")),
    ),
    Stack(
        name="rails",
        start=lambda: start_rails(seed="rich"),
        app_id="rails-kanban",
        secret_header="Authorization: Token ${RAILS_KANBAN_TOKEN}",
        secrets=_token("RAILS_KANBAN_TOKEN"),
        paths={"cards": "/api/cards", "lists": "/api/lists", "boards": "/api/boards",
               "tags": "/api/tags"},
        walk=numbered_pages("page", "per_page", 100),
        described={
            "cards.title": {"type": "string", **REQUIRED},
            "cards.list_id": {"type": "ref", "entity": "lists", **REQUIRED},
            "cards.tag_ids": {"type": "list<ref>", "entity": "tags"},
            "cards.due": DAY,
            "cards.created_at": {"type": "datetime", **READ_ONLY},
        },
        native=('priority = "high"', {"priority": "high"}),
        either=('priority = "high" || done = true', _high_or_done("priority", "done")),
        create={"title": "Checklist card", "list_id": Ref("lists"), "priority": "high",
                "due": "2027-01-02", "done": False},
        update={"title": "Checklist card, done", "done": True, "due": None},
        invalid=({"list_id": Ref("lists"), "due": "31-12-2026", "done": "yes", "nope": 1},
                 ("missing_required", "invalid_daykey", "invalid_boolean", "unknown_field")),
    ),
    Stack(
        name="pocketbase",
        start=lambda: start_pocketbase(seed="rich"),
        app_id="pocketbase-kanban",
        secret_header="Authorization: ${POCKETBASE_KANBAN_TOKEN}",
        secrets=_token("POCKETBASE_KANBAN_TOKEN"),
        paths={name: f"/api/collections/{name}/records"
               for name in ("cards", "lists", "boards", "tags")},
        walk=numbered_pages("page", "perPage", 200, "items"),
        described={
            "cards.title": {"type": "string", **REQUIRED},
            "cards.list": {"type": "ref", "entity": "lists"},
            "cards.tags": {"type": "list<ref>", "entity": "tags"},
            "cards.due": {"type": "datetime"},
            "cards.created": {"type": "datetime", **READ_ONLY},
            "cards.priority": {"type": "enum"},
        },
        native=('priority = "high"', {"filter": "priority='high'"}),
        either=('priority = "high" || done = true', _high_or_done("priority", "done")),
        create={"title": "Checklist card", "list": Ref("lists"), "priority": "high",
                "due": "2027-01-02T10:00:00Z", "done": False},
        update={"title": "Checklist card, done", "done": True},
        invalid=({"list": Ref("lists"), "due": "soon", "done": "yes", "nope": 1},
                 ("missing_required", "invalid_date", "invalid_boolean", "unknown_field")),
    ),
    Stack(
        name="json-server",
        start=lambda: start_jsonserver(seed="rich"),
        app_id="jsonserver-kanban",
        secret_header=None,
        secrets=lambda upstream: {},
        paths={"cards": "/cards", "lists": "/lists", "boards": "/boards", "tags": "/tags"},
        walk=whole,
        described={
            "cards.title": {"type": "string"},
            "cards.listId": {"type": "ref", "entity": "lists"},
            "cards.tagIds": {"type": "list<ref>", "entity": "tags"},
            "cards.due": DAY,
        },
        native=('priority = "high"', {"priority": "high"}),
        either=('priority = "high" || done = true', _high_or_done("priority", "done")),
        create={"title": "Checklist card", "listId": Ref("lists"), "priority": "high",
                "due": "2027-01-02", "done": False},
        update={"title": "Checklist card, done", "done": True, "due": None},
        invalid=({"listId": Ref("lists"), "due": "31-12-2026", "done": "yes", "nope": 1},
                 ("invalid_daykey", "invalid_boolean", "unknown_field")),
    ),
    Stack(
        name="directus",
        start=lambda: start_directus(seed="rich"),
        app_id="directus-kanban",
        secret_header="Authorization: Bearer ${DIRECTUS_KANBAN_TOKEN}",
        secrets=_token("DIRECTUS_KANBAN_TOKEN"),
        paths={name: f"/items/{name}" for name in ("cards", "lists", "boards", "tags",
                                                   "cards_tags")},
        walk=offset_pages("limit", "offset", 100, "data"),
        described={
            "cards.title": {"type": "string", **REQUIRED, "max": 200},
            "cards.list": {"type": "ref", "entity": "lists"},
            "cards.due": DAY,
            "cards.done": {"type": "boolean"},
            "cards.blocked": {"type": "boolean"},  # 0/1 on the wire
            "cards.date_created": {"type": "datetime", **READ_ONLY},
            "cards.date_updated": {"type": "datetime", **READ_ONLY},
            "cards_tags.tags_id": {"type": "ref", "entity": "tags"},
        },
        native=('priority = "high"', {"filter[priority][_eq]": "high"}),
        either=('priority = "high" || done = true', _high_or_done("priority", "done")),
        create={"title": "Checklist card", "list": Ref("lists"), "priority": "high",
                "due": "2027-01-02", "done": False, "blocked": True},
        update={"title": "Checklist card, done", "done": True, "due": None, "blocked": False},
        invalid=({"list": Ref("lists"), "due": "31-12-2026", "done": "yes", "nope": 1},
                 ("missing_required", "invalid_daykey", "invalid_boolean", "unknown_field")),
    ),
    Stack(
        # Writes wrapped under `card`; notes created by Location, tags found by their
        # unique name, and events, whose create names no record, left unmapped.
        name="write-shapes",
        start=lambda: start_stack("write_shapes"),
        app_id="write-shapes",
        secret_header="Authorization: Bearer ${WRITE_SHAPES_TOKEN}",
        secrets=_token("WRITE_SHAPES_TOKEN"),
        paths={name: f"/{name}" for name in ("cards", "notes", "tags", "events")},
        walk=numbered_pages("page", "per_page", 100),
        described={
            "cards.title": {"type": "string", **REQUIRED, "max": 200},
            "cards.due": DAY,
            "cards.done": {"type": "boolean"},
            "cards.updated_at": {"type": "datetime", **READ_ONLY},
            "notes.created_at": {"type": "datetime", **READ_ONLY},
            "tags.name": {"type": "string", **REQUIRED, "max": 50},
            "tags.color": {"type": "enum", "values": ["blue", "green", "red"]},
        },
        native=("done = true", {"done": "true"}),
        either=('title = "card 3" || done = true',
                lambda record: record.get("title") == "card 3" or record.get("done") is True),
        create={"title": "Checklist card", "due": "2027-01-02", "done": False},
        update={"title": "Checklist card, done", "done": True, "due": None},
        invalid=({"due": "31-12-2026", "done": "yes", "nope": 1},
                 ("missing_required", "invalid_daykey", "invalid_boolean", "unknown_field")),
        # events are updated and deleted, but never created through the API: the run
        # writes only records of its own
        unproven={"entities.events.write.*": "no create"},
    ),
    Stack(
        name="stripe",
        start=lambda: start_stripe(seed="rich"),
        app_id="stripe-mock",
        secret_header="Authorization: Bearer ${STRIPE_TOKEN}",
        secrets=_token("STRIPE_TOKEN"),
        # The real service publishes its spec apart from its API (the issue allows it).
        probe_extra=("--openapi", _stripe_spec()),
        paths={"customers": "/v1/customers", "products": "/v1/products",
               "prices": "/v1/prices"},
        walk=cursor_after(100),
        entity="customers",
        described={
            "customers.email": {"type": "string"},
            "customers.created": {"type": "datetime", **READ_ONLY},
            "customers.livemode": {"type": "boolean", **READ_ONLY},
            "prices.product": {"type": "ref", "entity": "products"},
            "prices.created": {"type": "datetime", **READ_ONLY},
            "products.name": {"type": "string", **REQUIRED},
        },
        native=('email = "ada@example.com"', {"email": "ada@example.com"}),
        either=('email = "ada@example.com" || description = "Compiler pioneer"',
                lambda r: r.get("email") == "ada@example.com"
                or r.get("description") == "Compiler pioneer"),
        create={"email": "checklist@example.com", "description": "Checklist customer"},
        update={"description": "Checklist customer, updated", "email": "done@example.com"},
        invalid=({"email": 5, "balance": "x", "nope": 1},
                 ("invalid_string", "invalid_number", "unknown_field")),
        # The spec lists 70 collections and the mock serves a few: verify proves and
        # stamps these three (the rest is withheld as not verified), and writes records
        # it cannot delete (the mock has no DELETE routes): a disposable upstream.
        verify_extra=("--scope", "customers,products,prices", "--allow-leftovers"),
        refused={
            # the mock drops `name` (and nested objects' unknown keys) on create
            "entities.customers.write.create": "WriteNotPersisted",
            "entities.customers.write.update": "WriteNotPersisted",
            "entities.prices.write.create": "WriteNotPersisted",
            "entities.prices.write.update": "WriteNotPersisted",
            "entities.products.write.create": "WriteNotPersisted",
            # a create needs `product` or `product_data`: a one-of the guard cannot say
            "entities.prices.write.create.minimal": "CreateRefused",
            # the mock stores `active` as the text "true": `active=true` misses those
            "entities.products.filter.active.=": "FilterDropsRecords",
            # the spec's `source` is required by the mock, not declared so in the body
            "operations.sources-customer-post": "OperationRefused",
        },
        unproven={
            # the mock answers 404 to the DELETE (and a product's update) its spec declares
            "entities.*.write.delete": "not implemented by the upstream",
            "entities.products.*": ("not implemented by the upstream", "no stored value",
                                    "no stored reference"),
            "entities.prices.fields.product.upstreamOnDelete": "delete did not take",
            # and ignores the `created` query parameter its spec declares
            "entities.*.filter.created.=": "not implemented by the upstream",
            # the seed holds no value for these read-only fields
            "entities.customers.fields.*.type": "no stored value to judge",
            # operations on records of other collections (a customer's bank accounts), or
            # on ones named by values the run can only make up; and routes the mock lacks
            "operations.*": ("records the verifier did not create", "called with made-up",
                             "not implemented by the upstream"),
        },
        refused_create=("customers", {"email": "named@example.com", "name": "Ada"},
                        "entities.customers.write.create (name)"),
        drifting={
            # the mock stores `active` of a record created by form as the text "true":
            # once a run has left such prices, `active=true` misses them
            "entities.prices.filter.active.=": "FilterDropsRecords",
            # and reads such a product back by id differently than it lists it
            "entities.products.get": "GetDisagreesWithList",
            "entities.prices.get": "GetDisagreesWithList",
        },
        refused_delete="entities.customers.write.delete",
    ),
    Stack(
        name="prefect",
        start=lambda: start_prefect(seed="rich"),
        app_id="prefect",
        secret_header=None,
        secrets=lambda upstream: {},
        # Every collection named by `id` (work pools are named by their name), but work
        # queues, whose status Prefect's own services update while it runs, and block
        # documents, withheld: their listing hides anonymous ones (see PREFECT_REFUSED)
        paths={name: f"/api/{name.replace('v2_', 'v2/')}/filter" for name in (
            "variables", "flows", "deployments", "flow_runs", "task_runs", "artifacts",
            "automations", "block_types", "block_schemas",
            "concurrency_limits", "v2_concurrency_limits", "saved_searches")},
        # Prefect refuses a limit above 200
        walk=posted_offsets(200),
        described={
            "variables.name": {"type": "string", **REQUIRED, "max": 255},
            "variables.value": {"type": "json", **REQUIRED},
            "variables.created": {"type": "datetime", **READ_ONLY},
            "variables.updated": {"type": "datetime", **READ_ONLY},
        },
        native=('name ~ "text"', {"variables": {"name": {"like_": "text"}}}),
        either=('name ~ "text" || tags ~ "flag"',
                lambda r: "text" in r["name"] or "flag" in r["tags"]),
        create={"name": "checklist_variable", "value": "hello", "tags": ["checklist"]},
        update={"name": "checklist_variable_done", "value": 7},
        invalid=({"name": "x" * 300, "created": "2027-01-02T10:00:00Z", "nope": 1},
                 ("invalid_string", "read_only_field", "unknown_field", "missing_required")),
        entity="variables",
        refused=PREFECT_REFUSED,
        unproven={
            # saved searches are created by PUT with a name: no create mapped
            "entities.saved_searches.write.delete": "no create",
            # create-only fields whose stored value no other made-up value may replace
            "entities.*.fields.*.createOnly": "that differs from the stored one",
            # collections the seed leaves empty (or fields it leaves blank), read before
            # the run writes: nothing to judge
            "entities.*.fields.*.type": "no stored value to judge",
            "entities.*.fields.*.entity": "no stored reference to follow",
            "entities.*.list.posted": "the listing is empty",
            # POST operations with no record of the run's own in their path (counts,
            # histories, bulk state changes, limit increments): running one could act on
            # the owner's records, and the spec does not say which only read; and
            # operations naming records by values the run can only make up
            "operations.*": ("records the verifier did not create", "called with made-up"),
        },
        refused_create=("automations", {"name": "checklist-automation", "trigger": {},
                                        "actions": []},
                        "entities.automations.write.create"),
        timing={"entities.v2_concurrency_limits.write.create": "Prefect decays active_slots "
                "by slot_decay_per_second (made up: 7 a second) from the moment it stores "
                "it: as sent when read back within 1/7 s, less after",
                # a corrected copy made from a slow read marks active_slots read-only;
                # an update then stores it, and a fast read back sees it so
                "entities.v2_concurrency_limits.fields.active_slots.readOnly": "the same "
                "decay, read back within 1/7 s of an update"},
    ),
)  # fmt: skip

# Two stacks again, mounted under a prefix by a gateway: their spec or schema, their
# collections and the links they answer all move under it.
MOUNTED = tuple(
    replace(row, name=f"{row.name}-mounted", mount="/svc/kanban")
    for row in STACKS
    if row.name in ("django", "pocketbase")
)
