"""Names the mapping format accepts, derived the same way every time."""

from __future__ import annotations

import pytest

from mapper.probe._naming import (
    app_id,
    entity_name,
    env_prefix,
    identifier,
    kebab,
    module_name,
    singular,
    target_names,
)


@pytest.mark.parametrize(
    ("fn", "given", "expected"),
    [
        (identifier, "due-date", "due_date"),
        (identifier, "2fa", "_2fa"),
        (kebab, "finished_count", "finished-count"),
        (kebab, "finishedCount", "finished-count"),
        (kebab, "42", "x-42"),
        (module_name, "data", "data-api"),
        (module_name, "Boards", "boards"),
        (app_id, "Kanban API", "kanban"),
        (app_id, "My Shop REST Service", "my-shop"),
        (env_prefix, "kanban-drf", "KANBAN_DRF"),
        (singular, "boards", "board"),
        (singular, "categories", "category"),
        (singular, "boxes", "box"),
        (singular, "status", "status"),
        (entity_name, "/api/cards/", "cards"),
        (entity_name, "/api/v1/card-items", "card_items"),
        (entity_name, "/api/collections/cards/records", "cards"),
        (entity_name, "/", None),
        (target_names, "list_id", ["lists", "listes", "list"]),
        (target_names, "categoryId", ["categorys", "categoryes", "categories", "category"]),
        (target_names, "tags", ["tags", "tages", "tag"]),
    ],
)
def test_names(fn: object, given: str, expected: object) -> None:
    assert fn(given) == expected  # type: ignore[operator]
