"""One collection observed: its id key, and the detail route a sampled record is read at."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
import pytest

from mapper.probe.decide._observe import observe, read_detail
from mapper.probe.live import ProbeClient

from ..fakes import BASE, Fake, json_response

Routes = Mapping[str, Any]


def _observed(routes: Routes, path: str = "/api/things") -> tuple[Any, Fake]:
    def handler(request: httpx.Request) -> httpx.Response:
        found = routes.get(request.url.path)
        return json_response(found) if found is not None else httpx.Response(404)

    fake = Fake(handler)
    client = ProbeClient(BASE, {}, transport=fake.transport)
    obs = observe(client, "things", path, None)
    read_detail(client, obs, path + "/{id}")
    return obs, fake


PROJECTS = [{"slug": "apollo", "name": "Apollo"}, {"slug": "gemini", "name": "Gemini"}]
THINGS = [{"id": 7, "title": "a", "url": f"{BASE}/api/thing/7.json"}, {"id": 8, "title": "b",
          "url": f"{BASE}/api/thing/8.json"}]  # fmt: skip
PLAIN = [{"id": 7, "title": "a"}, {"id": 8, "title": "b"}]


@pytest.mark.parametrize(
    ("name", "routes", "ident", "client", "detail", "why"),
    [
        ("the given route", {"/api/things": PLAIN, "/api/things/7": PLAIN[0]}, "id", False,
         "/api/things/{id}", None),
        ("a natural key read by it", {"/api/things": PROJECTS, "/api/things/apollo": PROJECTS[0]},
         "slug", True, "/api/things/{id}", "no id key: records are named by their 'slug'"),
        ("a natural key nothing reads by", {"/api/things": PROJECTS}, None, False, None, None),
        ("the record's own link", {"/api/things": THINGS, "/api/thing/7.json": THINGS[0]}, "id",
         False, "/api/thing/{id}.json", "the records' 'url' names their detail route"),
        ("a .json suffix", {"/api/things": PLAIN, "/api/things/7.json": PLAIN[0]}, "id", False,
         "/api/things/{id}.json", "the detail route takes a .json format suffix"),
        ("no route answers", {"/api/things": PLAIN}, "id", False, None, None),
    ],
)  # fmt: skip
def test_the_id_and_the_detail_route_are_confirmed_by_a_read(
    name: str, routes: Routes, ident: str | None, client: bool, detail: str | None,
    why: str | None,
) -> None:  # fmt: skip
    obs, fake = _observed(routes)
    assert (obs.id_source, obs.id_client, obs.detail_path) == (ident, client, detail), name
    details = [e.detail or "" for e in obs.evidence]
    if detail is not None:
        assert f"GET {detail} answers the sampled record" in details
    if why is not None:
        assert any(d.startswith(why) for d in details), details
    assert fake.methods() <= {"GET", "OPTIONS"}


def test_the_given_route_is_read_once_when_it_answers() -> None:
    _, fake = _observed({"/api/things": PLAIN, "/api/things/7": PLAIN[0]})
    gets = [p for m, p in fake.log if m == "GET"]
    assert gets == ["/api/things", "/api/things/7"]


def test_a_link_outside_the_upstream_is_never_followed() -> None:
    things = [{**t, "url": f"http://elsewhere.test/api/thing/{t['id']}"} for t in PLAIN]
    obs, fake = _observed({"/api/things": things, "/api/things/7.json": things[0]})
    assert obs.detail_path == "/api/things/{id}.json"
    assert all("elsewhere" not in p for _, p in fake.log)
