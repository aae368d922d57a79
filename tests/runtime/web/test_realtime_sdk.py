"""The official PocketBase JS SDK, under Node, subscribes to `cards/*` on the runtime; a card
created, changed and deleted directly on the Django sample's own API (not through the
runtime) reaches it as create, update and delete messages, through the change feed; a
second subscription with a filter and fields takes the renamed card only, projected.

Node 20 has no global EventSource: the script sets one from npm `eventsource` (installed by
samples/setup.sh). EventSource cannot send headers, so the token rides on the subscription
request, which `beforeSend` reaches (docs/pocketbase-sdk.md)."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, TypeVar

import httpx

from runtime.store import FeedState, Store
from samples.stacks_common.launch import cache_root
from tests.fixtures.runtime import KANBAN_DRF, GrantSpec, mapping_variant, start_runtime
from tests.fixtures.servers import start_kanban

SDK = cache_root() / "pocketbase-0.28.1" / "node_modules" / "pocketbase"
EVENTSOURCE = cache_root() / "eventsource-4.1.1" / "node_modules"
TOKEN = "a2app_realtime_sdk_token"
FEED = {"entities": ["cards"], "interval": 1, "budget": 600}
BOUND = 30.0  # seconds for each step: generous, the feed polls every second
T = TypeVar("T")

# One JSON line per step on stdout; the test writes to Django once it reads "subscribed",
# and the script ends after the third message (or fails after its own bound).
SCRIPT = """
import PocketBase from "pocketbase";
import { EventSource } from "eventsource";

globalThis.EventSource = EventSource;
const [url, token] = process.argv.slice(2);
const out = (step, value) => console.log(JSON.stringify({ step, value }));
const pb = new PocketBase(url);
pb.autoCancellation(false);
// the SSE stream carries no header; the subscription POST does, and its token is the
// credential of every message
pb.beforeSend = (url, options) => {
  options.headers = { ...options.headers, "X-A2App-Token": token };
  return { url, options };
};
setTimeout(() => { out("error", "no three messages in time"); process.exit(1); }, 120000);
const counts = { message: 0, filtered: 0 };
const take = (step) => (e) => {
  counts[step] += 1;
  out(step, { action: e.action, record: e.record });
  if (counts.message === 3 && counts.filtered === 2) {
    pb.realtime.unsubscribe().finally(() => process.exit(0));
  }
};
try {
  const cards = pb.collection("cards");
  await cards.subscribe("*", take("message"));
  // options ride on the topic: filtered on the record here, projected to two fields
  await cards.subscribe("*", take("filtered"), { filter: 'title ~ "Renamed"', fields: "id,title" });
  out("subscribed", pb.realtime.clientId);
} catch (err) {
  out("error", { status: err.status, response: err.response, message: String(err) });
  process.exit(1);
}
"""


def _until(probe: Callable[[], T | None]) -> T:
    deadline = time.monotonic() + BOUND
    while (found := probe()) is None:
        assert time.monotonic() < deadline, "not seen in time"
        time.sleep(0.2)
    return found


def _line(stream: IO[str], step: str, aside: list[dict[str, Any]]) -> dict[str, Any]:
    """The next line of `step`; lines of other steps are kept in `aside`, in order."""
    while True:
        text = stream.readline()
        assert text, "the SDK script ended early"
        doc: dict[str, Any] = json.loads(text)
        assert doc["step"] != "error", doc
        if doc["step"] == step:
            return doc
        aside.append(doc)


def _node(tmp_path: Path, url: str) -> subprocess.Popen[str]:
    node = shutil.which("node")
    assert node is not None, "Node.js is needed (samples/setup.sh checks for it)"
    for package in (SDK, EVENTSOURCE / "eventsource"):
        assert (package / "package.json").exists(), f"run samples/setup.sh: no {package}"
    modules = tmp_path / "node_modules"
    modules.mkdir()
    (modules / "pocketbase").symlink_to(SDK)
    for name in ("eventsource", "eventsource-parser"):  # the package and its one dependency
        (modules / name).symlink_to(EVENTSOURCE / name)
    script = tmp_path / "subscribe.mjs"
    script.write_text(SCRIPT)
    return subprocess.Popen(
        [node, str(script), url, TOKEN],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_the_sdk_receives_changes_made_directly_in_django(tmp_path: Path) -> None:
    mapping = mapping_variant(KANBAN_DRF, tmp_path, serve__feed=FEED)
    store_url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    grants = (GrantSpec("cred_sdk", "sdk", ("*",), TOKEN),)
    with (
        start_kanban() as django,
        start_runtime(mapping, django, store_url=store_url, grants=grants) as rt,
    ):
        with Store.open(store_url) as store:

            def baseline() -> FeedState | None:
                state = store.feed_state("kanban-drf", "cards")
                return state if state is not None and state.baseline_at is not None else None

            _until(baseline)  # a card made before the baseline would be part of it
        node = _node(tmp_path, rt.url)
        try:
            assert node.stdout is not None
            filtered: list[dict[str, Any]] = []
            subscribed = _line(node.stdout, "subscribed", filtered)
            assert subscribed["step"] == "subscribed" and len(subscribed["value"]) == 40

            new = {"title": "Straight into Django", "list": "list_todo"}
            made = httpx.post(f"{django.api}/cards/", headers=django.headers, json=new)
            assert made.status_code == 201, made.text
            card = str(made.json()["id"])
            created = _line(node.stdout, "message", filtered)["value"]
            assert (created["action"], created["record"]["id"]) == ("create", card)
            assert created["record"]["title"] == "Straight into Django"

            changed = httpx.patch(f"{django.api}/cards/{card}/", headers=django.headers,
                                  json={"title": "Renamed in Django"})  # fmt: skip
            assert changed.status_code == 200, changed.text
            updated = _line(node.stdout, "message", filtered)["value"]
            assert (updated["action"], updated["record"]["id"]) == ("update", card)
            assert updated["record"]["title"] == "Renamed in Django"

            gone = httpx.delete(f"{django.api}/cards/{card}/", headers=django.headers)
            assert gone.status_code == 204, gone.text
            deleted = _line(node.stdout, "message", filtered)["value"]
            # the record as the feed last saw it
            assert deleted == {"action": "delete", "record": updated["record"]}
            assert node.wait(timeout=BOUND) == 0
            filtered += [json.loads(line) for line in node.stdout.read().splitlines()]
            # the filtered topic took the renamed card only, as two fields
            kept = {"id": card, "title": "Renamed in Django"}
            assert [(d["step"], d["value"]) for d in filtered] == [
                ("filtered", {"action": "update", "record": kept}),
                ("filtered", {"action": "delete", "record": kept}),
            ]
        finally:
            if node.poll() is None:
                node.kill()
            node.wait()
            stderr = node.stderr.read() if node.stderr is not None else ""
            assert "Error" not in stderr, stderr
