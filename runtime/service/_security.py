"""Host guard, Origin guard, credentials, scopes and rate limits (protocol §16 to §18)."""

from __future__ import annotations

import hashlib
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from runtime.mapping import Mapping
from runtime.protocol import Caller, ProtocolError, anonymous_caller, grant_caller, ui_caller

from ._rates import SharedWindows

TOKEN_HEADERS = ("x-a2app-token", "x-lui-token")
DEFAULT_HOW = (
    "Send an agent token in the X-A2App-Token header. The owner's local token is in the "
    "runtime's .agent-token file (mode 0600); more are made with `a2map token create`."
)
_LOOPBACK_V4 = re.compile(r"127\.\d{1,3}\.\d{1,3}\.\d{1,3}", re.ASCII)
HOW_MAX = 300
SCOPE_LISTS_KEPT = 256  # distinct scope lists of grants; more only empties the memo


class GrantLike(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def agent_name(self) -> str | None: ...
    @property
    def principal(self) -> str: ...
    @property
    def scopes(self) -> tuple[str, ...]: ...


GrantLookup = Callable[[str], GrantLike | None]


def _no_grant(grant_id: str) -> GrantLike | None:
    return None


def allowed_hosts(mapping: Mapping) -> frozenset[str]:
    hosts = set(mapping.serve.allowed_hosts)
    for origin in mapping.serve.allowed_origins:
        hosts.add(origin.split("://", 1)[-1].lower())
    return frozenset(hosts)


def host_allowed(host: str | None, allowed: frozenset[str]) -> bool:
    """DNS-rebinding defence: loopback names, or a configured host."""
    if host is None:
        return True
    host = host.lower()
    if host in allowed:
        return True
    if host.startswith("["):
        name = host[: host.find("]") + 1] if "]" in host else host
    else:
        name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    return name in ("localhost", "[::1]", "::1") or bool(_LOOPBACK_V4.fullmatch(name))


def how_text(mapping: Mapping) -> str:
    hint = " ".join((mapping.serve.credential_hint or "").split())
    if not hint:
        return DEFAULT_HOW
    if len(hint) <= HOW_MAX:
        return hint
    # The marker counts toward the cap and its own length changes the count it
    # reports; three passes reach the fixed point (the digit count grows at most twice).
    marker = ""
    for _ in range(3):
        marker = f" [truncated by adapter, {len(hint) - HOW_MAX + len(marker)} chars cut]"
    return hint[: max(0, HOW_MAX - len(marker))] + marker


def presented_token(headers: dict[str, str]) -> str | None:
    for name in TOKEN_HEADERS:
        value = headers.get(name)
        if value:
            return value
    return None


def token_key(token: str) -> str:
    """A rate-limit and log key for a token that is never the token itself."""
    return "tok:" + hashlib.sha256(token.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Security:
    mapping: Mapping
    lookup: GrantLookup
    # an active grant of this app by its id: a caller checked again where its token is
    # not at hand (a realtime subscription, read back from the store by another process)
    by_id: GrantLookup = _no_grant
    # The mapping is frozen for the life of the process, so these callers are too:
    # made once here, not on every request.
    ui: Caller = field(init=False)
    anonymous: Caller = field(init=False)
    # A grant's scopes as the mapping expands them (`*` to every scope of the app): a pure
    # function of the two, worked out once per distinct scope list, not per request.
    # Grants themselves are read fresh on every request, so a revocation holds at once.
    _expanded: dict[tuple[str, ...], frozenset[str]] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ui", ui_caller(self.mapping))
        object.__setattr__(self, "anonymous", anonymous_caller(self.mapping))
        object.__setattr__(self, "_expanded", {})

    def _caller(self, grant: GrantLike) -> Caller:
        key = tuple(grant.scopes)
        scopes = self._expanded.get(key)
        if scopes is not None:
            return Caller("grant", grant.id, grant.agent_name, grant.principal, scopes)
        caller = grant_caller(self.mapping, grant.id, grant.agent_name, grant.principal, key)
        if len(self._expanded) >= SCOPE_LISTS_KEPT:
            self._expanded.clear()
        self._expanded[key] = caller.scopes
        return caller

    def render_caller(self, headers: dict[str, str]) -> Caller:
        """Access as describe renders it: never refuses (§6)."""
        origin = headers.get("origin")
        if origin is not None and origin in self.mapping.serve.allowed_origins:
            return self.ui
        token = presented_token(headers)
        caller = self._grant_caller(token)
        return caller if caller is not None else self.anonymous

    def _grant_caller(self, token: str | None) -> Caller | None:
        grant = self.lookup(token) if token else None
        if grant is None:
            return None
        return self._caller(grant)

    def recall(self, kind: str, credential_id: str) -> Caller | None:
        """The caller `authorize` resolved before, by the identity it gave (`Caller.kind`
        and `credential_id`), as it stands now: None once its grant is revoked."""
        if kind == "ui":
            return self.ui
        if kind == "anonymous":
            return self.anonymous if self.anonymous.kind == "anonymous" else None
        if kind != "grant":
            return None
        grant = self.by_id(credential_id)
        if grant is None:
            return None
        return grant_caller(self.mapping, grant.id, grant.agent_name, grant.principal, grant.scopes)

    def authorize(self, headers: dict[str, str], scope: str | None, *, write: bool) -> Caller:
        """The protocol's `authorize(scope, isWrite)`, step by step (§16)."""
        origin = headers.get("origin")
        if origin is not None:
            if origin not in self.mapping.serve.allowed_origins:
                raise ProtocolError("forbidden_origin", f"Origin {origin} is not allowed here.")
            return self.ui
        token = presented_token(headers)
        grant = self.lookup(token) if token else None
        if grant is None and token:
            # Not "no token": a caller who sent one means to act as someone, and
            # serving it as anonymous would hide a revoked or mistyped credential.
            raise ProtocolError(
                "agent_token_required",
                "The token sent is not known here (unknown, revoked or expired).",
                how=how_text(self.mapping),
            )
        if grant is None:
            if write or self.mapping.serve.auth_mode == "multi-user":
                raise ProtocolError("agent_token_required", how=how_text(self.mapping))
            return self.anonymous
        caller = self._caller(grant)
        if scope is not None and scope not in caller.scopes:
            raise ProtocolError(
                "insufficient_scope", f"This credential lacks the scope {scope}.", required=scope
            )
        return caller


class RateLimiter:
    """Fixed 60-second windows per (caller key, class): in process memory, or in Redis
    (`shared`, keyed by app id too) so that every process serving the app counts together.

    A key's window opens at its first request and closes 60 seconds later.

    Kept off the store so the hot path makes no database write; while Redis fails,
    the windows are counted in memory (see runtime.service._rates).
    """

    WINDOW_MS = 60_000

    def __init__(
        self,
        limits: dict[str, int],
        clock: Callable[[], float] = time.monotonic,
        *,
        app_id: str = "",
        shared: SharedWindows | None = None,
    ) -> None:
        self._limits = limits
        self._clock = clock
        self._app_id = app_id
        self._shared = shared
        self._windows: dict[tuple[str, str], tuple[int, int]] = {}
        self._prune_at = 10_000
        self._lock = threading.Lock()

    def hit(self, key: str, klass: str) -> None:
        limit = self._limits.get(klass, 0)
        if limit <= 0:
            return
        counted = None
        if self._shared is not None:
            counted = self._shared.count(self._app_id, klass, key, self.WINDOW_MS)
        count, left_ms = self._count(key, klass) if counted is None else counted
        if count > limit:
            raise ProtocolError(
                "rate_limited",
                f"More than {limit} {klass} requests in a minute.",
                retryAfterSeconds=max(1, math.ceil(left_ms / 1000)),
            )

    def _count(self, key: str, klass: str) -> tuple[int, int]:
        now_ms = int(self._clock() * 1000)
        with self._lock:
            start, count = self._windows.get((key, klass), (now_ms, 0))
            if now_ms - start >= self.WINDOW_MS:
                start, count = now_ms, 0
            if len(self._windows) > self._prune_at:
                self._windows = {
                    k: v for k, v in self._windows.items() if now_ms - v[0] < self.WINDOW_MS
                }
                self._prune_at = max(10_000, 2 * len(self._windows))
            count += 1
            self._windows[(key, klass)] = (start, count)
        return count, start + self.WINDOW_MS - now_ms


def rate_key(headers: dict[str, str]) -> str:
    token = presented_token(headers)
    if token:
        return token_key(token)
    origin = headers.get("origin")
    return f"origin:{origin}" if origin is not None else "anon"
