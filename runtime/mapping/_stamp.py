"""Verification stamps: the machine-written proof, beside a mapping, that it was verified.

    kanban-drf.yaml            the mapping, written and reviewed by people
    kanban-drf.verified.json   its stamp, written by `a2map verify`; a build output

A stamp is bound to the mapping's content hash, which is computed before
`${VAR}` substitution: a new port or token keeps it fresh, any edit of the
mapping makes it stale. It also records which pushed-down filters and sorts the
verifier proved; the runtime lets the upstream page and count only for those.
And per feed entity, the field proven to move on every update (`feedModified`):
the change feed reads newest first only by that field; and whether the listing's
ETag was proven to follow every change (`feedEtag`).

A run that refused some claims writes a *partial* stamp: the refused claims,
each with its scope (`_withheld.py`), and the proof of the rest. A partial stamp
is format 2, so a runtime that knows only format 1 refuses it rather than
serving what was refused; a whole stamp stays format 1.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from collections.abc import Callable
from collections.abc import Mapping as AbcMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx
import jsonschema

from ._model import Entity, Field, FilterParam, Mapping, frozen_map
from ._withheld import SCOPES, Refusal, Withheld, withhold

# The claim that the upstream refuses a ref to a missing record, per field or param.
CHECKS_REF = "upstreamChecksRef"

STAMP_FORMAT = 1
PARTIAL_STAMP_FORMAT = 2  # a stamp with refused claims, which an older gate must not serve
STAMP_SUFFIX = ".verified.json"
Outcome = Literal["passed", "failed", "unproven", "error"]
# Stamps written before "unproven" was named so call it "skipped".
_LEGACY_OUTCOMES = {"skipped": "unproven"}

_CHECK = {
    "type": "object",
    "required": ["claim", "check", "outcome"],
    "properties": {
        "claim": {"type": "string"},
        "check": {"type": "string"},
        "outcome": {"enum": ["passed", "failed", "unproven", "skipped", "error"]},
        "reason": {"type": ["string", "null"]},
    },
}
_REFUSAL = {
    "type": "object",
    "required": ["claim", "check", "scope"],
    "additionalProperties": False,  # each key is a `Refusal` field
    "properties": {
        "claim": {"type": "string"},
        "check": {"type": "string"},
        "scope": {"enum": list(SCOPES)},
        "entity": {"type": ["string", "null"]},
        "field": {"type": ["string", "null"]},
        "op": {"type": ["string", "null"]},
        "operation": {"type": ["string", "null"]},
        "reason": {"type": ["string", "null"]},
        "unproven": {"type": "boolean"},
    },
}
_SCHEMA = {
    "type": "object",
    "required": ["format", "app", "contentHash", "upstream", "verifiedAt", "verifier"],
    "properties": {
        "format": {"enum": [STAMP_FORMAT, PARTIAL_STAMP_FORMAT]},
        "app": {"type": "string"},
        "contentHash": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
        "upstream": {"type": "string"},
        "verifiedAt": {"type": "string"},
        "verifier": {
            "type": "object",
            "required": ["version"],
            "properties": {"name": {"type": "string"}, "version": {"type": "string"}},
        },
        "readOnly": {"type": "boolean"},
        "refused": {"type": "array", "items": _REFUSAL},
        "checks": {"type": "array", "items": _CHECK},
        "proven": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "filters": {
                        "type": "object",
                        "additionalProperties": {"type": "array", "items": {"type": "string"}},
                    },
                    "sort": {"type": "array", "items": {"type": "string"}},
                    "feedModified": {"type": "string"},
                    "feedEtag": {"type": "boolean"},
                },
            },
        },
    },
}
_VALIDATOR = jsonschema.Draft202012Validator(_SCHEMA)


class StampError(ValueError):
    """A stamp file that exists but cannot be trusted (unreadable, malformed, other format)."""


@dataclass(frozen=True, slots=True)
class StampCheck:
    """One claim of the mapping and what the verifier found."""

    claim: str
    check: str
    outcome: Outcome
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Stamp:
    content_hash: str
    app: str
    upstream: str
    verified_at: str
    verifier_version: str
    read_only: bool = False
    checks: tuple[StampCheck, ...] = ()
    # entity -> field -> operators whose pushdown was proven exact
    proven_filters: AbcMapping[str, AbcMapping[str, tuple[str, ...]]] = field(
        default_factory=frozen_map
    )
    # entity -> sort fields the upstream was proven to order by, both directions
    proven_sorts: AbcMapping[str, tuple[str, ...]] = field(default_factory=frozen_map)
    # entity -> the datetime field proven to move forward on every update and to list
    # an updated record first when sorted newest first (the change feed's cheap walk)
    proven_feed: AbcMapping[str, str] = field(default_factory=frozen_map)
    # entities whose listing's ETag answers 304 until a record changes, then another tag
    proven_etags: tuple[str, ...] = ()
    verifier_name: str = "a2map verify"
    # the claims a partial run refused; empty for a whole proof
    refused: tuple[Refusal, ...] = ()

    @property
    def partial(self) -> bool:
        return bool(self.refused)

    def withhold(self, mapping: Mapping, *, unproven: bool = True) -> tuple[Mapping, Withheld]:
        """The part of `mapping` this stamp proved, and what it withholds (see `_withheld`).

        Without `unproven`, only what was disproven is withheld: what the run could not
        exercise is served (`--allow-unverified`).
        """
        return withhold(mapping, [r for r in self.refused if unproven or not r.unproven])

    def fresh_for(self, mapping: Mapping) -> bool:
        """True while the mapping's text (not its environment) is the one verified."""
        return self.content_hash == mapping.content_hash

    @property
    def not_proven(self) -> tuple[StampCheck, ...]:
        return tuple(c for c in self.checks if c.outcome == "unproven")

    def filter_proven(self, entity: str, field_name: str, op: str) -> bool:
        return op in self.proven_filters.get(entity, {}).get(field_name, ())

    def sort_proven(self, entity: str, field_name: str) -> bool:
        return field_name in self.proven_sorts.get(entity, ())

    def apply(self, mapping: Mapping) -> Mapping:
        """The mapping with `proven` set from this stamp, for the query planner and the
        guard.

        A filter or sort an owner marked proven in the file stays proven; the
        stamp only adds what the verifier proved. A sort spec counts as proven
        only when every one of its fields was. `upstreamChecksRef: true`, on a field
        or an operation's param, stands only where this stamp proved it: the runtime
        leaves ref checks to the upstream on that alone. The change feed's modified
        fields come from this stamp alone (`Feed.modified`).
        """
        entities = {name: self._apply_entity(e) for name, e in mapping.entities.items()}
        operations = tuple(
            dataclasses.replace(op, params=_ref_checks(op.params, self._param_proven(op.name)))
            for op in mapping.operations
        )
        serve = mapping.serve
        if serve.feed is not None:
            modified = {e: f for e, f in self.proven_feed.items() if e in serve.feed.entities}
            etags = tuple(e for e in self.proven_etags if e in serve.feed.entities)
            feed = dataclasses.replace(serve.feed, modified=frozen_map(modified), etags=etags)
            serve = dataclasses.replace(serve, feed=feed)
        return dataclasses.replace(
            mapping, entities=frozen_map(entities), operations=operations, serve=serve
        )

    def ref_check_proven(self, entity: str, field_name: str) -> bool:
        return self.passed(f"entities.{entity}.fields.{field_name}.{CHECKS_REF}")

    def _param_proven(self, operation: str) -> Callable[[str], bool]:
        return lambda param: self.passed(f"operations.{operation}.params.{param}.{CHECKS_REF}")

    def passed(self, claim: str) -> bool:
        return any(c.claim == claim and c.outcome == "passed" for c in self.checks)

    def _apply_entity(self, entity: Entity) -> Entity:
        filters = {
            name: frozen_map(
                {
                    op: FilterParam(p.param, p.proven or self.filter_proven(entity.name, name, op))
                    for op, p in ops.items()
                }
            )
            for name, ops in entity.filters.items()
        }
        sort = entity.sort
        if sort is not None and not sort.proven and sort.fields:
            proven = all(self.sort_proven(entity.name, f) for f in sort.fields)
            sort = dataclasses.replace(sort, proven=proven)
        fields = _ref_checks(entity.fields, lambda name: self.ref_check_proven(entity.name, name))
        return dataclasses.replace(entity, filters=frozen_map(filters), sort=sort, fields=fields)

    def to_json(self) -> dict[str, Any]:
        entities = sorted(
            set(self.proven_filters)
            | set(self.proven_sorts)
            | set(self.proven_feed)
            | set(self.proven_etags)
        )
        proven: dict[str, dict[str, Any]] = {
            name: {
                "filters": {f: list(ops) for f, ops in self.proven_filters.get(name, {}).items()},
                "sort": list(self.proven_sorts.get(name, ())),
            }
            for name in entities
        }
        for name, modified in self.proven_feed.items():
            proven[name]["feedModified"] = modified
        for name in self.proven_etags:
            proven[name]["feedEtag"] = True
        counts = {
            "passed": sum(1 for c in self.checks if c.outcome == "passed"),
            "notProven": len(self.not_proven),
        }
        doc: dict[str, Any] = {
            "format": PARTIAL_STAMP_FORMAT if self.partial else STAMP_FORMAT,
            "app": self.app,
            "contentHash": self.content_hash,
            "upstream": self.upstream,
            "verifiedAt": self.verified_at,
            "verifier": {"name": self.verifier_name, "version": self.verifier_version},
            "readOnly": self.read_only,
            "summary": counts,
            "proven": proven,
            "notProven": [c.claim for c in self.not_proven],
            "checks": [
                {"claim": c.claim, "check": c.check, "outcome": c.outcome, "reason": c.reason}
                for c in self.checks
            ],
        }
        if self.partial:
            doc["refused"] = [dataclasses.asdict(r) for r in self.refused]
        return doc

    @classmethod
    def from_json(cls, doc: Any) -> Stamp:
        errors = sorted(_VALIDATOR.iter_errors(doc), key=lambda e: list(e.path))
        if errors:
            where = "/".join(str(p) for p in errors[0].path) or "(root)"
            message = errors[0].message
            raise StampError(f"not a stamp of format {STAMP_FORMAT}: {where}: {message}")
        if (doc["format"] == PARTIAL_STAMP_FORMAT) != bool(doc.get("refused")):
            # Either half alone is a stamp whose scope cannot be trusted.
            raise StampError("format 2 (partial) and refused claims go together")
        proven = doc.get("proven", {})
        return cls(
            content_hash=doc["contentHash"],
            app=doc["app"],
            upstream=doc["upstream"],
            verified_at=doc["verifiedAt"],
            verifier_version=doc["verifier"]["version"],
            verifier_name=doc["verifier"].get("name", "a2map verify"),
            read_only=doc.get("readOnly", False),
            checks=tuple(
                StampCheck(
                    c["claim"],
                    c["check"],
                    _LEGACY_OUTCOMES.get(c["outcome"], c["outcome"]),
                    c.get("reason"),
                )
                for c in doc.get("checks", [])
            ),
            proven_filters=frozen_map(
                {
                    entity: frozen_map(
                        {f: tuple(ops) for f, ops in spec.get("filters", {}).items()}
                    )
                    for entity, spec in proven.items()
                }
            ),
            proven_sorts=frozen_map(
                {entity: tuple(spec.get("sort", ())) for entity, spec in proven.items()}
            ),
            proven_feed=frozen_map(
                {e: spec["feedModified"] for e, spec in proven.items() if "feedModified" in spec}
            ),
            proven_etags=tuple(e for e, spec in proven.items() if spec.get("feedEtag") is True),
            refused=tuple(Refusal(**r) for r in doc.get("refused", [])),
        )


