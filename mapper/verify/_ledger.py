"""The cleanup ledger: the run writes only records it created, and removes every one.

Records are entered the moment the upstream names their id, deleted in reverse
order of creation (children before the parents they refer to), and each delete
is confirmed by a read, because an upstream that answers 204 without deleting
must not be reported as clean. Records carry the run marker (`a2v-<run id>` in a
string field), so the next run sweeps what an interrupted one left behind.

An upstream may make records of its own in answer to the run's writes (a limit named
`deployment:<id>` for a deployment created with a concurrency limit). After the
cleanup, records that name the id of a record the run created are such side effects
and are removed too (`side_effects`): nobody else knew those ids.
"""

from __future__ import annotations

import re
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from runtime.mapping import Entity, Mapping
from runtime.protocol import ProtocolError
from runtime.upstream import UpstreamClient

from ._marker import TAG_PREFIX, tag_field

RUN_MARK = re.compile(re.escape(TAG_PREFIX) + r"([0-9a-f]{10})\b")
# A run id: the second the run started (8 hex digits), then 2 random ones.
_STARTED_DIGITS = 8
# A run id whose start lies further ahead than this is no time (an id made before run
# ids carried one): its records are swept as those of any run long over.
_CLOCK_SKEW_SECONDS = 86400


def new_run_id(now: float | None = None) -> str:
    """A run id that says when its run started, so a sweep can tell a run that may
    still be going from one long over."""
    started = int(time.time() if now is None else now)
    return f"{started:0{_STARTED_DIGITS}x}{secrets.token_hex(1)}"


def run_age(run_id: str, now: float | None = None) -> float | None:
    """Seconds since the run started; None when its id carries no time."""
    started = int(run_id[:_STARTED_DIGITS], 16)
    age = (time.time() if now is None else now) - started
    return None if age < -_CLOCK_SKEW_SECONDS else age


# Ids shorter than this (integers, short slugs) occur in anyone's text by chance.
_UNIQUE_ID_CHARS = 12


@dataclass(frozen=True, slots=True)
class Leftover:
    entity: str
    id: str
    reason: str

    def as_dict(self) -> dict[str, str]:
        return {"entity": self.entity, "id": self.id, "reason": self.reason}


