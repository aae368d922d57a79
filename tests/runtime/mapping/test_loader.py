"""The mapping loader: schema, cross-references, templates, hash, frozen objects."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from pathlib import Path

import pytest
import yaml

from runtime.mapping import (
    Field,
    MappingError,
    check_document,
    load_mapping,
    load_mapping_text,
    schema,
    without_defaults,
)

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "runtime" / "mapping" / "invalid"
BASE = (ROOT / "tests" / "runtime" / "mapping" / "valid-base.yaml").read_text()
ENV = {"DEMO_URL": "http://127.0.0.1:9", "DEMO_TOKEN": "s3cret-token-value"}


def test_published_schema_is_identical_to_the_packaged_one() -> None:
    published = json.loads((ROOT / "mappings" / "mapping.schema.json").read_text())
    assert published == schema()


@pytest.mark.parametrize("path", sorted((ROOT / "mappings").glob("*.yaml")), ids=lambda p: p.name)
def test_checked_in_mappings_load(path: Path) -> None:
    mapping = load_mapping(path, resolve_env=False)
    assert mapping.entities and mapping.modules


def test_schema_field_keys_all_reach_the_typed_field() -> None:
    """Every key a field may carry in the file has a home in `Field` (no silent drops)."""
    renames = {"format": "day_key"}
    slots = {f.name for f in dataclasses.fields(Field)}
    for key in schema()["$defs"]["field"]["properties"]:
        snake = renames.get(key) or re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower()
        assert snake in slots, key


def test_compiled_objects_are_frozen() -> None:
    mapping = load_mapping_text(BASE, env=ENV)
    with pytest.raises(dataclasses.FrozenInstanceError):
        mapping.app.id = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        mapping.entities["cards"].fields["title"] = mapping.entities["cards"].fields["due"]  # type: ignore[index]


def test_env_interpolation_resolves_urls_and_secrets() -> None:
    mapping = load_mapping_text(BASE, env=ENV)
    assert mapping.upstream.base_url == "http://127.0.0.1:9"
    assert mapping.upstream.auth.value == "Token s3cret-token-value"


def test_default_applies_when_variable_unset_or_empty() -> None:
    text = BASE.replace("${DEMO_URL}", "${DEMO_URL:-http://localhost:8000/}")
    assert (
        load_mapping_text(text, env={"DEMO_TOKEN": "t"}).upstream.base_url
        == "http://localhost:8000"
    )
    assert (
        load_mapping_text(text, env={"DEMO_TOKEN": "t", "DEMO_URL": ""}).upstream.base_url
        == "http://localhost:8000"
    )


def test_missing_variables_are_all_named() -> None:
    with pytest.raises(MappingError) as info:
        load_mapping_text(BASE, env={})
    assert "DEMO_URL, DEMO_TOKEN" in str(info.value)


def test_hash_is_taken_before_interpolation() -> None:
    a = load_mapping_text(BASE, env=ENV)
    b = load_mapping_text(BASE, env={"DEMO_URL": "http://127.0.0.1:1234", "DEMO_TOKEN": "other"})
    assert a.content_hash == b.content_hash
    assert a.content_hash.startswith("sha256:") and len(a.content_hash) == 71


@pytest.mark.parametrize(
    "default", ["http://127.0.0.1:8000", "http://127.0.0.1:41234/api/", "https://example.test"]
)
def test_a_url_default_is_not_part_of_the_hash(default: str) -> None:
    """Where the app ran when probed is not what the mapping means: a new port keeps the stamp."""
    with_default = BASE.replace("${DEMO_URL}", "${DEMO_URL:-" + default + "}")
    assert with_default != BASE
    assert (
        load_mapping_text(with_default, env=ENV).content_hash
        == load_mapping_text(BASE, env=ENV).content_hash
    )


def test_without_defaults_reads_every_template_as_its_variable() -> None:
    text = 'baseUrl: "${A_URL:-http://h:1/x}"\nvalue: "Token ${A_TOKEN}" ${B:-} ${C:-d}'
    assert without_defaults(text) == 'baseUrl: "${A_URL}"\nvalue: "Token ${A_TOKEN}" ${B} ${C}'


def test_hash_ignores_layout_but_not_content() -> None:
    reformatted = BASE.replace("{id: demo, name: Demo}", "\n  id: demo\n  name: Demo")
    assert (
        load_mapping_text(reformatted, env=ENV).content_hash
        == load_mapping_text(BASE, env=ENV).content_hash
    )
    changed = BASE.replace("max: 200", "max: 201")
    assert (
        load_mapping_text(changed, env=ENV).content_hash
        != load_mapping_text(BASE, env=ENV).content_hash
    )


def test_secrets_never_appear_in_reprs() -> None:
    mapping = load_mapping_text(BASE, env=ENV)
    assert "s3cret-token-value" not in repr(mapping)


def test_defaults_are_compiled() -> None:
    cards = load_mapping_text(BASE, env=ENV).entities["cards"]
    lists = load_mapping_text(BASE, env=ENV).entities["lists"]
    assert cards.detail_path == "/api/cards/{id}/"
    assert cards.id_source == ("id",)
    assert lists.label == "title"  # protocol default: title, name, label, first required string
    assert cards.fields["due"].day_key and cards.fields["list"].on_delete == "restrict"
    assert cards.filters["title"]["="].param == "title" and not cards.filters["title"]["="].proven


CASES = sorted(CORPUS.glob("*.yaml"))


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 15


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_invalid_mapping_is_refused_with_the_expected_messages(path: Path) -> None:
    expected = path.with_suffix(".expected").read_text().splitlines()
    with pytest.raises(MappingError) as info:
        load_mapping(path, resolve_env=False)
    got = [p.render() for p in info.value.problems]
    assert got == expected


def test_an_open_enum_is_served_as_what_it_surely_is() -> None:
    text = BASE.replace(
        "priority: {type: enum, values: [low, high]}",
        "priority: {type: enum, values: [low, high], valuesClosed: false}",
    )
    field = load_mapping_text(text, env=ENV).entities["cards"].fields["priority"]
    assert (field.type, field.values, field.candidates) == ("string", (), ("low", "high"))


@pytest.mark.parametrize("extra", [0, 60], ids=["small", "large"])
def test_a_mapping_of_any_size_is_checked_alike(extra: int) -> None:
    """A large mapping is checked by the compiled validator first, a small one by the
    walk alone: both accept the same document and refuse with the walk's messages."""
    doc = yaml.safe_load(BASE)
    for n in range(extra):
        doc["entities"][f"lists{n}"] = copy.deepcopy(doc["entities"]["lists"])
    assert check_document(doc) == []
    doc["entities"]["cards"]["fields"]["title"]["type"] = "strnig"
    got = [p.render() for p in check_document(doc)]
    assert len(got) == 1 and "strnig" in got[0] and "entities.cards.fields.title" in got[0]
