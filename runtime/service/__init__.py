"""The runtime's use cases: reads, the write chain, related records, receipts, operations,
jobs, approvals, the audit and the change feed, over the mapping, the store and the upstream client.

The web layer calls only this face; it never reaches the store or the upstream itself.
"""

from ._approval_gate import owner_approved as owner_approved
from ._batch import CHUNK as CHUNK
from ._batch import records_by_id as records_by_id
from ._calls import call_http as call_http
from ._chain import Done as Done
from ._chain import Order as Order
from ._chain import Write as Write
from ._chain import run_write as run_write
from ._clock import Clock as Clock
from ._clock import SystemClock as SystemClock
from ._clock import server_now as server_now
from ._context import context_doc as context_doc
from ._context import set_context as set_context
from ._describe import ADAPTER_VERSION as ADAPTER_VERSION
from ._describe import describe_entity as describe_entity
from ._describe import describe_module as describe_module
from ._describe import describe_record as describe_record
from ._describe import describe_relation as describe_relation
from ._describe import describe_root as describe_root
from ._describe import identity as identity
from ._describe import refuse_depth as refuse_depth
from ._describe import whoami as whoami
from ._describer import Describer as Describer
from ._event_types import carried_entities as carried_entities
from ._events import Raised as Raised
from ._events import default_dedup_key as default_dedup_key
from ._events import events_feed as events_feed
from ._events import trigger as trigger
from ._feed import ChangeFeed as ChangeFeed
from ._feed import event_of as feed_event_of
from ._feed_diff import diff as feed_diff
from ._feed_diff import is_marked as feed_skips
from ._feed_diff import record_hash as feed_record_hash
from ._hooks import receive_hook as receive_hook
from ._jobs import JobRunner as JobRunner
from ._jobs import job_doc as job_doc
from ._lookup import authorise as authorise
from ._lookup import authorise_read as authorise_read
from ._lookup import entity_named as entity_named
from ._lookup import gate as gate
from ._lookup import operation_named as operation_named
from ._open import DuplicateApp as DuplicateApp
from ._open import GateRefused as GateRefused
from ._open import ServeOptions as ServeOptions
from ._open import build_state as build_state
from ._open import build_states as build_states
from ._open import close_states as close_states
from ._operations import execute as execute
from ._operations import listing as operations_listing
from ._operations import run_operation as run_operation
from ._poll import poll_job as poll_job
from ._rates import SharedWindows as SharedWindows
from ._rates import SharedWindowsError as SharedWindowsError
from ._rates import open_shared_windows as open_shared_windows
from ._reads import RECORD_PARAMS as RECORD_PARAMS
from ._reads import Reads as Reads
from ._reads import check_fields as check_fields
from ._reads import refuse_stray_parts as refuse_stray_parts
from ._realtime import INTERVAL as REALTIME_INTERVAL
from ._realtime import Realtime as Realtime
from ._receipts import HEADER as RECEIPT_HEADER
from ._receipts import feed as receipts_feed
from ._schedules import SCHEDULE_EVENT as SCHEDULE_EVENT
from ._schedules import Schedules as Schedules
from ._security import DEFAULT_HOW as DEFAULT_HOW
from ._security import HOW_MAX as HOW_MAX
from ._security import RateLimiter as RateLimiter
from ._security import Security as Security
from ._security import allowed_hosts as allowed_hosts
from ._security import host_allowed as host_allowed
from ._security import how_text as how_text
from ._security import presented_token as presented_token
from ._security import rate_key as rate_key
from ._security import token_key as token_key
from ._slots import day_slots as day_slots
from ._slots import latest_slot as latest_slot
from ._slots import next_slot as next_slot
from ._slots import slot_name as slot_name
from ._state import RuntimeState as RuntimeState
from ._tasks import act_on_task as act_on_task
from ._tasks import get_task as get_task
from ._tasks import list_tasks as list_tasks
from ._tasks import no_task_id as no_task_id
from ._triggers import Triggers as Triggers
from ._triggers import trigger_problems as trigger_problems
from ._writes import create_record as create_record
from ._writes import delete_record as delete_record
from ._writes import refuse_verb as refuse_verb
from ._writes import update_record as update_record

__all__ = [
    "ADAPTER_VERSION",
    "CHUNK",
    "DEFAULT_HOW",
    "HOW_MAX",
    "REALTIME_INTERVAL",
    "RECEIPT_HEADER",
    "RECORD_PARAMS",
    "SCHEDULE_EVENT",
    "ChangeFeed",
    "Clock",
    "Describer",
    "Done",
    "DuplicateApp",
    "GateRefused",
    "JobRunner",
    "Order",
    "Raised",
    "RateLimiter",
    "Reads",
    "Realtime",
    "RuntimeState",
    "Schedules",
    "Security",
    "ServeOptions",
    "SharedWindows",
    "SharedWindowsError",
    "SystemClock",
    "Triggers",
    "Write",
    "act_on_task",
    "allowed_hosts",
    "authorise",
    "authorise_read",
    "build_state",
    "build_states",
    "call_http",
    "carried_entities",
    "check_fields",
    "close_states",
    "context_doc",
    "create_record",
    "day_slots",
    "default_dedup_key",
    "delete_record",
    "describe_entity",
    "describe_module",
    "describe_record",
    "describe_relation",
    "describe_root",
    "entity_named",
    "events_feed",
    "execute",
    "feed_diff",
    "feed_event_of",
    "feed_record_hash",
    "feed_skips",
    "gate",
    "get_task",
    "host_allowed",
    "how_text",
    "identity",
    "job_doc",
    "latest_slot",
    "list_tasks",
    "next_slot",
    "no_task_id",
    "open_shared_windows",
    "operation_named",
    "operations_listing",
    "owner_approved",
    "poll_job",
    "presented_token",
    "rate_key",
    "receipts_feed",
    "receive_hook",
    "records_by_id",
    "refuse_depth",
    "refuse_stray_parts",
    "refuse_verb",
    "run_operation",
    "run_write",
    "server_now",
    "set_context",
    "slot_name",
    "token_key",
    "trigger",
    "trigger_problems",
    "update_record",
    "whoami",
]  # fmt: skip
