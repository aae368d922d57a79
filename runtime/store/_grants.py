"""Grants: agent credentials, stored only as SHA-256 hashes of their tokens."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import bindparam, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from ._base import StoreBase
from ._errors import DuplicateGrantError, StoreError
from ._rows import Grant
from ._tables import grants
from ._tokenfile import new_token, read_token_file, write_token_file_once

LOCAL_GRANT_ID = "cred_local"


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _grant(row: Mapping[Any, Any]) -> Grant:
    return Grant(
        id=row["id"],
        app_id=row["app_id"],
        agent_name=row["agent_name"],
        principal=row["principal"],
        scopes=tuple(row["scopes"]),
        created_at=row["created_at"],
        revoked_at=row["revoked_at"],
    )


_COLUMNS = [c for c in grants.c if c.name != "token_sha256"]
# Built once: every authorised request runs it, and building (and keying) a statement
# costs more than the indexed lookup itself.
_FIND = select(*_COLUMNS, grants.c.token_sha256).where(
    grants.c.token_sha256 == bindparam("digest"),
    grants.c.revoked_at.is_(None),
    or_(grants.c.app_id == bindparam("app"), grants.c.app_id.is_(None)),
)


class GrantsMixin(StoreBase):
    def create_grant(
        self,
        *,
        id: str,
        agent_name: str,
        scopes: Sequence[str],
        token: str,
        app_id: str | None = None,
        principal: str = "owner",
    ) -> Grant:
        """Store a grant; `app_id=None` opens every app served from this store."""
        if isinstance(scopes, str):
            raise TypeError("scopes is a sequence of scope strings, not one string")
        if not id or not token:
            raise StoreError("a grant needs a non-empty id and a non-empty token")
        digest = token_sha256(token)
        row = {
            "id": id,
            "app_id": app_id,
            "agent_name": agent_name,
            "principal": principal,
            "scopes": list(scopes),
            "token_sha256": digest,
            "created_at": self._now(),
            "revoked_at": None,
        }
        try:
            with self._write() as conn:
                if conn.execute(select(grants.c.id).where(grants.c.id == id)).first():
                    raise DuplicateGrantError(f"a grant with id {id!r} already exists")
                if conn.execute(select(grants.c.id).where(grants.c.token_sha256 == digest)).first():
                    raise DuplicateGrantError("another grant already holds this token")
                conn.execute(insert(grants).values(row))
        except IntegrityError:
            # only a concurrent writer gets past the checks above
            raise DuplicateGrantError(
                f"a grant with id {id!r} or with this token already exists"
            ) from None
        return _grant(row)

    def find_grant(self, token: str, app_id: str) -> Grant | None:
        """The active grant that `token` opens `app_id` with; read fresh on every call."""
        if not token:
            return None
        digest = token_sha256(token)
        with self._driver() as conn:
            rows = self._direct(_FIND).run(conn, {"digest": digest, "app": app_id})
        # the index lookup already matched; constant time keeps a backend
        # with a lax comparison from turning this into a timing oracle
        if not rows or not hmac.compare_digest(rows[0]["token_sha256"], digest):
            return None
        return _grant(rows[0])

    def get_grant(self, id: str) -> Grant | None:
        with self._read() as conn:
            row = conn.execute(select(*_COLUMNS).where(grants.c.id == id)).first()
        return None if row is None else _grant(row._mapping)

    def active_grant(self, id: str, app_id: str) -> Grant | None:
        """The grant `id` if it is active and opens `app_id`: a credential checked again
        by its id alone, where the token is not at hand (realtime deliveries)."""
        query = select(*_COLUMNS).where(
            grants.c.id == id,
            grants.c.revoked_at.is_(None),
            or_(grants.c.app_id == app_id, grants.c.app_id.is_(None)),
        )
        with self._read() as conn:
            row = conn.execute(query).first()
        return None if row is None else _grant(row._mapping)

    def list_grants(self, app_id: str | None = None) -> list[Grant]:
        """Every grant, revoked ones included; with `app_id`, those that can open that app."""
        query = select(*_COLUMNS).order_by(grants.c.created_at, grants.c.id)
        if app_id is not None:
            query = query.where(or_(grants.c.app_id == app_id, grants.c.app_id.is_(None)))
        with self._read() as conn:
            return [_grant(row._mapping) for row in conn.execute(query)]

    def revoke_grant(self, id: str) -> bool:
        """Revoke an active grant; False when there is no active grant with this id."""
        with self._write() as conn:
            result = conn.execute(
                update(grants)
                .where(grants.c.id == id, grants.c.revoked_at.is_(None))
                .values(revoked_at=self._now())
            )
        return result.rowcount == 1

    def ensure_local_grant(self, path: Path) -> str:
        """The owner's local token: read from `path`, or minted there (mode 0600) and stored.

        The file is the source of truth: if it was replaced, the grant follows
        it. A revoked local grant stays revoked.
        """
        token = read_token_file(path)
        if token is None:
            token = write_token_file_once(path, new_token())
        digest = token_sha256(token)
        try:
            self._put_local_grant(digest)
        except IntegrityError:
            # a concurrent first start inserted the local grant after our read: look again
            try:
                self._put_local_grant(digest)
            except IntegrityError:
                raise DuplicateGrantError(
                    f"another grant already holds the token in {path}"
                ) from None
        return token

    def _put_local_grant(self, digest: str) -> None:
        with self._write() as conn:
            current = conn.execute(
                select(grants.c.token_sha256).where(grants.c.id == LOCAL_GRANT_ID)
            ).scalar_one_or_none()
            if current is None:
                conn.execute(
                    insert(grants).values(
                        id=LOCAL_GRANT_ID,
                        app_id=None,
                        agent_name="local",
                        principal="owner",
                        scopes=["*"],
                        token_sha256=digest,
                        created_at=self._now(),
                    )
                )
            elif not hmac.compare_digest(current, digest):
                conn.execute(
                    update(grants).where(grants.c.id == LOCAL_GRANT_ID).values(token_sha256=digest)
                )
