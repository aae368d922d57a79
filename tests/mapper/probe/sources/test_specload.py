"""Finding and reading the API's own description; servers: are never contacted."""

from __future__ import annotations

import json
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
