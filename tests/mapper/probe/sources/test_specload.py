"""Finding and reading the API's own description; servers: are never contacted."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from mapper.probe import UsageError
from mapper.probe.live import ProbeClient
from mapper.probe.sources._specload import WELL_KNOWN, discover, load_given, parse_spec

from ..fakes import BASE, PAYLOADS, Fake, json_response


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ('{"openapi": "3.0.3", "paths": {}}', True),
        ("openapi: 3.1.0\npaths: {}\n", True),
        ('{"swagger": "2.0", "paths": {}}', True),
        ('{"openapi": "3.0.3"}', False),
        ('{"swagger": "1.2", "paths": {}}', False),
        ("<html></html>", False),
        ("[1, 2]", False),
    ],
)
def test_only_openapi_3_and_swagger_2_are_specs(text: str, ok: bool) -> None:
    assert (parse_spec(text) is not None) is ok


def test_yaml_1_1_traps_stay_text() -> None:
    doc = parse_spec("openapi: 3.0.0\npaths: {}\nx-values: [yes, no, on, 2024-01-01, true]\n")
    assert doc is not None and doc["x-values"] == ["yes", "no", "on", "2024-01-01", True]


def test_discovery_stops_at_the_first_spec_and_never_contacts_servers() -> None:
    spec = {"openapi": "3.0.3", "paths": {}, "servers": [{"url": "http://prod.example/api"}]}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/schema/":
            return json_response(spec)
        return json_response({"detail": "Not found."}, 404)

    fake = Fake(handler)
    found = discover(ProbeClient(BASE, {}, transport=fake.transport))
    assert found is not None and found.upstream_path == "/api/schema/"
    assert found.found == "a well-known path; nothing linked one"
    asked = [path for _, path in fake.log]
    assert asked == list(WELL_KNOWN[: WELL_KNOWN.index("/api/schema/") + 1])


def test_a_given_file_is_read_and_a_bad_one_is_a_usage_error(tmp_path: Path) -> None:
    good = load_given(str(PAYLOADS / "drf-openapi.json"), None)
    assert good.source == "openapi" and good.upstream_path is None
    bad = tmp_path / "bad.yaml"
    bad.write_text("not: a spec\n")
    with pytest.raises(UsageError, match="not an OpenAPI 3 or Swagger 2 document"):
        load_given(str(bad), None)
    with pytest.raises(UsageError, match="cannot read"):
        load_given(str(tmp_path / "missing.json"), None)


def test_a_given_url_under_the_upstream_uses_the_prober_client() -> None:
    spec = json.loads((PAYLOADS / "drf-openapi.json").read_text())
    fake = Fake(lambda request: json_response(spec))
    client = ProbeClient(BASE, {"Authorization": "Token x"}, transport=fake.transport)
    found = load_given(BASE + "/api/schema/?format=json", client)
    assert found.upstream_path == "/api/schema/" and fake.log == [
        ("GET", "/api/schema/?format=json")
    ]


SWAGGER_YAML = "swagger: '2.0'\npaths: {}\nbasePath: /v2\n"
OPENAPI = {"openapi": "3.1.0", "paths": {}}


@dataclass(frozen=True)
class Linked:
    name: str
    base: str
    root: httpx.Response
    specs: dict[str, httpx.Response]
    location: str | None  # where the spec was read (None: not found)
    asked: list[str]  # every path asked, in order, after the root
    note: str | None = None


def _yaml(text: str) -> httpx.Response:
    return httpx.Response(200, text=text, headers={"Content-Type": "application/yaml"})


LINKED = [
    Linked("a Link header, YAML, Swagger 2", BASE,
           httpx.Response(200, json={}, headers={"Link": '</meta/api.yaml>; rel="service-desc"'}),
           {"/meta/api.yaml": _yaml(SWAGGER_YAML)}, "/meta/api.yaml", ["/meta/api.yaml"]),
    Linked("a JSON root naming it, under a prefix", BASE + "/shop/v1/",
           httpx.Response(200, json={"openapi": "/shop/v1/docs/openapi.json"}),
           {"/shop/v1/docs/openapi.json": httpx.Response(200, json=OPENAPI)},
           "/docs/openapi.json", ["/shop/v1/docs/openapi.json"]),
    Linked("an HTML home page's <link>, relative", BASE + "/app/",
           httpx.Response(200, html='<html><head><link rel="describedby" href="spec.json">'),
           {"/app/spec.json": httpx.Response(200, json=OPENAPI)}, "/spec.json",
           ["/app/spec.json"]),
    Linked("outside the base: never read, the well-known paths tried", BASE + "/api/",
           httpx.Response(200, json={}, headers={"Link": '</openapi.json>; rel="service-desc"'}),
           {"/openapi.json": httpx.Response(200, json=OPENAPI),
            "/api/openapi.json": httpx.Response(200, json=OPENAPI)},
           "/openapi.json", ["/api/openapi.json"],
           'spec: Link rel="service-desc" on / names /openapi.json, outside the upstream: not '
           "read (give it with --openapi)"),
    Linked("a link to something else: noted, then the well-known paths", BASE,
           httpx.Response(200, json={}, headers={"Link": '</schema.json>; rel="describedby"'}),
           {"/schema.json": httpx.Response(200, json={"type": "object"}),
            "/api/schema/": httpx.Response(200, json=OPENAPI)},
           "/api/schema/", ["/schema.json", "/openapi.json", "/api/schema/"],
           'spec: Link rel="describedby" on / names /schema.json: not an OpenAPI 3 or Swagger 2 '
           "document"),
]  # fmt: skip


@pytest.mark.parametrize("case", LINKED, ids=lambda c: c.name)
def test_discovery_follows_what_the_root_answer_links(case: Linked) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.rstrip("/") == httpx.URL(case.base).path.rstrip("/"):
            return case.root
        return case.specs.get(request.url.path, httpx.Response(404, json={}))

    fake = Fake(handler)
    client = ProbeClient(case.base, {}, transport=fake.transport)
    first = client.get("/")
    notes: list[str] = []
    found = discover(client, first, notes)
    assert (found.location if found else None) == case.location
    assert [path for _, path in fake.log[1:]] == case.asked
    assert notes == ([case.note] if case.note else [])
    if found is not None and case.note is None:
        assert found.found is not None and found.upstream_path == found.location


def test_a_spec_whose_routes_answer_404_here_is_passed_over() -> None:
    """A FastAPI app mounted under /api publishes a spec at the root without its
    `servers:`: its first plain GET route answers 404 there, and discovery goes on."""
    paths = {"/health": {"get": {}}, "/flows/{id}": {"get": {}}}
    root_spec = {"openapi": "3.1.0", "paths": paths}
    mounted_spec = {**root_spec, "servers": [{"url": "/api"}]}
    answers = {"/openapi.json": httpx.Response(200, json=root_spec),
               "/api/openapi.json": httpx.Response(200, json=mounted_spec),
               "/api/health": httpx.Response(200, json=True)}  # fmt: skip
    fake = Fake(lambda request: answers.get(request.url.path, httpx.Response(404, json={})))
    notes: list[str] = []
    found = discover(ProbeClient(BASE, {}, transport=fake.transport), None, notes)
    assert found is not None and found.location == "/api/openapi.json"
    assert notes == ["spec: /openapi.json: its GET /health answered 404 here: not this API's "
                     "description"]  # fmt: skip
    asked = [path for _, path in fake.log]
    assert asked[:2] == ["/openapi.json", "/health"] and asked[-1] == "/api/health"


SWAGGER_UI = """<!DOCTYPE html><html><body><div id="swagger-ui"></div><script>
const ui = SwaggerUIBundle({
    url: '/api/v3/spec.json',
    "dom_id": "#swagger-ui",
})</script></body></html>"""


def test_a_docs_page_names_the_spec_when_nothing_else_does() -> None:
    """Swagger UI's `url:` (FastAPI's docs page) names a spec at no well-known path."""
    spec = {"openapi": "3.1.0", "paths": {}}
    answers = {"/api/docs": httpx.Response(200, html=SWAGGER_UI),
               "/api/v3/spec.json": httpx.Response(200, json=spec)}  # fmt: skip
    fake = Fake(lambda request: answers.get(request.url.path, httpx.Response(404, json={})))
    found = discover(ProbeClient(BASE, {}, transport=fake.transport), None, [])
    assert found is not None and found.location == "/api/v3/spec.json"
    assert found.found == "named by the docs page /api/docs"
    asked = [path for _, path in fake.log]
    assert asked[-3:] == ["/docs", "/api/docs", "/api/v3/spec.json"]
