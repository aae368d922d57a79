"""Every link of README.md and docs/*.md resolves, anchors included; named repo paths exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .markdown import DOCS, ROOT, anchors, fenced_blocks, links, prose

PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
_REPO_PATH = re.compile(r"`((?:runtime|mapper|tests|docs|samples|mappings|bench)/[^`\s]*)`")


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_link_resolves(page: Path) -> None:
    for link in links(page.read_text()):
        if re.match(r"[a-z]+:", link):
            continue  # another site: not fetched by tests
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        assert path.exists(), f"{_name(page)}: {link}"
        assert path.is_relative_to(ROOT), f"{_name(page)}: {link} leaves the repository"
        if anchor:
            assert path.suffix == ".md", f"{_name(page)}: {link}"
            assert anchor in anchors(path.read_text()), f"{_name(page)}: {link}: no such heading"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_repository_path_named_exists(page: Path) -> None:
    for named in _REPO_PATH.findall(prose(page.read_text())):
        # globs and placeholders name many files; stamps are build outputs
        if re.search(r"[*<{]", named) or named.endswith(".verified.json"):
            continue
        assert (ROOT / named.split(":")[0]).exists(), f"{_name(page)}: {named}"


def test_the_readme_has_its_two_commands_and_links_every_doc() -> None:
    text = (ROOT / "README.md").read_text()
    assert [b.text for b in fenced_blocks(text)] == ["make demo", "make test"]
    linked = {link.partition("#")[0] for link in links(text)}
    assert {_name(page) for page in PAGES[1:]} <= linked
