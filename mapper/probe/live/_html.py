"""What an HTML answer links to: ``<link rel href>`` and ``<a href>``, in document order.

The prober reads HTML only for its links (a home page naming its collections, a
``<link rel="service-desc">`` naming the spec); nothing else of a page is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser

# A page larger than this is read only this far: links are near the top of real pages.
MAX_LINKS = 500


@dataclass(frozen=True, slots=True)
class HtmlLink:
    tag: str  # link | a
    href: str
    rels: frozenset[str]
    text: str = ""


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[HtmlLink] = []
        self._open: tuple[str, frozenset[str]] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ("a", "link") or len(self.found) >= MAX_LINKS:
            return
        if tag == "a":
            self.flush()  # an anchor ends where the next begins
        values = {name.lower(): value or "" for name, value in attrs}
        href = values.get("href", "").strip()
        rels = frozenset(values.get("rel", "").lower().split())
        if not href or href.startswith(("#", "javascript:", "mailto:", "tel:", "data:")):
            return
        if tag == "link":
            self.found.append(HtmlLink("link", href, rels))
        else:
            self._open, self._text = (href, rels), []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self.flush()

    def flush(self) -> None:
        """Record the anchor still open (its end tag may never come)."""
        if self._open is not None:
            href, rels = self._open
            self.found.append(HtmlLink("a", href, rels, " ".join("".join(self._text).split())))
            self._open = None


def html_links(text: str) -> list[HtmlLink]:
    """Every ``<link>`` and ``<a>`` with an href that names a resource, in order."""
    parser = _Links()
    try:
        parser.feed(text)
        parser.close()
    except (AssertionError, ValueError):  # html.parser on badly broken markup
        pass
    parser.flush()
    return parser.found
