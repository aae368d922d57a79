"""Realtime subscriptions shared by every process: the holders of streams and the sets.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None

_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "a2app_realtime_holders",
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("app_id", sa.Text, nullable=False),
        sa.Column("rev", sa.BigInteger, nullable=False),
        sa.Column("seen_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_a2app_realtime_holders"),
    )
    op.create_index("ix_a2app_realtime_holders_seen_at", "a2app_realtime_holders", ["seen_at"])
    op.create_table(
        "a2app_realtime_clients",
        sa.Column("app_id", sa.Text, nullable=False),
        sa.Column("client_id", sa.Text, nullable=False),
        sa.Column("holder", sa.Text, nullable=False),
        sa.Column("rev", sa.BigInteger, nullable=False),
        sa.Column("topics", sa.JSON, nullable=False),
        sa.Column("caller_kind", sa.Text, nullable=True),
        sa.Column("credential_id", sa.Text, nullable=True),
        sa.Column("subscribed_at", _TIME, nullable=True),
        sa.PrimaryKeyConstraint("app_id", "client_id", name="pk_a2app_realtime_clients"),
    )
    op.create_index(
        "ix_a2app_realtime_clients_holder_rev", "a2app_realtime_clients", ["holder", "rev"]
    )


def downgrade() -> None:
    for table in ("a2app_realtime_clients", "a2app_realtime_holders"):
        op.drop_table(table)
