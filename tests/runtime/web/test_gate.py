"""The serve gate: a mapping is served only with a fresh stamp from `a2map verify`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx

from tests.fixtures.runtime import KANBAN_DRF, GrantSpec, start_runtime
from tests.fixtures.servers import KanbanServer, start_kanban

TOKEN = "a2app_gate_token"
AUTH = {"x-a2app-token": TOKEN}
GRANTS = (GrantSpec("cred_gate", "gate", ("*",), TOKEN),)
CARD_LISTING = re.compile(r"GET /api/cards/\?(\S*)")


def a2map(*args: str, upstream: KanbanServer, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KANBAN_URL": upstream.url, "KANBAN_TOKEN": upstream.token,
           "A2APP_HOME": str(cwd / "state")}  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "mapper", *args], capture_output=True, text=True, env=env,
        cwd=cwd, timeout=180,
    )  # fmt: skip


def copy_mapping(tmp_path: Path) -> Path:
    target = tmp_path / "kanban-drf.yaml"
    shutil.copy(KANBAN_DRF, target)
    return target


def test_serve_refuses_a_mapping_without_a_stamp(tmp_path: Path) -> None:
    mapping = copy_mapping(tmp_path)
    with start_kanban() as upstream:
        result = a2map("serve", str(mapping), "--port", "0", upstream=upstream, cwd=tmp_path)
    assert result.returncode == 2
    assert f"a2map verify {mapping}" in result.stderr and "--allow-unverified" in result.stderr


def test_verified_mapping_is_served_with_its_proven_pushdowns(tmp_path: Path) -> None:
    mapping = copy_mapping(tmp_path)
    with start_kanban(seed="rich", extra_args=("--verbose",)) as upstream:
        verified = a2map("verify", str(mapping), upstream=upstream, cwd=tmp_path)
        assert verified.returncode == 0, verified.stdout + verified.stderr
        with start_runtime(mapping, upstream, grants=GRANTS, verified=True) as rt:
            identity = httpx.get(rt.url + "/api/_a2app").json()
            assert "verified" not in identity
            before = len(CARD_LISTING.findall(upstream.stderr_tail(1 << 30)))
            params = {"filter": 'priority = "high"', "perPage": "7"}
            url = rt.url + "/api/collections/cards/records"
            page = httpx.get(url, params=params, headers=AUTH).json()
            asked = CARD_LISTING.findall(upstream.stderr_tail(1 << 30))[before:]
            # proven: the upstream was asked for exactly this page, not scanned
            assert asked and "page_size=7" in asked[0] and "priority=high" in asked[0]
            assert len(page["items"]) == 7 and all(c["priority"] == "high" for c in page["items"])


def test_a_new_port_or_token_keeps_the_stamp_an_edit_does_not(tmp_path: Path) -> None:
    mapping = copy_mapping(tmp_path)
    with start_kanban() as first:
        assert a2map("verify", str(mapping), upstream=first, cwd=tmp_path).returncode == 0
    with start_kanban() as second, start_runtime(mapping, second, verified=True) as rt:
        assert httpx.get(rt.url + "/api/_a2app").status_code == 200
    mapping.write_text(mapping.read_text().replace("max: 200", "max: 199"))
    with start_kanban() as third:
        result = a2map("serve", str(mapping), "--port", "0", upstream=third, cwd=tmp_path)
    assert result.returncode == 2 and "another version of the mapping" in result.stderr


def test_a_read_only_stamp_serves_reads_only(tmp_path: Path) -> None:
    mapping = copy_mapping(tmp_path)
    with start_kanban() as upstream:
        # Reads alone cannot split the seed's lists by board: partly verified, stamped.
        verified = a2map("verify", str(mapping), "--read-only", upstream=upstream, cwd=tmp_path)
        assert verified.returncode == 1 and "PARTLY VERIFIED" in verified.stdout
        with start_runtime(mapping, upstream, grants=GRANTS, verified=True) as rt:
            assert httpx.get(rt.url + "/api/_a2app").json()["verified"] == "reads"
            assert (
                httpx.get(rt.url + "/api/collections/cards/records", headers=AUTH).status_code
                == 200
            )
            write = httpx.post(
                rt.url + "/api/collections/cards/records", json={"title": "x"}, headers=AUTH
            )
            assert (write.status_code, write.json()["code"]) == (403, "writes_not_verified")
            op = httpx.post(
                rt.url + "/api/ops/finish-card", json={"card": "card_seed"}, headers=AUTH
            )
            assert op.json()["code"] == "writes_not_verified"
            assert (
                httpx.post(rt.url + "/api/ops/count-finished", json={}, headers=AUTH).status_code
                == 200
            )


def test_allow_unverified_says_so(tmp_path: Path) -> None:
    with start_kanban() as upstream, start_runtime(KANBAN_DRF, upstream) as rt:
        assert httpx.get(rt.url + "/api/_a2app").json()["verified"] is False
        assert "UNVERIFIED" in rt.stderr()


def _upstream(server: KanbanServer, path: str) -> httpx.Response:
    """The upstream's own answer, read directly (page_size covers the whole sample)."""
    return httpx.get(f"{server.url}{path}", params={"page_size": 1000}, headers=server.headers)


