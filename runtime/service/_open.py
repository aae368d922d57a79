"""A mapping opened for serving: loaded, its stamp checked, the store and the grant ready."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from runtime.mapping import (
    MappingError,
    Withheld,
    load_mapping,
    stamp_status,
    unproven_ref_checks,
)
from runtime.store import Store, default_store_url, state_dir
from runtime.upstream import UpstreamClient

from ._hooks import hook_problems
from ._state import RuntimeState
from ._triggers import trigger_problems


@dataclass(frozen=True, slots=True)
class ServeOptions:
    mapping_path: Path
    host: str = "127.0.0.1"
    port: int = 8765
    store_url: str | None = None
    state_dir: Path | None = None
    allow_unverified: bool = False
    ready_json: bool = False


class GateRefused(Exception):
    """The mapping has no fresh verification stamp, and serving it unverified was not asked."""


def build_state(options: ServeOptions) -> tuple[RuntimeState, Path]:
    mapping = load_mapping(options.mapping_path)
    status = stamp_status(options.mapping_path, mapping)
    withheld = Withheld()
    if status.fresh and status.stamp is not None:
        # The stamp's proven pushdowns are what lets the upstream page and count.
        mapping = status.stamp.apply(mapping)
        # A partial stamp serves the proven part only (runtime.mapping._withheld); with
        # --allow-unverified, what the run could not exercise is served too, never what
        # it disproved.
        mapping, withheld = status.stamp.withhold(mapping, unproven=not options.allow_unverified)
    elif options.allow_unverified:
        mapping = unproven_ref_checks(mapping)
    else:
        raise GateRefused(
            f"{options.mapping_path}: {status.reason}. Prove it first with "
            f"`a2map verify {options.mapping_path}` (or serve it anyway with --allow-unverified)."
        )
    problems = trigger_problems(mapping) + hook_problems(mapping)
    if problems:
        raise MappingError(problems, str(options.mapping_path))
    directory = options.state_dir or state_dir()
    store = Store.open(options.store_url or default_store_url())
    token_file = directory / ".agent-token"
    store.ensure_local_grant(token_file)
    store.start_data_version(mapping.app.id)
    state = RuntimeState(
        mapping=mapping,
        store=store,
        upstream=UpstreamClient(mapping.upstream),
        unverified=not status.fresh,
        reads_only=bool(status.fresh and status.stamp is not None and status.stamp.read_only),
        withheld=withheld,
        audit_file=directory / f"audit-{mapping.app.id}.jsonl",
    )
    return state, token_file
