"""`--write-corrected`: fixes applied to a copy, comments and layout kept."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from mapper.verify import Correction, corrected_text
from mapper.verify._writing import read_only_now
from runtime.mapping import check_text, load_mapping_text

ROOT = Path(__file__).resolve().parents[3]
TEXT = (ROOT / "mappings" / "kanban-drf.yaml").read_text()

CASES = [
    (
        Correction(("entities", "cards", "filter", "due", "<"), "remove"),
        '      due: {"=": due, "<": due__lt,',
        '      due: {"=": due, "<=": due__lte,',
    ),
    (
        Correction(("entities", "tags", "filter", "name", "~"), "remove"),
        '      name: {"=": name, "~": name__icontains}\n    sort: {param: ordering, desc: "-", '
        "fields: [id, name]}",
        '      name: {"=": name}\n',
    ),
    (
        Correction(("entities", "cards", "sort", "fields"), "remove-item", "done"),
        "fields: [id, title, priority, due, done, created]",
        "fields: [id, title, priority, due, created]",
    ),
    (
        Correction(("entities", "lists", "fields", "board", "upstreamOnDelete"), "set", "cascade"),
        "upstreamOnDelete: set-null, evidence: [openapi, lookup]}\n    filter:\n      id: "
        '{"=": id}\n      title: {"=": title, "~": title__icontains}\n      position',
        "upstreamOnDelete: cascade,",
    ),
    (
        Correction(("entities", "tags", "write", "delete"), "set", False),
        "",
        "    write:\n      delete: false\n",
    ),
]


@pytest.mark.parametrize(("fix", "before", "after"), CASES, ids=lambda c: str(c)[:40])
def test_each_correction_changes_only_its_place(fix: Correction, before: str, after: str) -> None:
    assert before in TEXT
    text, missed = corrected_text(TEXT, [fix])
    assert not missed and after in text
    assert text.startswith("# yaml-language-server")  # comments survive
    _, problems = check_text(text)
    assert not problems
    diff = difflib.ndiff(TEXT.splitlines(), text.splitlines())
    assert len([line for line in diff if line[:1] in "+-"]) <= 2


def test_no_correction_is_the_file_itself() -> None:
    assert corrected_text(TEXT, []) == (TEXT, [])


def test_a_correction_that_no_longer_fits_is_reported() -> None:
    fix = Correction(("entities", "cards", "filter", "nothing", "="), "remove")
    _, missed = corrected_text(TEXT, [fix])
    assert missed == [fix]


@pytest.mark.parametrize("key", ["createOnly", "updateOnly", "writeOnly"])
def test_a_field_the_upstream_drops_becomes_read_only_and_the_copy_still_loads(key: str) -> None:
    """`readOnly` set where a key it excludes was: the key goes too."""
    text = TEXT.replace("      due: {type: string,", f"      due: {{{key}: true, type: string,", 1)
    assert text != TEXT and not check_text(text)[1]
    entity = load_mapping_text(text, resolve_env=False).entities["cards"]
    fixed, missed = corrected_text(text, read_only_now(entity, "due"))
    assert missed == [] and check_text(fixed)[1] == []
    assert key not in fixed.split("      due:")[1].split("\n")[0]
