"""docs/examples/verify-mappings.sh, the CI recipe of docs/verify.md, on the Django sample."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from runtime.mapping import load_stamp
from tests.fixtures.servers import KanbanServer, start_kanban

from .markdown import DOCS, ROOT

RECIPE = DOCS / "examples" / "verify-mappings.sh"
SOURCE = ROOT / "mappings" / "kanban-drf.yaml"


def _variant(kind: str, directory: Path) -> Path:
    """`good` is the checked-in mapping; `broken` declares a stored number as a boolean;
    `unset` names a variable no environment sets."""
    text = SOURCE.read_text()
    if kind == "broken":
        text = text.replace("position: {type: number,", "position: {type: boolean,")
    elif kind == "unset":
        text = text.replace("${KANBAN_URL:-http://127.0.0.1:8000}", "${NOWHERE_URL}")
    assert kind == "good" or text != SOURCE.read_text()
    path = directory / f"{kind}.yaml"
    path.write_text(text)
    return path


@dataclass(frozen=True)
class Case:
    name: str
    mappings: tuple[str, ...]  # given as arguments; empty: found in mappings/
    read_only: bool
    exit: int
    # per mapping, what its JUnit file shows: verified, refused or unverifiable
    junit: tuple[tuple[str, str], ...]


CASES = [
    Case("one mapping found and verified", (), False, 0, (("good", "verified"),)),
    Case(
        "a refused mapping fails the job",
        ("good", "broken"),
        True,
        1,
        (("good", "verified"), ("broken", "refused")),
    ),
    Case(
        "a mapping that cannot be verified fails it harder, and the rest still run",
        ("unset", "broken", "good"),
        True,
        2,
        (("unset", "unverifiable"), ("broken", "refused"), ("good", "verified")),
    ),
]


def _junit_outcome(path: Path) -> str:
    suite = ET.parse(path).getroot().find("testsuite")
    assert suite is not None
    if int(suite.get("failures", "0")):
        return "refused"  # a claim the upstream disproved
    if suite.get("tests") == "1" and suite.find("testcase/error") is not None:
        return "unverifiable"  # the recipe's own entry: verify stopped before any claim
    return "verified" if suite.get("errors") == "0" else "errors"


@pytest.fixture(scope="module")
def sample() -> Iterator[KanbanServer]:
    # every run removes what it wrote, so the cases can share one sample
    with start_kanban() as server:
        yield server


def _run(cwd: Path, server: KanbanServer, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "REPORTS"}
    env.update(
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
        PYTHONPATH=str(ROOT),
        KANBAN_URL=server.url,
        KANBAN_TOKEN=server.token,
    )
    return subprocess.run(
        ["bash", str(RECIPE), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.timeout(300)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_recipe_exits_and_reports_as_documented(
    case: Case, sample: KanbanServer, tmp_path: Path
) -> None:
    found = tmp_path / "mappings"
    found.mkdir()
    if case.mappings:
        args = [str(_variant(kind, tmp_path).relative_to(tmp_path)) for kind in case.mappings]
    else:
        _variant("good", found)
        args = []
    done = _run(tmp_path, sample, *(["--read-only"] if case.read_only else []), *args)
    assert done.returncode == case.exit, done.stdout + done.stderr
    where = tmp_path if case.mappings else found
    for name, outcome in case.junit:
        assert _junit_outcome(tmp_path / "reports" / f"{name}.junit.xml") == outcome, name
        stamp = load_stamp(where / f"{name}.verified.json")
        # refused: a partial stamp of the proven part (`broken` withholds lists, and cards)
        assert (stamp is not None) == (outcome in ("verified", "refused")), name
        assert stamp is None or stamp.partial == (outcome == "refused"), name
        assert stamp is None or stamp.read_only == case.read_only
    assert sample.token not in done.stdout + done.stderr


def test_no_mapping_at_all_is_a_usage_error(sample: KanbanServer, tmp_path: Path) -> None:
    done = _run(tmp_path, sample)
    assert done.returncode == 2 and "no mapping given" in done.stderr
    assert not (tmp_path / "reports").exists()


def test_the_verify_doc_names_the_recipe_by_its_path() -> None:
    text = (DOCS / "verify.md").read_text()
    assert "docs/examples/verify-mappings.sh" in text
    assert "ci/verify-mappings.sh" not in text
