"""Prose from a spec as plain text: descriptions often carry HTML (``<p>…</p>``)."""

from __future__ import annotations

import html
import re

_TAG = re.compile(r"</?([A-Za-z][A-Za-z0-9]*)(?:\s[^<>]*)?/?>")
# Tags that separate words; the others (a, code, strong, …) sit inside a sentence.
_BLOCK = frozenset(
    {"p", "br", "div", "li", "ul", "ol", "tr", "td", "th", "table", "h1", "h2", "h3", "h4",
     "h5", "h6", "pre", "blockquote", "hr", "dd", "dt", "dl", "section"}
)  # fmt: skip


def _gap(match: re.Match[str]) -> str:
    return " " if match.group(1).lower() in _BLOCK else ""


def plain(text: object) -> str | None:
    """`text` without HTML tags or entities, its whitespace collapsed; None when empty."""
    if not isinstance(text, str):
        return None
    found = " ".join(html.unescape(_TAG.sub(_gap, text)).split())
    return found or None