def stamp_path(mapping_path: str | os.PathLike[str]) -> Path:
    """`mappings/kanban-drf.yaml` -> `mappings/kanban-drf.verified.json`."""
    path = Path(mapping_path)
    return path.with_name(path.stem + STAMP_SUFFIX)


def load_stamp(path: str | os.PathLike[str]) -> Stamp | None:
    """The stamp at `path`; None when there is none; `StampError` when it is unusable."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise StampError(f"{p}: cannot read: {exc}") from None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise StampError(f"{p}: not JSON: {exc}") from None
    try:
        return Stamp.from_json(doc)
    except StampError as exc:
        raise StampError(f"{p}: {exc}") from None


def write_stamp(path: str | os.PathLike[str], stamp: Stamp) -> Path:
    """Write atomically, so a reader never sees half a stamp."""
    p = Path(path)
    text = json.dumps(stamp.to_json(), indent=2, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=p.name + ".", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p


def remove_stamp(path: str | os.PathLike[str]) -> bool:
    """Delete a stamp that no longer holds; True when there was one."""
    try:
        Path(path).unlink()
    except FileNotFoundError:
        return False
    return True


def public_url(url: str) -> str:
    """A URL safe to record: no user, password, query or fragment."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        return "(unparseable URL)"
    return str(parsed.copy_with(username=None, password=None, query=None, fragment=None))


