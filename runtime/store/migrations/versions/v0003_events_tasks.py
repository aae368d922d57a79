"""The app→agent plane: events, the task queue and the UI's context.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None

_TIME = sa.DateTime(timezone=True)
_SERIAL = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "a2app_events",
        sa.Column("seq", _SERIAL, autoincrement=True, nullable=False),
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("app_id", sa.Text, nullable=False),
        sa.Column("type", sa.Text, nullable=False),
        sa.Column("payload", sa.JSON, nullable=True),
        sa.Column("dedup_key", sa.Text, nullable=True),
        sa.Column("created_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("seq", name="pk_a2app_events"),
        sa.UniqueConstraint("id", name="uq_a2app_events_id"),
    )
    op.create_index("ix_a2app_events_app_id_seq", "a2app_events", ["app_id", "seq"])
    op.create_index(
        "ix_a2app_events_app_id_dedup_key", "a2app_events", ["app_id", "dedup_key"], unique=True
    )
    op.create_table(
        "a2app_tasks",
        sa.Column("seq", _SERIAL, autoincrement=True, nullable=False),
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("app_id", sa.Text, nullable=False),
        sa.Column("event_id", sa.Text, nullable=True),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("capability", sa.Text, nullable=False),
        sa.Column("payload", sa.JSON, nullable=True),
        sa.Column("dedup_key", sa.Text, nullable=True),
        sa.Column("claim_credential", sa.Text, nullable=True),
        sa.Column("claim_principal", sa.Text, nullable=True),
        sa.Column("claimed_at", _TIME, nullable=True),
        sa.Column("step", sa.Text, nullable=True),
        sa.Column("percent", sa.Float, nullable=True),
        sa.Column("ask", sa.JSON, nullable=True),
        sa.Column("result", sa.JSON, nullable=True),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("deliveries", sa.Integer, nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("updated_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("seq", name="pk_a2app_tasks"),
        sa.UniqueConstraint("id", name="uq_a2app_tasks_id"),
    )
    op.create_index("ix_a2app_tasks_app_id_status", "a2app_tasks", ["app_id", "status"])
    op.create_index(
        "ix_a2app_tasks_app_id_dedup_key", "a2app_tasks", ["app_id", "dedup_key"], unique=True
    )
    op.create_table(
        "a2app_contexts",
        sa.Column("app_id", sa.Text, nullable=False),
        sa.Column("view", sa.Text, nullable=True),
        sa.Column("selected", sa.JSON, nullable=False),
        sa.Column("updated_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("app_id", name="pk_a2app_contexts"),
    )


def downgrade() -> None:
    for table in ("a2app_contexts", "a2app_tasks", "a2app_events"):
        op.drop_table(table)
