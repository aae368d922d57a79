"""Rails conventions: a nested association is written through its column."""

from __future__ import annotations

from mapper.probe._draft import EntityDraft, Ev, FieldDraft
from mapper.probe.sources import rails_conventions

LOOKUP = Ev("lookup", "a sampled value resolves at GET /api/severities/{id}")


def _issues(severity: FieldDraft) -> EntityDraft:
    title = FieldDraft("title", "title", "string")
    return EntityDraft("issues", "api", "/api/issues", None, "id", "integer",
                       {"title": title, severity.name: severity})  # fmt: skip


def test_a_nested_association_is_written_to_its_column_and_required() -> None:
    severity = FieldDraft("severity", "severity.id", "ref", entity="severities",
                          evidence=[Ev("sample"), LOOKUP])  # fmt: skip
    entity = _issues(severity)
    records = [{"title": "a", "severity": {"id": 1, "name": "low"}}]
    notes = rails_conventions(entity, records)
    assert severity.write_source == "severity_id" and severity.required
    assert entity.write["wrap"] == "issue"
    assert any(e.source == "name" and "'severity_id' takes writes" in (e.detail or "")
               for e in severity.evidence)  # fmt: skip
    assert "fields.severity.writeSource: severity_id (Rails conventions; a candidate)" in notes


def test_a_nested_association_some_record_lacks_is_not_required() -> None:
    severity = FieldDraft("severity", "severity.id", "ref", entity="severities",
                          evidence=[Ev("sample"), LOOKUP])  # fmt: skip
    entity = _issues(severity)
    rails_conventions(entity, [{"title": "a", "severity": None}, {"title": "b"}])
    assert severity.write_source == "severity_id" and not severity.required


def test_a_flat_column_keeps_its_name() -> None:
    column = FieldDraft("severity_id", "severity_id", "ref", entity="severities",
                        evidence=[Ev("sample"), LOOKUP])  # fmt: skip
    entity = _issues(column)
    rails_conventions(entity, [{"title": "a", "severity_id": 1}])
    assert column.write_source is None and column.required


def test_a_nested_has_many_is_written_through_its_ids_writer_and_never_required() -> None:
    labels = FieldDraft("labels", "labels", "list<ref>", entity="labels", nested=True,
                        evidence=[Ev("sample"), LOOKUP])  # fmt: skip
    entity = _issues(labels)
    rails_conventions(entity, [{"title": "a", "labels": [{"id": 1, "name": "ui"}]}])
    assert labels.write_source == "label_ids" and not labels.required
    assert Ev(
        "name", "a Rails association rendered nested; its writer 'label_ids' takes writes"
    ) in (labels.evidence)