class Ledger:
    def __init__(self, mapping: Mapping, client: UpstreamClient) -> None:
        self._mapping = mapping
        self._client = client
        self._records: list[tuple[str, str]] = []
        self._created: set[str] = set()  # every id the run created, removed or not
        self.removed = 0
        self.swept: Counter[str] = Counter()
        # Records of other runs too young to sweep (they may still be going)
        self.running: Counter[str] = Counter()
        self.side_effects: Counter[str] = Counter()
        self.leftovers: list[Leftover] = []
        self.sweep_problems: list[str] = []

    def add(self, entity: str, record_id: str) -> None:
        # An upstream that ignores writes may name the same id for every create.
        if (entity, record_id) not in self._records:
            self._records.append((entity, record_id))
        self._created.add(record_id)

    def forget(self, entity: str, record_id: str) -> None:
        """A check deleted the record and confirmed it gone."""
        if (entity, record_id) in self._records:
            self._records.remove((entity, record_id))
            self.removed += 1

    def owns(self, entity: str, record_id: str) -> bool:
        return (entity, record_id) in self._records

    @property
    def pending(self) -> list[tuple[str, str]]:
        return list(self._records)

    async def cleanup(self, children_first: list[str]) -> None:
        """Delete every record of this run; report what stays.

        Referring entities go first and, within one, the newest record first, so
        an upstream that restricts deletes of referenced records is satisfied; a
        second pass catches what a reference inside one entity held back.
        """
        rank = {name: i for i, name in enumerate(children_first)}
        failed: list[tuple[str, str, str]] = []
        for _ in range(2):
            todo = sorted(
                enumerate(self._records), key=lambda item: (rank.get(item[1][0], 0), -item[0])
            )
            self._records = []
            failed = []
            for _, (entity, record_id) in todo:
                reason = await self.remove(self._mapping.entities[entity], record_id)
                if reason is None:
                    self.removed += 1
                else:
                    failed.append((entity, record_id, reason))
                    self._records.append((entity, record_id))
            if not failed:
                break
        self._records = []
        self.leftovers.extend(Leftover(e, i, reason) for e, i, reason in failed)

    async def drop(self, entity: Entity, record_id: str) -> None:
        """Delete one record of this run now (one a check left unsound on purpose, such
        as naming a record that does not exist); what fails stays for the cleanup."""
        if await self.remove(entity, record_id) is None:
            self.forget(entity.name, record_id)

    async def remove(self, entity: Entity, record_id: str) -> str | None:
        """Delete and confirm; None when the record is gone, else why it is not."""
        try:
            answered = True
            if entity.write.delete:
                answered = await self._client.delete_record(entity, record_id) is not None
            else:
                # The mapping offers no delete to agents; the run still owes the cleanup.
                path = entity.detail_path.replace("{id}", quote(record_id, safe=""))
                await self._client.call("DELETE", path)
            if await self._client.get_record(entity, record_id) is not None:
                if not answered:
                    return "the upstream answers 404 to its DELETE (no such route) and keeps it"
                return "the upstream answered the delete, but the record can still be read"
        except ProtocolError as exc:
            if exc.from_upstream:
                return exc.message
            raise
        return None

    async def sweep_side_effects(self, order: Iterable[str]) -> None:
        """Remove records the upstream made of its own in answer to the run's writes: those
        whose text names the id of a record the run created (ids long enough to be
        unique; integers are never matched)."""
        ids = {i for i in self._created if len(i) >= _UNIQUE_ID_CHARS}
        if not ids:
            return
        for name in order:
            entity = self._mapping.entities[name]
            if not entity.write.delete:
                continue
            named = await self._looked_for(name, "side effects", self._naming(entity, ids))
            for record in named or ():
                reason = await self.remove(entity, str(record["id"]))
                if reason is None:
                    self.side_effects[name] += 1
                else:
                    self.leftovers.append(Leftover(name, record["id"], f"side effect: {reason}"))

    async def sweep(
        self, run_id: str, order: Iterable[str], *, own: bool = False, lease: float = 0.0
    ) -> None:
        """Remove what earlier, interrupted runs left: records carrying another run's marker
        whose run started at least `lease` seconds ago (a younger one may still be going:
        its records are counted in `running` and left alone); with `own`, this run's:
        what an interrupted create left without an answer."""
        for name in order:
            entity = self._mapping.entities[name]
            tagged = tag_field(entity)
            if tagged is None:
                continue
            marked = await self._looked_for(
                name, "leftovers", self._marked(entity, tagged.name, run_id, own=own)
            )
            for record in marked or ():
                if not own and _young(record.get(tagged.name), lease):
                    self.running[name] += 1
                    continue
                reason = await self.remove(entity, record["id"])
                if reason is None and own:
                    self.removed += 1
                elif reason is None:
                    self.swept[name] += 1
                else:
                    self.leftovers.append(Leftover(name, record["id"], f"sweep: {reason}"))

    async def _looked_for(
        self, name: str, what: str, found: Awaitable[list[dict[str, Any]]]
    ) -> list[dict[str, Any]] | None:
        """The records a sweep looks for, or None, with the problem noted, when the
        upstream cannot list them."""
        try:
            return await found
        except ProtocolError as exc:
            if not exc.from_upstream:
                raise
            self.sweep_problems.append(f"{name}: cannot look for {what}: {exc.message}")
            return None

    async def _naming(self, entity: Entity, ids: set[str]) -> list[dict[str, Any]]:
        scan = self._client.scan(entity, {}, limit=self._mapping.serve.scan_limit)
        return [r async for r in scan if str(r.get("id")) not in ids and _names(r, ids)]

    async def _marked(
        self, entity: Entity, field: str, run_id: str, *, own: bool = False
    ) -> list[dict[str, Any]]:
        # Narrowed by the mapping's own `~` filter when it has one; the marker is
        # checked here either way, so an ignored parameter never widens a delete.
        params: dict[str, str] = {}
        like = entity.filters.get(field, {}).get("~")
        if like is not None:
            params[like.param] = TAG_PREFIX
        scan = self._client.scan(entity, params, limit=self._mapping.serve.scan_limit)
        out = []
        async for record in scan:
            value = record.get(field)
            match = RUN_MARK.match(value) if isinstance(value, str) else None
            if match is not None and (match.group(1) == run_id) is own:
                out.append(record)
        return out


def _names(record: dict[str, Any], ids: set[str]) -> bool:
    """Whether a top-level text value of the record holds one of `ids`."""
    return any(isinstance(value, str) and any(i in value for i in ids) for value in record.values())


def _young(marked: object, lease: float) -> bool:
    """Whether the run that marked this value started less than `lease` seconds ago."""
    match = RUN_MARK.match(marked) if isinstance(marked, str) else None
    if match is None or lease <= 0:
        return False
    age = run_age(match.group(1))
    return age is not None and age < lease
