"""json-server conventions, for an API recognised by its ``/db`` root and ``_page`` paging.

json-server has no schema and validates nothing, so what reads cannot show is
proposed from its known behaviour, each marked as such for the verifier to prove:

- every collection of ``/db`` takes POST, and PATCH, PUT and DELETE on ``/{id}``;
- it stores every field as sent: nothing but ``id`` is server-managed, so a field is
  never read-only by its name alone (``created`` is whatever was written);
- deleting a record also deletes every record whose ``…Id`` field (``listId``,
  ``boardId``) named it: ``upstreamOnDelete: cascade`` on such refs. A ``…Ids`` list
  is left alone. Reads cannot see a delete, so this stays a candidate until
  ``a2map verify`` observes it on records of its own.
"""

from __future__ import annotations

from .._draft import EntityDraft, Ev
from .._naming import target_names

NO_WRITES = Ev("sample", "no spec and no Allow header: writes are not proposed")
BY_NAME = Ev("name", "a server-managed timestamp name")
READ_ONLY_BY_NAME = "read-only by its name only; no source declares it"
CASCADE = Ev(
    "name", "json-server deletes the records whose …Id names a deleted record; a candidate"
)


def is_json_server(dialect: str) -> bool:
    return dialect == "json-server"


def jsonserver_conventions(entity: EntityDraft) -> list[str]:
    """Writes, no server-managed fields, cascade candidates; notes on each."""
    entity.write = {"create": True, "update": "PATCH", "delete": True}
    detail = (
        "json-server (collections from /db, _page paging): POST, PATCH, PUT and DELETE on "
        "every collection; for a2map verify to prove"
    )
    entity.evidence = [e for e in entity.evidence if e != NO_WRITES] + [Ev("sample", detail)]
    writable, cascades = [], []
    for draft in entity.fields.values():
        if draft.read_only and BY_NAME in draft.evidence:
            draft.read_only = False
            draft.evidence = [e for e in draft.evidence if e != BY_NAME]
            draft.notes = [n for n in draft.notes if n != READ_ONLY_BY_NAME]
            draft.notes.append("json-server stores every field as sent; only id is its own")
            writable.append(draft.name)
        name = draft.source
        if draft.type == "ref" and name.endswith("Id") and draft.entity in target_names(name):
            draft.upstream_on_delete = "cascade"
            draft.evidence.append(CASCADE)
            draft.notes.append(
                "upstreamOnDelete: cascade by its name only (json-server's rule for …Id "
                "fields; reads cannot see it); a2map verify proves it"
            )
            cascades.append(draft.name)
    notes = ["write: POST, PATCH, DELETE (json-server router)"]
    if writable:
        notes.append(f"readOnly: not for {', '.join(writable)} (json-server stores what is sent)")
    if cascades:
        notes.append(f"upstreamOnDelete: cascade candidates {', '.join(cascades)} (json-server)")
    return notes
