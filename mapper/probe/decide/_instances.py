"""Templated collection routes made concrete: ``/bins/{bin_id}/records`` is a collection
per bin, not one collection.

A spec may describe its collections only as a template (a JSON storage service's
``/bins/{bin_id}/records``, a CMS's ``/items/{collection}``). Each placeholder is
filled, left to right, from a parent listing read with GET: the listing at the
path before it when the spec has one (``/bins``), else the spec collection the
placeholder names (``{collection}`` → ``/collections``). Each concrete path is one
entity, named from its parent record (its ``name``, ``title``, ``slug``, …) and
typed by the template's schema and its own samples; its evidence names the
template and the parent ids. At most `MAX_INSTANCES` per template are mapped; the
rest are listed under ``unmapped:`` (``instance-limit``), and a template whose
parents cannot be read stays a ``nested-collection``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from .._errors import Finding
from .._naming import entity_name, identifier, is_placeholder, segments, target_names
from ..live import dig, envelope_of, records_of
from ..sources import SpecCollection, SpecRoute

if TYPE_CHECKING:
    from ..live import ProbeClient

MAX_INSTANCES = 20
# Instances past the bound listed one by one in ``unmapped:``; the rest counted in one.
MAX_LISTED = 50
_LABELS = ("name", "title", "label", "slug", "collection", "key", "handle")
_SUFFIXES = ("_id", "Id", "_key", "_name", "Name", "_slug")


@dataclass(frozen=True, slots=True)
class _Partial:
    path: str
    ids: tuple[tuple[str, str], ...] = ()
    labels: tuple[str, ...] = ()
    read: tuple[str, ...] = ()  # the parent listings read for it


@dataclass(slots=True)
class Instances:
    collections: list[SpecCollection] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    # Templates whose instances were mapped: their routes are not operations.
    expanded: list[SpecCollection] = field(default_factory=list)


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    return str(value) if isinstance(value, (str, int)) and str(value) else None


def _value(record: Mapping[str, Any], key: str) -> str | None:
    """The parent record's value for placeholder `key`: a field of that name, of the name
    without its suffix (``bin_id`` → ``bin``, ``collection``), else its id."""
    names = [key, *(key.removesuffix(s) for s in _SUFFIXES if key.endswith(s)), "id", "slug"]
    for name in dict.fromkeys(names):
        found = _scalar(record.get(name))
        if found is not None:
            return found
    return None


def _label(record: Mapping[str, Any]) -> str | None:
    for name in _LABELS:
        value = record.get(name)
        if isinstance(value, str) and value.strip():
            return identifier(value).lower()
    return None


def _parents(prefix: str, key: str, known: Mapping[str, str]) -> list[str]:
    """Where the values of placeholder `key` after `prefix` are listed."""
    places = [prefix] if prefix else []
    places += [known[n] for n in target_names(key.removesuffix("IdOrName")) if n in known]
    return list(dict.fromkeys(places))


def _listed(client: ProbeClient, path: str) -> tuple[list[Mapping[str, Any]], bool] | None:
    """The records of a parent listing's first page, and whether it says more follow."""
    answer = client.get(path)
    envelope = envelope_of(answer.body, answer.content_type) if answer.ok else None
    if envelope is None or answer.kind != "json":
        return None
    records = records_of(answer.body, envelope)
    total = dig(answer.body, envelope.total) if envelope.total else None
    counted = answer.headers.get("x-total-count") or answer.headers.get("x-total")
    if total is None and counted is not None and counted.strip().isdigit():
        total = int(counted)
    more = "next" in answer.links or (isinstance(total, int) and total > len(records))
    if envelope.next is not None:
        more = more or bool(dig(answer.body, envelope.next))
    return records, more


def _fill(
    client: ProbeClient, partial: _Partial, key: str, known: Mapping[str, str]
) -> tuple[list[_Partial], bool] | None:
    """The partial path once per parent record (None when no parent listing answers)."""
    for parent in _parents(partial.path, key, known):
        listed = _listed(client, parent)
        if listed is None:
            continue
        records, more = listed
        out: list[_Partial] = []
        for record in records:
            value = _value(record, key)
            if value is not None:
                out.append(_Partial(
                    partial.path + "/" + quote(value, safe=""), (*partial.ids, (key, value)),
                    (*partial.labels, _label(record) or ""), (*partial.read, parent),
                ))  # fmt: skip
        return out, more
    return None


