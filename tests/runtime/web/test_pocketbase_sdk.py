"""The official PocketBase JS SDK (npm `pocketbase`, installed by samples/setup.sh), run by
Node, reads and writes the Django sample's cards through the runtime: the SDK needs nothing
but the agent token added by `beforeSend` (docs/pocketbase-sdk.md)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from samples.stacks_common.launch import cache_root
from tests.fixtures.runtime import KANBAN_DRF, GrantSpec, RuntimeServer, start_runtime
from tests.fixtures.servers import start_kanban

SDK_VERSION = "0.28.1"
SDK = cache_root() / f"pocketbase-{SDK_VERSION}" / "node_modules" / "pocketbase"
TOKEN = "a2app_pocketbase_sdk_token"

# The steps print one JSON line each; the test reads them back in order.
SCRIPT = """
import PocketBase from "pocketbase";

const [url, token] = process.argv.slice(2);
const pb = new PocketBase(url);
pb.autoCancellation(false);
pb.beforeSend = (url, options) => {
  options.headers = { ...options.headers, "X-A2App-Token": token };
  return { url, options };
};
const out = (step, value) => console.log(JSON.stringify({ step, value }));
const cards = pb.collection("cards");

try {
  out("filtered", await cards.getList(1, 5, { filter: 'done = false && priority = "high"',
                                              sort: "-due,title" }));
  out("expanded", await cards.getList(1, 3, { expand: "list,tags", sort: "title" }));
  const some = await cards.getList(1, 50, { filter: 'list != ""' });
  const tagged = some.items.find((c) => c.tags.length > 0) ?? some.items[0];
  out("one", await cards.getOne(tagged.id, { expand: "list.board,tags" }));
  const created = await cards.create({ title: "from the SDK", priority: "low", list: tagged.list });
  out("created", created);
  out("updated", await cards.update(created.id, { title: "from the SDK, renamed", done: true }));
  out("deleted", await cards.delete(created.id));
  try {
    await cards.getOne(created.id);
    out("gone", null);
  } catch (err) {
    out("gone", { status: err.status, code: err.response?.code });
  }
} catch (err) {
  out("error", { status: err.status, response: err.response, message: String(err) });
  process.exitCode = 1;
}
"""


@pytest.fixture(scope="module")
def runtime() -> Iterator[RuntimeServer]:
    grants = (GrantSpec("cred_sdk", "sdk", ("*",), TOKEN),)
    with (
        start_kanban(seed="rich") as upstream,
        start_runtime(KANBAN_DRF, upstream, grants=grants) as served,
    ):
        yield served


def _run_sdk(tmp_path: Path, url: str) -> dict[str, Any]:
    node = shutil.which("node")
    assert node is not None, "Node.js is needed (samples/setup.sh checks for it)"
    assert (SDK / "package.json").exists(), f"run samples/setup.sh: no PocketBase SDK in {SDK}"
    # an ES module beside a node_modules that holds the SDK, so `import "pocketbase"` finds it
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "pocketbase").symlink_to(SDK)
    script = tmp_path / "drive.mjs"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [node, str(script), url, TOKEN], capture_output=True, text=True, timeout=120, check=False
    )
    steps = {}
    for line in done.stdout.splitlines():
        doc = json.loads(line)
        steps[doc["step"]] = doc["value"]
    assert done.returncode == 0 and "error" not in steps, (steps.get("error"), done.stderr)
    return steps


def test_the_pocketbase_sdk_reads_and_writes_through_the_runtime(
    runtime: RuntimeServer, tmp_path: Path
) -> None:
    steps = _run_sdk(tmp_path, runtime.url)

    filtered = steps["filtered"]
    assert (filtered["page"], filtered["perPage"]) == (1, 5)
    assert filtered["totalItems"] >= len(filtered["items"]) > 0
    assert all(c["done"] is False and c["priority"] == "high" for c in filtered["items"])
    dues = [c["due"] or "" for c in filtered["items"]]
    assert dues == sorted(dues, reverse=True)

    expanded = steps["expanded"]["items"]
    titles = [c["title"] for c in expanded]
    assert titles == sorted(titles) and len(expanded) == 3
    for card in expanded:
        if card["list"]:
            assert card["expand"]["list"]["id"] == card["list"]
        tags = card.get("expand", {}).get("tags", [])
        assert [t["id"] for t in tags] == card["tags"]

    one = steps["one"]
    assert one["expand"]["list"]["id"] == one["list"]
    assert one["expand"]["list"]["expand"]["board"]["id"] == one["expand"]["list"]["board"]
    assert [t["id"] for t in one["expand"].get("tags", [])] == one["tags"]

    created, updated = steps["created"], steps["updated"]
    assert (created["title"], created["priority"], created["list"]) == (
        "from the SDK", "low", one["list"],
    )  # fmt: skip
    assert updated["id"] == created["id"]
    assert (updated["title"], updated["done"]) == ("from the SDK, renamed", True)
    assert steps["deleted"] is True
    assert steps["gone"] == {"status": 404, "code": "record_not_found"}
