"""All runtime state behind SQLAlchemy: grants, dataVersion, idempotency, approvals,
receipts, audit, jobs, events, tasks, the UI context and the change feed, keyed by app id, in SQLite
by default or PostgreSQL by URL."""

from ._errors import DuplicateGrantError as DuplicateGrantError
from ._errors import RealtimeCallerError as RealtimeCallerError
from ._errors import StoreError as StoreError
from ._errors import StoreMissingError as StoreMissingError
from ._errors import StoreUnavailableError as StoreUnavailableError
from ._errors import StoreUrlError as StoreUrlError
from ._errors import TokenFileError as TokenFileError
from ._feed import Seen as Seen
from ._finish import WriteEnd as WriteEnd
from ._grants import LOCAL_GRANT_ID as LOCAL_GRANT_ID
from ._rows import Approval as Approval
from ._rows import ApprovalState as ApprovalState
from ._rows import AuditEntry as AuditEntry
from ._rows import Context as Context
from ._rows import Decision as Decision
from ._rows import Event as Event
from ._rows import FeedAction as FeedAction
from ._rows import FeedChange as FeedChange
from ._rows import FeedState as FeedState
from ._rows import Grant as Grant
from ._rows import IdemState as IdemState
from ._rows import Job as Job
from ._rows import RealtimeSet as RealtimeSet
from ._rows import Receipt as Receipt
from ._rows import Task as Task
from ._rows import TaskStatus as TaskStatus
from ._store import Store as Store
from ._tokenfile import new_token as new_token
from ._tokenfile import read_token_file as read_token_file
from ._url import default_store_url as default_store_url
from ._url import state_dir as state_dir

__all__ = [
    "LOCAL_GRANT_ID",
    "Approval",
    "ApprovalState",
    "AuditEntry",
    "Context",
    "Decision",
    "DuplicateGrantError",
    "Event",
    "FeedAction",
    "FeedChange",
    "FeedState",
    "Grant",
    "IdemState",
    "Job",
    "RealtimeCallerError",
    "RealtimeSet",
    "Receipt",
    "Seen",
    "Store",
    "StoreError",
    "StoreMissingError",
    "StoreUnavailableError",
    "StoreUrlError",
    "Task",
    "TaskStatus",
    "TokenFileError",
    "WriteEnd",
    "default_store_url",
    "new_token",
    "read_token_file",
    "state_dir",
]
