"""Mappings opened for serving: loaded, their stamps checked, the store and the grant ready."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from runtime.mapping import (
    Mapping,
    MappingError,
    Withheld,
    load_mapping,
    stamp_status,
    unproven_ref_checks,
)
from runtime.store import Store, default_store_url, state_dir
from runtime.upstream import UpstreamClient

from ._hooks import hook_problems
from ._rates import SharedWindows, open_shared_windows
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
    # More mappings served by the same process, each under /apps/{appId}.
    more_mappings: tuple[Path, ...] = ()
    # Rate windows counted in this Redis (shared by every process using it), not in memory.
    redis_url: str | None = None
    redis_prefix: str = "a2app:"

    @property
    def mapping_paths(self) -> tuple[Path, ...]:
        return (self.mapping_path, *self.more_mappings)


class GateRefused(Exception):
    """A mapping has no fresh verification stamp, and serving it unverified was not asked."""


class DuplicateApp(Exception):
    """Two mappings served together declare the same app id."""


@dataclass(frozen=True, slots=True)
class _Opened:
    path: Path
    mapping: Mapping
    fresh: bool
    reads_only: bool
    withheld: Withheld


def _open(path: Path, allow_unverified: bool) -> _Opened | str:
    """The mapping as it is served, or why the gate refuses it."""
    mapping = load_mapping(path)
    status = stamp_status(path, mapping)
    withheld = Withheld()
    if status.fresh and status.stamp is not None:
        # The stamp's proven pushdowns are what lets the upstream page and count.
        mapping = status.stamp.apply(mapping)
        # A partial stamp serves the proven part only (runtime.mapping._withheld); with
        # --allow-unverified, what the run could not exercise is served too, never what
        # it disproved.
        mapping, withheld = status.stamp.withhold(mapping, unproven=not allow_unverified)
    elif allow_unverified:
        mapping = unproven_ref_checks(mapping)
    else:
        return (
            f"{path}: {status.reason}. Prove it first with "
            f"`a2map verify {path}` (or serve it anyway with --allow-unverified)."
        )
    problems = trigger_problems(mapping) + hook_problems(mapping)
    if problems:
        raise MappingError(problems, str(path))
    reads_only = bool(status.fresh and status.stamp is not None and status.stamp.read_only)
    return _Opened(path, mapping, status.fresh, reads_only, withheld)


def _open_all(options: ServeOptions) -> list[_Opened]:
    """Every mapping opened, or one refusal naming every mapping the gate refuses."""
    opened: list[_Opened] = []
    refused: list[str] = []
    for path in options.mapping_paths:
        result = _open(path, options.allow_unverified)
        if isinstance(result, str):
            refused.append(result)
        else:
            opened.append(result)
    if len(refused) == 1:
        raise GateRefused(refused[0])
    if refused:
        lines = "\n".join(f"  {reason}" for reason in refused)
        raise GateRefused(f"{len(refused)} mappings are not verified:\n{lines}")
    first: dict[str, Path] = {}
    for one in opened:
        app_id = one.mapping.app.id
        if app_id in first:
            raise DuplicateApp(
                f"two mappings declare the app id {app_id!r}: {first[app_id]} and {one.path}; "
                "each app served together needs its own id"
            )
        first[app_id] = one.path
    return opened


def build_states(options: ServeOptions) -> tuple[list[RuntimeState], Path]:
    """One state per mapping, all on one store (keyed by app id) and one local token."""
    opened = _open_all(options)
    shared: SharedWindows | None = None
    if options.redis_url is not None:
        shared = open_shared_windows(options.redis_url, options.redis_prefix)
    directory = options.state_dir or state_dir()
    store = Store.open(options.store_url or default_store_url())
    token_file = directory / ".agent-token"
    try:
        # The owner's local grant opens every app of the store; other grants may be
        # limited to one app (`a2map token create --app`).
        store.ensure_local_grant(token_file)
        states = []
        for one in opened:
            store.start_data_version(one.mapping.app.id)
            states.append(
                RuntimeState(
                    mapping=one.mapping,
                    store=store,
                    upstream=UpstreamClient(one.mapping.upstream),
                    unverified=not one.fresh,
                    reads_only=one.reads_only,
                    withheld=one.withheld,
                    audit_file=directory / f"audit-{one.mapping.app.id}.jsonl",
                    shared_windows=shared,
                )
            )
    except BaseException:
        store.close()
        raise
    return states, token_file


def close_states(states: Sequence[RuntimeState]) -> None:
    """What `build_states` opened: the store (shared by every app) and the Redis
    connection, once each."""
    states[0].close()
    shared = states[0].shared_windows
    if shared is not None:
        shared.close()


def build_state(options: ServeOptions) -> tuple[RuntimeState, Path]:
    """The state of the one mapping of `options`."""
    states, token_file = build_states(options)
    return states[0], token_file
