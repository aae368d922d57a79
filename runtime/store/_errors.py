"""What can go wrong with the store, as one small tree.

    StoreError                 every store problem; the message is one sentence for the operator
      ├─ StoreUrlError         the store URL is malformed or names an unsupported database
      ├─ StoreUnavailableError the database cannot be reached, opened or migrated
      ├─ StoreMissingError     there is no store yet, and the caller asked not to create one
      ├─ DuplicateGrantError   a grant id or a token is already taken
      ├─ RealtimeCallerError   a realtime client's set belongs to another credential
      └─ TokenFileError        the local token file is unsafe or unreadable

Database driver exceptions stop at the store: their text may carry bound
parameters (token hashes, record ids), so only the driver's own first line of
explanation is kept.
"""

from __future__ import annotations


class StoreError(Exception):
    """A problem with the runtime's state store."""


class StoreUrlError(StoreError):
    """The store URL is malformed or names a database the store does not support."""


class StoreUnavailableError(StoreError):
    """The database cannot be reached, opened or brought to the current schema."""


class StoreMissingError(StoreError):
    """There is no store at the URL yet, and opening it was not to create one."""


class DuplicateGrantError(StoreError):
    """A grant with this id, or a grant holding this token, already exists."""


class RealtimeCallerError(StoreError):
    """A realtime client's subscription set was written under another credential than
    the one trying to replace it (and not one that credential may take over)."""


class TokenFileError(StoreError):
    """The local token file is unsafe (too open) or unreadable."""


def driver_reason(exc: BaseException) -> str:
    """The first line of what the database driver said, without SQL or parameters."""
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip().splitlines()
    return text[0] if text else orig.__class__.__name__
