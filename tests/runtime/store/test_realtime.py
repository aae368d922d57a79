"""Realtime subscription sets in the store: a set is replaced only under the caller that
wrote it (or any caller before the first set, or a caller allowed to take over a guest's);
a refusal writes nothing, holds across Store instances (processes), and of concurrent
writers under different credentials exactly one wins. The forecast read ahead of a write
gives the same verdict on the same set, and never stands in for the write's own check."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta

import pytest

from runtime.store import RealtimeCallerError, RealtimeSet, Store

APP = "kanban"
HOLDER = "holder_a"
CLIENT = "c" * 40
EXPIRY = timedelta(seconds=60)
GUEST = ("anonymous", "anonymous")
GRANT_A = ("grant", "cred_a")
GRANT_B = ("grant", "cred_b")
UI = ("ui", "ui")
# the kinds a credentialled caller may take over, as the service passes them
UPGRADES = ("anonymous",)


def _open_client(store: Store, client_id: str = CLIENT) -> None:
    store.realtime_open(HOLDER, APP, client_id)


def _subscribe(
    store: Store,
    caller: tuple[str, str],
    topics: list[str],
    *,
    upgrades: tuple[str, ...] = (),
    client_id: str = CLIENT,
) -> int | None:
    kind, credential = caller
    return store.realtime_subscribe(
        APP, client_id, topics, caller_kind=kind, credential_id=credential,
        upgrades=upgrades, expiry=EXPIRY,
    )  # fmt: skip


def _may(
    store: Store,
    caller: tuple[str, str],
    *,
    upgrades: tuple[str, ...] = (),
    client_id: str = CLIENT,
) -> bool:
    kind, credential = caller
    return store.realtime_may_replace(
        APP, client_id, caller_kind=kind, credential_id=credential, upgrades=upgrades
    )


def _sets(store: Store) -> list[RealtimeSet]:
    return store.realtime_sets(HOLDER, -1)


@pytest.fixture
def held(store: Store) -> Store:
    store.realtime_hold(HOLDER, APP)
    _open_client(store)
    return store


@pytest.mark.parametrize(
    ("case", "first", "then", "upgrades", "accepted"),
    [
        ("the same grant", GRANT_A, GRANT_A, (), True),
        ("the same guest", GUEST, GUEST, (), True),
        ("the UI again", UI, UI, UPGRADES, True),
        ("a guest's set taken over by a grant", GUEST, GRANT_A, UPGRADES, True),
        ("a guest's set taken over by the UI", GUEST, UI, UPGRADES, True),
        ("a guest's set, by a caller not allowed to take it", GUEST, GRANT_A, (), False),
        ("another grant", GRANT_A, GRANT_B, UPGRADES, False),
        ("a grant's set, by a guest", GRANT_A, GUEST, (), False),
        ("a grant's set, by the UI", GRANT_A, UI, UPGRADES, False),
        ("the UI's set, by a grant", UI, GRANT_A, UPGRADES, False),
    ],
)
def test_a_set_is_replaced_only_by_the_caller_that_may(
    held: Store,
    case: str,
    first: tuple[str, str],
    then: tuple[str, str],
    upgrades: tuple[str, ...],
    accepted: bool,
) -> None:
    # the first set of a client is written under any credential
    assert _may(held, then) and _may(held, first)
    rev = _subscribe(held, first, ["cards/*"])
    assert rev is not None
    before = _sets(held)
    assert [(s.topics, s.caller_kind, s.credential_id) for s in before] == [(("cards/*",), *first)]
    # the forecast and the write agree, and the forecast writes nothing
    assert _may(held, then, upgrades=upgrades) is accepted
    assert _sets(held) == before
    if accepted:
        later = _subscribe(held, then, ["lists/*"], upgrades=upgrades)
        assert later is not None and later > rev
        assert [(s.topics, s.caller_kind, s.credential_id) for s in _sets(held)] == [
            (("lists/*",), *then)
        ]
    else:
        with pytest.raises(RealtimeCallerError):
            _subscribe(held, then, ["lists/*"], upgrades=upgrades)
        assert _sets(held) == before  # nothing written: topics, caller and revision
        # the holder's revision was rolled back too: the next set is numbered after the first
        assert _subscribe(held, first, ["boards/*"]) == rev + 1


def test_the_refusal_comes_from_the_record_another_instance_wrote(
    open_store: Callable[..., Store],
) -> None:
    one, two = open_store(), open_store()
    one.realtime_hold(HOLDER, APP)
    _open_client(one)
    assert _subscribe(one, GRANT_A, ["cards/*"]) is not None
    before = _sets(two)
    assert not _may(two, GRANT_B, upgrades=UPGRADES) and _may(two, GRANT_A)
    with pytest.raises(RealtimeCallerError):
        _subscribe(two, GRANT_B, ["lists/*"], upgrades=UPGRADES)
    assert _sets(one) == before
    assert _subscribe(two, GRANT_A, ["lists/*"]) is not None  # the same grant, elsewhere
    assert [s.topics for s in _sets(one)] == [("lists/*",)]


def test_a_client_whose_stream_ended_is_unknown_not_refused(held: Store) -> None:
    _subscribe(held, GRANT_A, ["cards/*"])
    held.realtime_close(APP, [CLIENT])
    # the forecast leaves an unknown client to the write, which tells it apart
    assert _may(held, GRANT_B)
    assert _subscribe(held, GRANT_B, ["lists/*"]) is None


def test_a_set_written_after_the_forecast_is_still_refused(
    open_store: Callable[..., Store],
) -> None:
    one, two = open_store(), open_store()
    one.realtime_hold(HOLDER, APP)
    _open_client(one)
    assert _may(two, GRANT_B)  # no set yet: any caller may write the first
    assert _subscribe(one, GRANT_A, ["cards/*"]) is not None  # another process wins the race
    with pytest.raises(RealtimeCallerError):
        _subscribe(two, GRANT_B, ["lists/*"])
    assert [(s.topics, s.credential_id) for s in _sets(one)] == [(("cards/*",), "cred_a")]


def test_of_concurrent_writers_under_different_credentials_one_wins(
    open_store: Callable[..., Store],
) -> None:
    stores = [open_store() for _ in range(4)]
    stores[0].realtime_hold(HOLDER, APP)
    clients = [f"{i:040d}" for i in range(8)]
    for client_id in clients:
        _open_client(stores[0], client_id)
    # each store is one process's POST, each under its own grant, all on a fresh client
    outcomes: dict[str, list[str]] = {client_id: [] for client_id in clients}
    lock = threading.Lock()

    def post(index: int, store: Store, client_id: str, barrier: threading.Barrier) -> None:
        barrier.wait()
        try:
            _subscribe(store, ("grant", f"cred_{index}"), [f"cards/{index}"], client_id=client_id)
            outcome = f"cred_{index}"
        except RealtimeCallerError:
            outcome = "refused"
        with lock:
            outcomes[client_id].append(outcome)

    for client_id in clients:
        barrier = threading.Barrier(len(stores))
        threads = [
            threading.Thread(target=post, args=(i, store, client_id, barrier))
            for i, store in enumerate(stores)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    stored = {s.client_id: s for s in _sets(stores[0])}
    for client_id, seen in outcomes.items():
        winners = [o for o in seen if o != "refused"]
        assert len(winners) == 1 and seen.count("refused") == len(stores) - 1, seen
        # the set stored is the winner's, topics and caller alike
        index = winners[0].removeprefix("cred_")
        assert (stored[client_id].credential_id, stored[client_id].topics) == (
            winners[0], (f"cards/{index}",),
        )  # fmt: skip
