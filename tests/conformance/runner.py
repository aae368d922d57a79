"""A port of the A2App conformance runner's assertion rules, for any A2App URL.

python -m tests.conformance URL --full TOKEN --readonly TOKEN [--only 1-9,12]
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

SUITE = Path(__file__).with_name("class_a.yaml")
_VAR = re.compile(r"\$\{(\w+)\}")
_MISSING = object()


@dataclass(frozen=True)
class Check:
    n: int
    name: str
    request: dict[str, Any]
    expect: dict[str, Any]
    save: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Result:
    check: Check
    failures: tuple[str, ...]
    status: int | None
    body: Any

    @property
    def ok(self) -> bool:
        return not self.failures


def load_suite(path: Path = SUITE) -> list[Check]:
    doc = yaml.safe_load(path.read_text())
    return [
        Check(c["n"], c["name"], c["request"], c["expect"], c.get("save", {}))
        for c in doc["checks"]
    ]


def select(checks: list[Check], only: str | None) -> list[Check]:
    """`1-9,12,25` picks checks by number, keeping suite order."""
    if not only:
        return checks
    wanted: set[int] = set()
    for part in only.split(","):
        low, _, high = part.partition("-")
        wanted.update(range(int(low), int(high or low) + 1))
    return [c for c in checks if c.n in wanted]


def _interpolate(value: Any, variables: dict[str, Any]) -> Any:
    if isinstance(value, str):
        return _VAR.sub(lambda m: str(variables.get(m.group(1), m.group(0))), value)
    if isinstance(value, dict):
        return {k: _interpolate(v, variables) for k, v in value.items()}
    if isinstance(value, list):
        return [_interpolate(v, variables) for v in value]
    return value


def at(body: Any, path: str) -> Any:
    node = body
    for part in path.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return _MISSING
    return node


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def assess(expect: dict[str, Any], status: int, body: Any, raw: str) -> list[str]:
    failures = []
    if "status" in expect and status != expect["status"]:
        failures.append(f"status {status}, expected {expect['status']}")
    for path, want in expect.get("match", {}).items():
        got = at(body, path)
        if got is _MISSING or not _same(got, want):
            failures.append(f"{path} = {None if got is _MISSING else got!r}, expected {want!r}")
    for path in expect.get("has", []):
        if at(body, path) in (_MISSING, None):
            failures.append(f"{path} missing")
    for path in expect.get("absent", []):
        if at(body, path) not in (_MISSING, None):
            failures.append(f"{path} present")
    for path, n in expect.get("len", {}).items():
        got = at(body, path)
        if not isinstance(got, list) or len(got) != n:
            failures.append(
                f"len({path}) = {len(got) if isinstance(got, list) else got!r}, expected {n}"
            )
    if "maxChars" in expect:
        size = (
            len(json.dumps(body, separators=(",", ":"), ensure_ascii=False))
            if body is not None
            else len(raw)
        )
        if size > expect["maxChars"]:
            failures.append(f"{size} chars, budget {expect['maxChars']}")
    return failures


def run(
    checks: Iterable[Check], base_url: str, tokens: dict[str, str], timeout: float = 30.0
) -> list[Result]:
    variables: dict[str, Any] = {}
    results = []
    with httpx.Client(base_url=base_url, timeout=timeout) as client:
        for check in checks:
            req = _interpolate(check.request, variables)
            headers = {"content-type": "application/json"}
            if req.get("token"):
                headers["x-a2app-token"] = tokens[req["token"]]
            if "origin" in req:
                headers["origin"] = req["origin"]
            headers.update(req.get("headers", {}))
            content = json.dumps(req["body"]) if "body" in req else None
            try:
                response = client.request(
                    req["method"],
                    req["path"],
                    params=req.get("query"),
                    headers=headers,
                    content=content,
                )
            except httpx.HTTPError as exc:
                results.append(Result(check, (f"request failed: {exc!r}",), None, None))
                continue
            try:
                body = response.json()
            except ValueError:
                body = None
            expect = _interpolate(check.expect, variables)
            failures = assess(expect, response.status_code, body, response.text)
            if not failures:
                for var, path in check.save.items():
                    variables[var] = at(body, path)
            results.append(Result(check, tuple(failures), response.status_code, body))
    return results
