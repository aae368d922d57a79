"""The first store schema: grants, dataVersion, idempotency, approvals, receipts, audit, jobs.

Revision ID: 0001
Revises: none
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

# written out rather than imported from the live model: a migration must keep
# meaning the same schema after the model moves on
_TIME = sa.DateTime(timezone=True)
_SERIAL = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "a2app_grants",
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("app_id", sa.Text, nullable=True),
        sa.Column("agent_name", sa.Text, nullable=False),
        sa.Column("principal", sa.Text, nullable=False, server_default="owner"),
        sa.Column("scopes", sa.JSON, nullable=False),
        sa.Column("token_sha256", sa.String(64), nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("revoked_at", _TIME, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_a2app_grants"),
        sa.UniqueConstraint("token_sha256", name="uq_a2app_grants_token_sha256"),
    )
    op.create_table(
        "a2app_data_versions",
        sa.Column("app_id", sa.Text, nullable=False),
        sa.Column("epoch", sa.Text, nullable=False),
        sa.Column("counter", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("app_id", name="pk_a2app_data_versions"),
    )
    op.create_table(
        "a2app_idempotency_keys",
        sa.Column("app_id", sa.Text, nullable=False),
        sa.Column("scope", sa.Text, nullable=False),
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("record_id", sa.Text, nullable=True),
        sa.Column("operation", sa.Text, nullable=True),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("expires_at", _TIME, nullable=False),
        sa.Column("completed_at", _TIME, nullable=True),
        sa.PrimaryKeyConstraint("app_id", "scope", "key", name="pk_a2app_idempotency_keys"),
    )
    op.create_index(
        "ix_a2app_idempotency_keys_app_id_expires_at",
        "a2app_idempotency_keys",
        ["app_id", "expires_at"],
    )
    op.create_table(
        "a2app_approvals",
        sa.Column("app_id", sa.Text, nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("operation", sa.Text, nullable=False),
        sa.Column("issued_at", _TIME, nullable=False),
        sa.Column("expires_at", _TIME, nullable=False),
        sa.Column("used_at", _TIME, nullable=True),
        sa.PrimaryKeyConstraint("app_id", "key", name="pk_a2app_approvals"),
    )
    op.create_table(
        "a2app_receipts",
        sa.Column("id", _SERIAL, autoincrement=True, nullable=False),
        sa.Column("app_id", sa.Text, nullable=False),
        sa.Column("at", _TIME, nullable=False),
        sa.Column("credential_id", sa.Text, nullable=True),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("record_id", sa.Text, nullable=True),
        sa.Column("text", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_a2app_receipts"),
    )
    op.create_index("ix_a2app_receipts_app_id_id", "a2app_receipts", ["app_id", "id"])
    op.create_table(
        "a2app_audit",
        sa.Column("id", _SERIAL, autoincrement=True, nullable=False),
        sa.Column("app_id", sa.Text, nullable=False),
        sa.Column("at", _TIME, nullable=False),
        sa.Column("credential_id", sa.Text, nullable=True),
        sa.Column("agent_name", sa.Text, nullable=True),
        sa.Column("asserted_agent", sa.Text, nullable=True),
        sa.Column("principal", sa.Text, nullable=True),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("record_id", sa.Text, nullable=True),
        sa.Column("outcome", sa.Text, nullable=False),
        sa.Column("code", sa.Text, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_a2app_audit"),
    )
    op.create_index("ix_a2app_audit_app_id_id", "a2app_audit", ["app_id", "id"])
    op.create_table(
        "a2app_jobs",
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("app_id", sa.Text, nullable=False),
        sa.Column("operation", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("params", sa.JSON, nullable=False),
        sa.Column("result", sa.JSON, nullable=True),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("updated_at", _TIME, nullable=False),
        sa.Column("owner", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_a2app_jobs"),
    )
    op.create_index("ix_a2app_jobs_app_id", "a2app_jobs", ["app_id"])
    op.create_index("ix_a2app_jobs_owner_status", "a2app_jobs", ["owner", "status"])


def downgrade() -> None:
    for table in (
        "a2app_jobs",
        "a2app_audit",
        "a2app_receipts",
        "a2app_approvals",
        "a2app_idempotency_keys",
        "a2app_data_versions",
        "a2app_grants",
    ):
        op.drop_table(table)