@dataclass(frozen=True, slots=True)
class StampStatus:
    """What a serve gate needs: is there a fresh stamp, and if not, why not."""

    stamp: Stamp | None
    fresh: bool
    reason: str


def stamp_status(mapping_path: str | os.PathLike[str], mapping: Mapping) -> StampStatus:
    path = stamp_path(mapping_path)
    try:
        stamp = load_stamp(path)
    except StampError as exc:
        return StampStatus(None, False, f"the stamp cannot be used: {exc}")
    if stamp is None:
        return StampStatus(None, False, f"no verification stamp ({path.name}); run a2map verify")
    if not stamp.fresh_for(mapping):
        return StampStatus(
            stamp,
            False,
            f"{path.name} was written for another version of the mapping "
            f"({stamp.content_hash[:19]}…, now {mapping.content_hash[:19]}…); run a2map verify",
        )
    scope = "read claims only" if stamp.read_only else "reads and writes"
    if stamp.partial:
        scope += f"; partly: {len(stamp.refused)} refused claim(s) withheld"
    return StampStatus(stamp, True, f"verified {stamp.verified_at} ({scope})")


def unproven_ref_checks(mapping: Mapping) -> Mapping:
    """The mapping served without a stamp: no claim that the upstream checks refs is
    taken on the file's word, so every ref is checked before a write or a call."""
    entities = {
        name: dataclasses.replace(entity, fields=_ref_checks(entity.fields, lambda _: False))
        for name, entity in mapping.entities.items()
    }
    operations = tuple(
        dataclasses.replace(op, params=_ref_checks(op.params, lambda _: False))
        for op in mapping.operations
    )
    return dataclasses.replace(mapping, entities=frozen_map(entities), operations=operations)


def _ref_checks(
    fields: AbcMapping[str, Field], proven: Callable[[str], bool]
) -> AbcMapping[str, Field]:
    """The fields with `upstreamChecksRef: true` kept only where `proven` says so."""
    return frozen_map({
        name: f if not f.upstream_checks_ref or proven(name)
        else dataclasses.replace(f, upstream_checks_ref=None)
        for name, f in fields.items()
    })  # fmt: skip