def _walk(
    client: ProbeClient, template: str, known: Mapping[str, str]
) -> tuple[list[_Partial], bool] | None:
    """Every concrete path of `template` the first pages of its parents list, and whether
    more may follow; None when no parent listing answers. At most `MAX_INSTANCES` parent
    listings are read for each placeholder."""
    partials, more = [_Partial("")], False
    for segment in segments(template):
        if not is_placeholder(segment):
            partials = [replace(p, path=p.path + "/" + segment) for p in partials]
            continue
        filled: list[_Partial] = []
        answered = False
        for partial in partials[:MAX_INSTANCES]:
            found = _fill(client, partial, segment[1:-1], known)
            if found is not None:
                answered = True
                filled.extend(found[0])
                more = more or found[1]
        if not answered:
            return None
        more = more or len(partials) > MAX_INSTANCES
        partials = filled
    slash = "/" if template.endswith("/") else ""
    return [replace(p, path=p.path + slash) for p in partials], more


def _name(partial: _Partial, template: str, taken: set[str]) -> str:
    base = entity_name(template) or "records"
    label = partial.labels[-1] if partial.labels else ""
    ids = "_".join(identifier(v).lower().strip("_") for _, v in partial.ids)
    for name in (label, f"{label}_{base}" if label else "", f"{base}_{ids}"):
        if name and name[0].isalpha() and name not in taken:
            return name
    name, n = f"{base}_{ids}", 2
    while name in taken:
        name, n = f"{base}_{ids}_{n}", n + 1
    return name if name[0].isalpha() else "_" + name


def instances(
    client: ProbeClient, nested: Sequence[SpecCollection], known: Mapping[str, str],
    taken: set[str],
) -> Instances:  # fmt: skip
    """The concrete collections of every templated one; `known` names the spec's plain
    collections (name → path), `taken` the entity names already in use."""
    found = Instances()
    for coll in nested:
        walked = _walk(client, coll.path, known)
        if walked is None:
            continue  # stays a nested-collection
        partials, more = walked
        found.expanded.append(coll)
        for partial in partials[:MAX_INSTANCES]:
            name = _name(partial, coll.path, taken)
            taken.add(name)
            found.collections.append(_concrete(coll, partial, name))
        rest = partials[MAX_INSTANCES:]
        past = f"an instance of {coll.path} past the first {MAX_INSTANCES}"
        found.findings.extend(Finding(p.path, "instance-limit", past, "GET")
                              for p in rest[:MAX_LISTED])  # fmt: skip
        if len(rest) > MAX_LISTED:
            detail = f"{len(rest) - MAX_LISTED} more instances past those listed"
            found.findings.append(Finding(coll.path, "instance-limit", detail, "GET"))
        if more:
            detail = "more instances may follow: each parent listing was read one page"
            found.findings.append(Finding(coll.path, "instance-limit", detail, "GET"))
    return found


def _concrete(coll: SpecCollection, partial: _Partial, name: str) -> SpecCollection:
    """The template's collection at one concrete path, saying which instance it is."""
    detail = coll.detail_path
    for key, value in partial.ids:
        detail = detail.replace("{" + key + "}", quote(value, safe=""), 1)
    ids = ", ".join(f"{key}={value}" for key, value in partial.ids)
    read = ", ".join(dict.fromkeys(partial.read))
    how = f"an instance of {coll.path} ({ids}), its parents listed by {read}"
    return replace(coll, name=name, path=partial.path, detail_path=detail, instance_of=how)


def expand(
    client: ProbeClient, colls: list[SpecCollection], nested: list[SpecCollection],
    rest: list[SpecRoute], findings: list[Finding],
) -> tuple[list[SpecCollection], list[SpecRoute], list[Finding]]:  # fmt: skip
    """Templated collections walked into concrete ones; their routes are then no
    operation candidates, and their ``nested-collection`` findings are gone."""
    found = instances(client, nested, {c.name: c.path for c in colls}, {c.name for c in colls})
    done = {c.path for c in found.expanded}
    claimed = {(m, c.path) for c in found.expanded for m in c.methods}
    claimed |= {(m, c.detail_path) for c in found.expanded for m in c.detail_methods}
    kept = [f for f in findings if not (f.code == "nested-collection" and f.path in done)]
    return (
        [*colls, *found.collections],
        [r for r in rest if (r.method, r.path) not in claimed],
        [*kept, *found.findings],
    )