def _refusing_variant(tmp_path: Path) -> Path:
    """The sample's mapping with three claims the sample disproves, one of each kind."""
    mapping = copy_mapping(tmp_path)
    text = mapping.read_text()
    edits = [
        # boards.archived is optional upstream: writes to boards are refused
        ("archived: {type: boolean,", "archived: {type: boolean, required: true,"),
        # django-filter ignores a name it does not know: this pushdown is refused
        ('name: {"=": name, "~": name__icontains}\n    sort: {param: ordering, desc: "-", '
         "fields: [id, name]}",
         'name: {"=": name, "~": name__bogus}\n    sort: {param: ordering, desc: "-", '
         "fields: [id, name]}"),
        # cards store booleans in `done`: cards' reads are refused, and finish-card with them
        ("done: {type: boolean,", "done: {type: datetime,"),
    ]  # fmt: skip
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    mapping.write_text(text)
    return mapping


def test_a_partial_stamp_serves_the_proven_part_and_names_what_it_refused(
    tmp_path: Path,
) -> None:
    mapping = _refusing_variant(tmp_path)
    with start_kanban(seed="rich") as upstream:
        verified = a2map("verify", str(mapping), upstream=upstream, cwd=tmp_path)
        assert verified.returncode == 1, verified.stdout + verified.stderr
        assert "partly verified: stamp written for the proven part" in verified.stdout
        with start_runtime(mapping, upstream, grants=GRANTS, verified=True) as rt:
            assert httpx.get(rt.url + "/api/_a2app").json()["verified"] == "partial"
            assert "entity cards: not served" in rt.stderr()
            assert "entities.boards.fields.archived.required" in rt.stderr()

            cards = httpx.get(rt.url + "/api/collections/cards/records", headers=AUTH)
            assert (cards.status_code, cards.json()["code"]) == (404, "unknown_entity")
            assert any(c.startswith("entities.cards.fields.done") for c in
                       cards.json()["refusedClaims"])  # fmt: skip
            op = httpx.post(rt.url + "/api/ops/finish-card", json={"card": "x"}, headers=AUTH)
            assert op.json()["code"] == "unknown_operation"
            board = httpx.get(rt.url + "/api/_a2app/describe/board", headers=AUTH).json()
            assert [e["name"] for e in board["entities"]] == ["boards", "lists"]

            write = httpx.post(
                rt.url + "/api/collections/boards/records",
                json={"name": "x", "archived": False},
                headers=AUTH,
            )
            assert (write.status_code, write.json()["code"]) == (403, "writes_not_verified")
            assert write.json()["refusedClaims"] == ["entities.boards.fields.archived.required"]
            boards = _upstream(upstream, "/api/boards/").json()["results"]
            assert "x" not in {b["name"] for b in boards}  # nothing reached the upstream

            created = httpx.post(
                rt.url + "/api/collections/lists/records",
                json={"title": "Partly", "board": boards[0]["id"]},
                headers=AUTH,
            )
            assert created.status_code == 200, created.text
            stored = _upstream(upstream, f"/api/lists/{created.json()['id']}/").json()
            assert stored["title"] == "Partly"

            # the refused `~` is evaluated here, not pushed down, and answers right
            query = {"filter": 'name ~ "bu"', "perPage": "50"}
            tags = httpx.get(rt.url + "/api/collections/tags/records", params=query, headers=AUTH)
            every = _upstream(upstream, "/api/tags/").json()["results"]
            expected = {t["id"] for t in every if "bu" in t["name"].lower()}
            assert expected and {t["id"] for t in tags.json()["items"]} == expected
