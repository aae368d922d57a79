"""A nested ref and the write-only id key a source declares for it are one field."""

from __future__ import annotations

import pytest

from mapper.probe._draft import EntityDraft, Ev, FieldDraft
from mapper.probe.decide._writenames import pair_write_names


def _ref() -> FieldDraft:
    return FieldDraft("severity", "severity.id", "ref", entity="severities")


def _entity(*fields: FieldDraft) -> EntityDraft:
    return EntityDraft("issues", "api", "/issues", None, "id", "integer",
                       {f.name: f for f in fields})  # fmt: skip


@pytest.mark.parametrize(
    ("other", "folded"),
    [
        (
            FieldDraft(
                "severity_id",
                "severity_id",
                "number",
                write_only=True,
                required=True,
                evidence=[Ev("openapi")],
            ),
            "severity_id",
        ),
        (
            FieldDraft(
                "severityId", "severityId", "string", write_only=True, evidence=[Ev("openapi")]
            ),
            "severityId",
        ),
        (
            FieldDraft("severity_id", "severity_id", "ref", entity="severities", write_only=True),
            "severity_id",
        ),
        # shown in the answers too: a field of its own, not a write name
        (FieldDraft("severity_id", "severity_id", "number"), None),
        (FieldDraft("severity_id", "severity_id", "ref", entity="levels", write_only=True), None),
        (FieldDraft("severity_id", "severity_id", "boolean", write_only=True), None),
        (FieldDraft("severity_key", "severity_key", "number", write_only=True), None),
    ],
)
def test_a_declared_write_only_id_key_becomes_the_write_name(
    other: FieldDraft, folded: str | None
) -> None:
    entity = _entity(_ref(), other)
    names = pair_write_names(entity)
    severity = entity.fields["severity"]
    assert severity.write_source == folded
    if folded is None:
        assert names == [] and other.name in entity.fields
        return
    assert names == ["severity"] and list(entity.fields) == ["severity"]
    assert severity.required == other.required
    source = other.evidence[0].source if other.evidence else "sample"
    assert Ev(source, f"writes take the id as {folded!r}") in severity.evidence


def test_a_flat_ref_has_no_nested_base() -> None:
    assert FieldDraft("list", "list_id", "ref", entity="lists").nested_base() is None
    assert FieldDraft("meta", "meta.id", "number").nested_base() is None
    assert _ref().nested_base() == "severity"


@pytest.mark.parametrize(
    ("other", "folded"),
    [
        (FieldDraft("label_ids", "label_ids", "json", write_only=True), "label_ids"),
        (
            FieldDraft("labelIds", "labelIds", "list<ref>", entity="labels", write_only=True),
            "labelIds",
        ),
        (FieldDraft("label_ids", "label_ids", "number", write_only=True), None),
    ],
)
def test_a_list_of_nested_objects_takes_a_declared_ids_key(
    other: FieldDraft, folded: str | None
) -> None:
    labels = FieldDraft("labels", "labels", "list<ref>", entity="labels", nested=True)
    entity = _entity(labels, other)
    pair_write_names(entity)
    assert labels.write_source == folded
    assert (other.name in entity.fields) is (folded is None)
