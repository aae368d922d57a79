"""What every check is handed: the mapping, the runtime's client, and the run's own records."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from runtime.mapping import Entity, Mapping
from runtime.protocol import ProtocolError
from runtime.upstream import UpstreamClient

from ._failures import CannotSynthesize, NotProven, VerificationFailure
from ._ledger import Ledger
from ._marker import TAG_PREFIX, tag_field
from ._repair import REPAIR_ROUNDS, reshaped
from ._values import NO_VALUE, OMIT, UUID, body_for, guard, sampled_shapes, sampled_values
from ._wire import Recorder, last

# Another run's records are swept only once it started this long ago (seconds).
SWEEP_AFTER_SECONDS = 3600.0


@dataclass(frozen=True, slots=True)
class VerifyOptions:
    read_only: bool = False
    include_destructive: bool = False
    only: tuple[str, ...] = ()
    # Create records of entities the mapping cannot delete (the upstream is disposable).
    allow_leftovers: bool = False
    # Verify and stamp these entities only; the stamp withholds the rest as not verified.
    scope: tuple[str, ...] = ()
    # Another run's records are swept only once it started this long ago (seconds):
    # a younger run may still be going, against the same upstream.
    sweep_after: float = SWEEP_AFTER_SECONDS

    @property
    def chosen(self) -> tuple[str, ...]:
        """The entities this run covers (empty: all of them)."""
        return self.only or self.scope


@dataclass(slots=True)
class Snapshot:
    """One walk of a whole listing, shared by the checks that compare against it."""

    records: list[dict[str, Any]]
    total: int | None
    truncated: bool

    @property
    def ids(self) -> list[str]:
        return [r["id"] for r in self.records]


def _named(
    body: dict[str, Any], exc: ProtocolError, made_up_ids: Iterable[str]
) -> list[dict[str, Any]] | None:
    """The refusal's violations, each naming a body field: the one its dialect read, or
    the fields whose values its text quotes ("Could not find block with id: <the id
    sent>"). A create answered 404 that quotes values of the body ("Work pool 'x' not
    found") is such a refusal too: those values name records that do not exist."""
    found: list[dict[str, Any]] = []
    exchange = last("POST")
    if exc.is_("upstream_rejected"):
        found = [v for v in exc.extra.get("violations") or [] if isinstance(v, dict)]
    elif exc.is_("upstream_error") and exchange is not None and exchange.status == 404:
        found = [{"field": None, "expected": f"not found: {exchange.excerpt}"}]
    out: list[dict[str, Any]] = []
    for violation in found:
        text = str(violation.get("expected") or "")
        if violation.get("field") in body:
            out.append(violation)
            continue
        out += [
            {"field": name, "expected": text}
            for name, value in body.items()
            if isinstance(value, str) and len(value) > 3 and value in text
        ]
    if found and not out:
        # A refusal naming nothing ("Data integrity conflict"): the ids the run made up
        # are the likely culprits, so they are named, with its text.
        text = " ".join(str(v.get("expected") or "") for v in found)
        out = [{"field": name, "expected": text} for name in made_up_ids]
    return out or None


@dataclass
class Ctx:
    mapping: Mapping
    client: UpstreamClient
    recorder: Recorder
    options: VerifyOptions
    run_id: str
    ledger: Ledger
    proven_filters: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    proven_sorts: dict[str, list[str]] = field(default_factory=dict)
    # feed entity -> the field proven to move on every update (`_checks_feed`)
    proven_feed: dict[str, str] = field(default_factory=dict)
    # feed entities whose listing's ETag follows every change
    proven_etags: list[str] = field(default_factory=list)
    credentials_refused: bool = False
    # entity -> why its writes cannot be built on (the upstream does not store them),
    # and the claim that found it
    unstored: dict[str, tuple[str, str]] = field(default_factory=dict)
    # entity -> its listing path, which the upstream answers 404 (`PathNotFound`)
    missing_paths: dict[str, str] = field(default_factory=dict)
    # A create whose outcome is unknown may have landed unnamed: cleanup then sweeps
    # this run's own marker too.
    uncertain: bool = False
    # What one probe shows several claims at once, keyed by the check's concern and entity
    shared: dict[tuple[str, str], Any] = field(default_factory=dict)
    _snapshots: dict[str, Snapshot] = field(default_factory=dict)
    _own: dict[str, dict[str, Any]] = field(default_factory=dict)
    _making: set[str] = field(default_factory=set)
    _shapes: dict[str, dict[str, str]] = field(default_factory=dict)
    _samples: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    # entity -> field -> the shapes refusals of its values made the run try (see `_repair`)
    _tried: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    _counter: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def entity(self, name: str | None) -> Entity:
        assert name is not None, "an entity check was given no entity"
        return self.mapping.entities[name]

    @property
    def scan_limit(self) -> int:
        return self.mapping.serve.scan_limit

    # ------------------------------------------------------------------ reads

    async def snapshot(self, entity: Entity) -> Snapshot:
        """Every record of the listing (up to the runtime's scan bound), walked once."""
        cached = self._snapshots.get(entity.name)
        if cached is None:
            scan = self.client.scan(entity, {}, limit=self.scan_limit)
            records = await scan.collect()
            cached = Snapshot(records, scan.total, scan.truncated)
            self._snapshots[entity.name] = cached
        return cached

    async def scan(self, entity: Entity, params: dict[str, str]) -> list[dict[str, Any]]:
        return await self.client.scan(entity, params, limit=self.scan_limit).collect()

    def changed(self, entity: Entity) -> None:
        self._snapshots.pop(entity.name, None)

    # ------------------------------------------------------------------ writes

    def next_n(self) -> int:
        return next(self._counter)

    async def create(
        self, entity: Entity, body: dict[str, Any], *, mend: bool = True, keep: Iterable[str] = ()
    ) -> dict[str, Any]:
        """Create through the runtime's client; the record joins the cleanup ledger at once.

        An entity whose ids the client chooses gets one made of the run's marker, so a
        record a killed run left behind is told apart from the owner's by its id too.
        A refusal naming fields of the body is mended (`_repair`): those values change
        shape, in `body` itself, so the caller compares what was finally sent. Never
        the fields in `keep` (the value a check is about), nor anything when not `mend`
        (a check that expects the refusal).
        """
        if not entity.write.delete and not self.options.allow_leftovers:
            # Its records would stay behind: only an upstream its owner calls disposable
            # takes them (`--allow-leftovers`), and the report lists what was left.
            raise NotProven(f"{entity.name} records cannot be deleted (the mapping declares no "
                       "delete); written only with --allow-leftovers")  # fmt: skip
        self.changed(entity)
        sent = {"id": self.chosen_id(), **body} if entity.id_client and "id" not in body else body
        for round_ in itertools.count():
            try:
                record = await self.client.create_record(entity, sent)
                break
            except ProtocolError as exc:
                self.uncertain = self.uncertain or bool(exc.extra.get("outcomeUnknown"))
                # A create that may have landed is never sent again (see `uncertain`).
                again = mend and round_ < REPAIR_ROUNDS and not exc.extra.get("outcomeUnknown")
                mended = await self._mend(entity, sent, exc, frozenset(keep)) if again else None
                if mended is None:
                    raise
                for target in {id(sent): sent, id(body): body}.values():
                    for name in [n for n in target if n in mended and mended[n] is NO_VALUE]:
                        del target[name]
                    target.update({n: v for n, v in mended.items() if v is not NO_VALUE})
        self.ledger.add(entity.name, record["id"])
        return record

    async def _mend(
        self, entity: Entity, body: dict[str, Any], exc: ProtocolError, keep: frozenset[str]
    ) -> dict[str, Any] | None:
        """New values for the fields a refusal names, each in its next shape; None when
        none has a shape left to try, or the guard would refuse the result."""
        shapes = await self.shapes(entity)
        made_up = [n for n in body if shapes.get(n) == UUID]
        found = _named(body, exc, made_up)
        if found is None:
            return None
        found = [v for v in found if v.get("field") not in keep]
        tried = self._tried.setdefault(entity.name, {})
        tagged = tag_field(entity)
        samples = self._samples.get(entity.name, {})
        fresh = reshaped(
            entity, body, found, tried=tried,
            sampled=samples, marked=tagged.name if tagged is not None else None,
        )  # fmt: skip
        if not fresh:
            return None
        for name, shape in fresh.items():
            tried.setdefault(name, []).append(shape)
            shapes[name] = shape  # learnt: later bodies start in this shape
        mended: dict[str, Any] = dict.fromkeys(fresh, NO_VALUE)  # left out unless made
        mended |= body_for(
            entity, run_id=self.run_id, n=self.next_n(), variant=0, refs={}, only=set(fresh),
            shapes=shapes, samples=samples,
        )  # fmt: skip
        kept = {n: v for n, v in (body | mended).items() if v is not NO_VALUE}
        if any(v.field in mended for v in guard(entity, kept, create=True)):
            return None
        return mended

    def left_out(self, entity: Entity) -> list[str]:
        """The optional fields this run leaves out of its bodies: their made-up values
        were refused (see `_repair`)."""
        return [n for n, s in self._shapes.get(entity.name, {}).items() if s == OMIT]

    def chosen_id(self) -> str:
        """A client-chosen id: lower case, digits and dashes, as slugs are."""
        return f"{TAG_PREFIX}{self.run_id}-{self.next_n()}"

    async def synthesised(
        self, entity: Entity, *, variant: int = 0, only: set[str] | None = None,
        update: bool = False,
    ) -> dict[str, Any]:  # fmt: skip
        """A create body the guard accepts (an update body, with `update`), its references
        pointing at the run's own records."""
        refs = await self.refs_for(entity, variant=variant, only=only)
        shapes = await self.shapes(entity)
        body = body_for(
            entity, run_id=self.run_id, n=self.next_n(), variant=variant, refs=refs, only=only,
            shapes=shapes, samples=self._samples.get(entity.name), update=update,
        )  # fmt: skip
        if only is not None and (tagged := tag_field(entity)) is not None:
            # Records stay findable by their marker even in a minimal create.
            extra = body_for(
                entity, run_id=self.run_id, n=self.next_n(), variant=variant, refs={},
                only={tagged.name}, shapes=shapes,
            )  # fmt: skip
            body = {**extra, **body}
        return body

    async def shapes(self, entity: Entity) -> dict[str, str]:
        """The shapes the upstream's stored records share (none when it cannot list)."""
        if entity.name not in self._shapes:
            try:
                records = (await self.snapshot(entity)).records
            except ProtocolError:
                records = []
            theirs = [r for r in records if not self.ledger.owns(entity.name, str(r.get("id")))]
            self._shapes[entity.name] = sampled_shapes(entity, theirs)
            self._samples[entity.name] = sampled_values(entity, theirs)
        return self._shapes[entity.name]

    async def fresh(self, entity: Entity, *, variant: int = 0) -> dict[str, Any]:
        """A new record of the run's own, created for one check."""
        if not entity.write.create:
            raise NotProven(
                f"{entity.name} has no create, and the verifier writes only its own records"
            )
        body = await self.synthesised(entity, variant=variant)
        refused = guard(entity, body, create=True)
        if refused:
            raise CannotSynthesize(
                f"no {entity.name} record the guard accepts can be made: "
                + "; ".join(f"{v.field}: {v.expected}" for v in refused)
            )
        try:
            return await self.create(entity, body)
        except ProtocolError as exc:
            if not exc.is_("upstream_rejected"):
                raise
            raise NotProven(
                f"no {entity.name} record could be created to work on ({exc.message})",
                covered_by=f"entities.{entity.name}.write.create",
            ) from None

    async def own(self, name: str) -> dict[str, Any]:
        """The run's standing record of `name`, created (parents first) on first use."""
        if name not in self._own:
            if name in self._making:
                raise CannotSynthesize(f"{name} refers to itself through required references")
            self._making.add(name)
            try:
                self._own[name] = await self.fresh(self.mapping.entities[name])
            finally:
                self._making.discard(name)
        return self._own[name]

    async def spread(self, entity: Entity, variant: int) -> bool:
        """Add a record whose values differ, when the data cannot tell a claim; False if not."""
        if self.options.read_only or not entity.write.create:
            return False
        await self.fresh(entity, variant=variant)
        return True

    def adopt(self, name: str, record: dict[str, Any]) -> None:
        """A record a check created becomes the standing one, if there is none yet."""
        self._own.setdefault(name, record)

    def forget_own(self, name: str, record_id: str) -> None:
        if self._own.get(name, {}).get("id") == record_id:
            del self._own[name]

    async def refs_for(
        self, entity: Entity, *, variant: int = 0, only: Iterable[str] | None = None
    ) -> dict[str, Any]:
        """Values for the reference fields: the run's own parents, a second one for updates."""
        wanted = None if only is None else set(only)
        refs: dict[str, Any] = {}
        for field_ in entity.fields.values():
            if not field_.is_ref or field_.read_only or field_.entity is None:
                continue
            if wanted is not None and field_.name not in wanted:
                continue
            target = self.mapping.entities[field_.entity]
            if field_.entity in self._making or field_.entity == entity.name:
                if field_.required:
                    raise CannotSynthesize(f"{entity.name}.{field_.name} requires a cycle")
                continue
            if field_.required:
                parent = await self.record_of(target, second=variant > 0)
            else:
                try:
                    parent = await self.record_of(target, second=variant > 0)
                except (ProtocolError, VerificationFailure, NotProven, CannotSynthesize):
                    # An optional reference is left out when no parent can be had: the
                    # parent's own checks report why, and this create does not need it.
                    continue
            if parent is None:
                if field_.required:
                    raise NotProven(f"no {target.name} record to refer to from {entity.name}")
                continue
            refs[field_.name] = [parent] if field_.type == "list<ref>" else parent
        return refs

    async def record_of(self, target: Entity, *, second: bool) -> str | None:
        """The id of a record of `target` a reference may name: the run's own when it can
        create one (`second`: another one), else a stored one."""
        if target.write.create:
            if second:
                return str((await self.fresh(target))["id"])
            return str((await self.own(target.name))["id"])
        records = (await self.snapshot(target)).records
        return str(records[-1 if second else 0]["id"]) if records else None
