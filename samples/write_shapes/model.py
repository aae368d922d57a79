"""The four collections of the write-shapes app: their fields and how their writes answer."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Field:
    type: str  # string | boolean | date | datetime | enum
    required: bool = False
    read_only: bool = False
    nullable: bool = False
    max: int | None = None
    unique: bool = False
    values: tuple[str, ...] = ()
    filter: bool = False  # ``?<name>=<value>`` lists the records holding exactly that value


@dataclass(frozen=True)
class Collection:
    name: str  # its path segment: ``/notes``
    schema: str  # its record schema's name in the OpenAPI document
    # How a create answers: ``location`` (201, a Location header, no body), ``empty``
    # (204, no body, no Location) or ``record`` (201 with the record).
    create: str
    fields: dict[str, Field]
    wrap: str | None = None  # writes take, and answer, ``{wrap: {...}}``
    summary: str = ""
    seed: list[dict[str, object]] = field(default_factory=list)


def _seed_notes() -> list[dict[str, object]]:
    return [
        {"title": f"note {n}", "body": None if n % 4 == 0 else f"text of note {n}",
         "pinned": n % 5 == 0, "created_at": f"2026-11-{n:02d}T09:30:00Z"}
        for n in range(1, 24)
    ]  # fmt: skip


def _seed_tags() -> list[dict[str, object]]:
    colors = ("red", "green", "blue")
    return [{"name": f"tag-{n:02d}", "color": colors[n % 3]} for n in range(1, 22)]


def _seed_cards() -> list[dict[str, object]]:
    return [
        {"title": f"card {n}", "due": None if n % 3 == 0 else f"2026-12-{n:02d}",
         "done": n % 2 == 0, "updated_at": f"2026-11-{n:02d}T12:00:00Z"}
        for n in range(1, 26)
    ]  # fmt: skip


def _seed_events() -> list[dict[str, object]]:
    return [
        {"title": f"event {n}", "starts_at": f"2026-12-{n:02d}T18:00:00Z", "open": n % 2 == 1}
        for n in range(1, 13)
    ]


COLLECTIONS = (
    Collection(
        "notes",
        "Note",
        "location",
        {
            "title": Field("string", required=True, max=200, filter=True),
            "body": Field("string", nullable=True, max=2000),
            "pinned": Field("boolean", filter=True),
            "created_at": Field("datetime", read_only=True),
        },
        summary="A create answers 201 with a Location header and no body.",
        seed=_seed_notes(),
    ),
    Collection(
        "tags",
        "Tag",
        "empty",
        {
            "name": Field("string", required=True, max=50, unique=True, filter=True),
            "color": Field("enum", required=True, values=("red", "green", "blue"), filter=True),
        },
        summary="A create answers 204 with no body and no Location; names are unique.",
        seed=_seed_tags(),
    ),
    Collection(
        "cards",
        "Card",
        "record",
        {
            "title": Field("string", required=True, max=200, filter=True),
            "due": Field("date", nullable=True, filter=True),
            "done": Field("boolean", filter=True),
            "updated_at": Field("datetime", read_only=True),
        },
        wrap="card",
        summary='Writes take {"card": {...}} and answer {"card": {...}}; reads answer bare.',
        seed=_seed_cards(),
    ),
    Collection(
        "events",
        "Event",
        "empty",
        {
            "title": Field("string", required=True, max=200, filter=True),
            "starts_at": Field("datetime", required=True),
            "open": Field("boolean", filter=True),
        },
        summary="A create answers 204 with no body and no Location; nothing is unique.",
        seed=_seed_events(),
    ),
)
