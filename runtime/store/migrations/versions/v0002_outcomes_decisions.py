"""Idempotency outcomes kept after a failed write, and owner decisions on approval keys.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    # NULL: the first request succeeded. "unknown": it was sent and may have been
    # carried out. "partial": it landed, but not as asked (a read-back found less).
    op.add_column("a2app_idempotency_keys", sa.Column("outcome", sa.Text, nullable=True))
    # The arguments an approval key stands for, so an owner can see what is asked,
    # and the owner's decision under `serve.approvals: owner`.
    op.add_column("a2app_approvals", sa.Column("args", sa.JSON, nullable=True))
    op.add_column("a2app_approvals", sa.Column("decision", sa.Text, nullable=True))
    op.add_column("a2app_approvals", sa.Column("decided_at", _TIME, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("a2app_approvals") as batch:
        batch.drop_column("decided_at")
        batch.drop_column("decision")
        batch.drop_column("args")
    with op.batch_alter_table("a2app_idempotency_keys") as batch:
        batch.drop_column("outcome")
