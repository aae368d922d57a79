"""The docs read as data: fenced blocks with their markers, tables, links and anchors."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

_FENCE = re.compile(r"^(`{3,})([\w+-]*)\s*$")
_MARKER = re.compile(r"^<!--\s*(.*?)\s*-->$")
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


@dataclass(frozen=True)
class Block:
    """A fenced code block; `marker` is the HTML comment on the line before it, if any."""

    lang: str
    marker: str | None
    text: str
    line: int

    def commands(self) -> list[str]:
        """Shell commands: continuation lines joined, comments and blank lines left out."""
        out: list[str] = []
        pending = ""
        for raw in self.text.splitlines():
            line = pending + raw
            if line.endswith("\\"):
                pending = line[:-1] + " "
                continue
            pending = ""
            if line.strip() and not line.lstrip().startswith("#"):
                out.append(line.strip())
        return out


def fenced_blocks(text: str) -> list[Block]:
    blocks: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opened = _FENCE.match(lines[i])
        if opened is None:
            i += 1
            continue
        before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        marker = _MARKER.match(before.strip())
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith(opened.group(1)))
        body = "\n".join(lines[i + 1 : end])
        blocks.append(Block(opened.group(2), marker.group(1) if marker else None, body, i + 1))
        i = end + 1
    return blocks


def prose(text: str) -> str:
    """The text without its fenced blocks (links and headings inside code are not real)."""
    kept, inside = [], ""
    for line in text.splitlines():
        fence = _FENCE.match(line)
        if fence and (not inside or line.startswith(inside)):
            inside = "" if inside else fence.group(1)
            kept.append("")
            continue
        kept.append("" if inside else line)
    return "\n".join(kept)


def tables(text: str) -> list[list[list[str]]]:
    """Every pipe table as rows of cells, the header row first, the separator dropped."""
    found: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*prose(text).splitlines(), ""]:
        if line.startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                current.append(cells)
        elif current:
            found.append(current)
            current = []
    return found


def links(text: str) -> list[str]:
    return _LINK.findall(prose(text))


def anchors(text: str) -> set[str]:
    """GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens."""
    out = set()
    for line in prose(text).splitlines():
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            title = re.sub(r"[^\w\- ]", "", heading.group(1).lower())
            out.add(title.replace(" ", "-"))
    return out
