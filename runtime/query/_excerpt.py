"""The `:excerpt(max, withEllipsis)` fields modifier: HTML to a short plain-text summary."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

_EXCLUDED = frozenset((
    "head", "style", "script", "iframe", "embed", "applet", "object", "svg", "img", "picture",
    "dialog", "template", "button", "form", "textarea", "input", "select", "option",
))  # fmt: skip
_INLINE = frozenset((
    "a", "abbr", "acronym", "b", "bdo", "big", "br", "button", "cite", "code", "em", "i",
    "label", "q", "small", "span", "strong", "strike", "sub", "sup", "time",
))  # fmt: skip
_VOID = frozenset((
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
    "source", "track", "wbr",
))  # fmt: skip
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Excerpt:
    max_length: int
    ellipsis: bool = False

    def apply(self, value: object) -> object:
        """Strings become plain text of at most `max_length` characters; others pass through."""
        if not isinstance(value, str):
            return value
        text = _plain_text(value).strip()
        if len(text) > self.max_length:
            text = text[: self.max_length].strip() + ("..." if self.ellipsis else "")
        return text


class _Text(HTMLParser):
    """Collects text, skipping excluded elements and spacing around block elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.spaced = False
        self.skipping: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skipping or tag in _EXCLUDED:
            if tag not in _VOID:
                self.skipping.append(tag)
            return
        self._block_space(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.skipping:
            if tag in self.skipping:
                while self.skipping.pop() != tag:
                    pass
            return
        self._block_space(tag)

    def handle_data(self, data: str) -> None:
        if self.skipping:
            return
        text = _SPACES.sub(" ", data)
        if self.spaced:
            text = text.lstrip(" ")
        if text:
            self.spaced = text.endswith(" ")
            self.parts.append(text)

    def _block_space(self, tag: str) -> None:
        if tag not in _INLINE and not self.spaced:
            self.parts.append(" ")
            self.spaced = True


def _plain_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)
