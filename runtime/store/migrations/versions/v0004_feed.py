"""The change feed: the snapshot of what the last poll saw, the changes, and who polls.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None

_TIME = sa.DateTime(timezone=True)
_SERIAL = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "a2app_feed_records",
        sa.Column("app_id", sa.Text, nullable=False),
        sa.Column("entity", sa.Text, nullable=False),
        sa.Column("record_id", sa.Text, nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("app_id", "entity", "record_id", name="pk_a2app_feed_records"),
    )
    op.create_table(
        "a2app_feed_changes",
        sa.Column("seq", _SERIAL, autoincrement=True, nullable=False),
        sa.Column("app_id", sa.Text, nullable=False),
        sa.Column("entity", sa.Text, nullable=False),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("record_id", sa.Text, nullable=False),
        sa.Column("record", sa.JSON, nullable=True),
        sa.Column("at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("seq", name="pk_a2app_feed_changes"),
    )
    op.create_index("ix_a2app_feed_changes_app_id_seq", "a2app_feed_changes", ["app_id", "seq"])
    op.create_table(
        "a2app_feed_state",
        sa.Column("app_id", sa.Text, nullable=False),
        sa.Column("entity", sa.Text, nullable=False),
        sa.Column("holder", sa.Text, nullable=True),
        sa.Column("lease_until", _TIME, nullable=True),
        sa.Column("baseline_at", _TIME, nullable=True),
        sa.Column("note", sa.Text, nullable=True),
        sa.Column("updated_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("app_id", "entity", name="pk_a2app_feed_state"),
    )


def downgrade() -> None:
    for table in ("a2app_feed_state", "a2app_feed_changes", "a2app_feed_records"):
        op.drop_table(table)
