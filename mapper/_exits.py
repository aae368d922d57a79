"""One exit-code table for every `a2map` command.

Every command exits 0 for its good outcome, 1 for its bad one, and 2 when it
could not do its job at all (a usage error, unreadable input, an unreachable
upstream), so a script can tell "the answer is no" from "there is no answer".
A server (`serve`, `demo`, `import`) stopped by SIGTERM, SIGHUP or Ctrl-C once it
serves has ended normally: exit 0. Any other stop by a signal exits 128 + the
signal's number. The names beside OK,
FAILED and USAGE are the same codes as each command reads them.

| command | 0 | 1 | 2 |
|---|---|---|---|
| `probe` | mapped | nothing mappable | usage, the upstream unreachable, or every read refused |
| `lint` | every file valid | a file invalid | usage (no such file, unreadable) |
| `review` | reviewed | the mapping invalid | usage (no such file, unreadable) |
| `diff` | same meaning | changed | unusable input |
| `verify` | verified, stamped | partly verified or refused | usage, or upstream unreachable |
| `serve` | served and stopped | the store, socket or Redis failed | usage, bad mapping, no stamp |
| `mcp` | the client closed stdin | the store failed | usage, bad mapping, no stamp, unknown token |
| `demo` | served and stopped, or `--check` passed | failed | usage (the port is taken) |
| `import` | served what is proven, stopped | nothing mappable/proven | usage, port, unreachable |
| `token`, `approvals` | done | the store refused | usage |
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["Exit"]


class Exit(IntEnum):
    """The codes; the aliases name one command's reading of OK, FAILED or USAGE."""

    OK = 0
    FAILED = 1
    USAGE = 2

    MAPPED = 0  # probe
    NOTHING = 1  # probe: nothing mappable, the reasons are printed
    VALID = 0  # lint, review
    INVALID = 1  # lint, review
    SAME = 0  # diff
    CHANGED = 1  # diff
    VERIFIED = 0  # verify: the stamp is written
    REFUSED = 1  # verify: partly verified or refused; a partial stamp, or none
    STATE = 1  # token, approvals, serve: the state store refused
