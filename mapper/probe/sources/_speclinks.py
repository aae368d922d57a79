"""Where an API says its own description is, before any path is guessed.

RFC 8631 ``Link`` headers (``rel="service-desc"``, ``rel="describedby"``) on the
root answer; in a JSON root, a value under a key or at a path that names a spec
(``{"openapi": "/openapi.yaml"}``, ``links: {describedby: {href}}``); in an HTML
root, ``<link rel="service-desc|describedby" href>`` and ``<a href>`` pointing at
an OpenAPI or Swagger document. Each candidate says why it was taken, for the
probe's notes; whether it is a spec is for the document itself to say.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..live import html_links

if TYPE_CHECKING:
    from ..live import Exchange

SPEC_RELS = ("service-desc", "describedby")
# A key or a path that names a spec, and a document's suffix.
_NAMES_SPEC = re.compile(
    r"openapi|swagger|api[-_]?docs|service[-_]desc|describedby|api[-_]?spec|spec(?:ification)?$|schema$",
    re.IGNORECASE,
)
_SPEC_PATH = re.compile(r"openapi|swagger|api[-_]?docs", re.IGNORECASE)
_DEPTH = 3


@dataclass(frozen=True, slots=True)
class SpecLink:
    href: str
    why: str


def _header_links(answer: Exchange) -> Iterator[SpecLink]:
    for key, link in answer.links.items():
        rels = set(str(link.get("rel", key)).lower().split())
        for rel in SPEC_RELS:
            if rel in rels and link.get("url"):
                yield SpecLink(link["url"], f'Link rel="{rel}" on {answer.path}')
                break


def _looks_like_href(value: str) -> bool:
    return value.startswith(("/", "http://", "https://", "./")) and " " not in value


def _json_links(node: Any, path: tuple[str, ...] = ()) -> Iterator[SpecLink]:
    if len(path) > _DEPTH:
        return
    if isinstance(node, Mapping):
        for key, value in node.items():
            here = (*path, str(key))
            href = value.get("href") if isinstance(value, Mapping) else value
            if isinstance(href, str) and _looks_like_href(href):
                named = _NAMES_SPEC.search(str(key)) or _SPEC_PATH.search(href)
                if named:
                    yield SpecLink(href, f"the root answer's {'.'.join(here)}")
                    continue
            yield from _json_links(value, here)
    elif isinstance(node, list):
        for index, value in enumerate(node[:50]):
            yield from _json_links(value, (*path, str(index)))


def _html_links(answer: Exchange) -> Iterator[SpecLink]:
    links = html_links(answer.text or "")
    for link in links:
        rel = next((r for r in SPEC_RELS if r in link.rels), None)
        if link.tag == "link" and rel is not None:
            yield SpecLink(link.href, f'<link rel="{rel}"> in {answer.path}')
    for link in links:
        target = link.href.split("?", 1)[0].split("#", 1)[0]
        # A path naming a spec, or a document the link's text calls one.
        document = target.endswith((".json", ".yaml", ".yml")) and _NAMES_SPEC.search(link.text)
        if link.tag == "a" and (_SPEC_PATH.search(target) or document):
            yield SpecLink(link.href, f"<a href> in {answer.path}")


def spec_links(answer: Exchange) -> list[SpecLink]:
    """Every place the answer names for a spec, most explicit first, each href once."""
    found = [*_header_links(answer)]
    if answer.kind == "json":
        found.extend(_json_links(answer.body))
    elif answer.kind == "html":
        found.extend(_html_links(answer))
    seen: set[str] = set()
    unique = []
    for link in found:
        if link.href not in seen:
            seen.add(link.href)
            unique.append(link)
    return unique
