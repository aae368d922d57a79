"""Cross-reference rules a JSON Schema cannot express (protocol §22 and our own)."""

from __future__ import annotations

import re
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ._codecs import CODEC_TYPES
from ._errors import PathPart, Problem, allowed, did_you_mean
from ._model import DATETIME_NORMALIZATIONS, READ_ONLY, STRING_NORMALIZATIONS
from ._paths import entity_path_problems, path_problems, placeholders

RESERVED_MODULES = ("data", "identity", "whoami", "context", "tasks", "events")
_REF_TYPES = ("ref", "list<ref>")
_ENUM_TYPES = ("enum", "list<enum>")


def _predicate_fields(pred: Any) -> list[str]:
    if not isinstance(pred, dict):
        return []
    if "field" in pred:
        return [str(pred["field"])]
    out: list[str] = []
    for key in ("all", "any"):
        for sub in pred.get(key, []):
            out.extend(_predicate_fields(sub))
    if "not" in pred:
        out.extend(_predicate_fields(pred["not"]))
    return out


def _check_field(
    path: tuple[PathPart, ...], spec: dict[str, Any], entities: list[str], *, is_param: bool
) -> list[Problem]:
    problems: list[Problem] = []
    ftype = spec["type"]
    if ftype in _REF_TYPES:
        target = spec.get("entity")
        if target is None:
            problems.append(
                Problem(path, f"a {ftype} needs 'entity' (one of: {allowed(entities)})")
            )
        elif target not in entities:
            problems.append(
                Problem(
                    (*path, "entity"),
                    f"'{target}' is not a declared entity; declared: {allowed(entities)}"
                    f"{did_you_mean(target, entities)}",
                )
            )
    elif "entity" in spec:
        problems.append(
            Problem((*path, "entity"), f"only ref and list<ref> name an entity, not {ftype}")
        )
    if ftype in _ENUM_TYPES and not spec.get("values"):
        problems.append(Problem(path, f"{ftype} fields need their 'values'"))
    if ftype not in _ENUM_TYPES and "values" in spec:
        problems.append(
            Problem((*path, "values"), f"only enum and list<enum> take values, not {ftype}")
        )
    if "format" in spec and ftype != "string":
        problems.append(
            Problem((*path, "format"), f"format YYYY-MM-DD applies to string, not {ftype}")
        )
    if "max" in spec and ftype != "string":
        problems.append(
            Problem((*path, "max"), f"max is a string length; {ftype} fields take none")
        )
    if "decimals" in spec and ftype != "number":
        problems.append(
            Problem((*path, "decimals"), f"decimals are a number's places; {ftype} has none")
        )
    codec = spec.get("codec")
    if codec is not None and CODEC_TYPES.get(codec) != ftype:
        problems.append(
            Problem((*path, "codec"), f"codec {codec} reads and writes a {CODEC_TYPES.get(codec)}, "
                    f"not {ftype}")
        )  # fmt: skip
    fitting = {"string": STRING_NORMALIZATIONS, "datetime": DATETIME_NORMALIZATIONS}.get(ftype, ())
    for index, rule in enumerate(spec.get("normalize", ())):
        if rule not in fitting:
            problems.append(
                Problem(
                    (*path, "normalize", index),
                    f"{rule!r} does not apply to {ftype}"
                    + (f"; for {ftype}: {allowed(list(fitting))}" if fitting else ""),
                )
            )
    if not is_param:
        if spec.get(READ_ONLY) and spec.get("writeOnly"):
            problems.append(Problem(path, "a field cannot be both readOnly and writeOnly"))
        if "serverSets" in spec and not spec.get(READ_ONLY):
            problems.append(
                Problem((*path, "serverSets"), "only a readOnly field is set by the server")
            )
        if spec.get(READ_ONLY) and spec.get("createOnly"):
            problems.append(
                Problem((*path, "createOnly"), "a readOnly field is never written; drop one")
            )
        if spec.get("updateOnly"):
            if spec.get(READ_ONLY):
                problems.append(
                    Problem((*path, "updateOnly"), "a readOnly field is never written; drop one")
                )
            if spec.get("createOnly"):
                problems.append(
                    Problem((*path, "updateOnly"), "a field is createOnly or updateOnly, not both")
                )
            if spec.get("required"):
                problems.append(
                    Problem((*path, "updateOnly"), "a required field is sent on create; drop one")
                )
        if spec.get(READ_ONLY) and "writeSource" in spec:
            problems.append(
                Problem((*path, "writeSource"), "a readOnly field is never written; drop one")
            )
    # A param takes upstreamChecksRef alone of these (the schema says so).
    for key in ("onDelete", "upstreamOnDelete", "upstreamChecksRef"):
        if key in spec and ftype not in _REF_TYPES:
            problems.append(
                Problem((*path, key), f"{key} applies to ref and list<ref>, not {ftype}")
            )
    return problems


def _shared_write_targets(base: tuple[PathPart, ...], fields: dict[str, Any]) -> list[Problem]:
    """Two writable fields written at one upstream key would overwrite each other."""
    problems: list[Problem] = []
    taken: dict[str, str] = {}
    for fname, fspec in fields.items():
        if fspec.get(READ_ONLY):
            continue
        target = fspec.get("writeSource", fspec.get("source", fname))
        if target in taken:
            problems.append(
                Problem(
                    (*base, "fields", fname),
                    f"writes go to '{target}', as they do for {taken[target]}",
                )
            )
        else:
            taken[target] = fname
    return problems


def _check_entity(
    name: str, spec: dict[str, Any], modules: list[str], entities: list[str]
) -> list[Problem]:
    base: tuple[PathPart, ...] = ("entities", name)
    problems: list[Problem] = []
    if spec["module"] not in modules:
        problems.append(
            Problem(
                (*base, "module"),
                f"'{spec['module']}' is not a declared module; declared: {allowed(modules)}"
                f"{did_you_mean(spec['module'], modules)}",
            )
        )
    fields: dict[str, Any] = spec["fields"]
    names = list(fields)
    if "id" in fields:
        problems.append(
            Problem(
                (*base, "fields", "id"), "the record id is declared under 'id:', not as a field"
            )
        )
    for fname, fspec in fields.items():
        problems.extend(_check_field((*base, "fields", fname), fspec, entities, is_param=False))
    problems.extend(_shared_write_targets(base, fields))
    find_by = spec.get("write", {}).get("findBy")
    if find_by is not None:
        usable = [n for n, f in fields.items() if not f.get(READ_ONLY) and not f.get("writeOnly")]
        if find_by not in usable:
            problems.append(
                Problem(
                    (*base, "write", "findBy"),
                    f"'{find_by}' is not a field a create sends and a read shows; "
                    f"fields: {allowed(usable)}{did_you_mean(find_by, usable)}",
                )
            )
    label = spec.get("label")
    if label is not None and label not in fields:
        problems.append(
            Problem(
                (*base, "label"), f"'{label}' is not a field of {name}{did_you_mean(label, names)}"
            )
        )
    for key in spec.get("writeAllow", []):
        if key in fields:
            problems.append(Problem((*base, "writeAllow"), f"'{key}' is a declared field already"))
    known = ["id", *names]
    for fname in spec.get("filter", {}):
        if fname not in known:
            problems.append(
                Problem(
                    (*base, "filter", fname),
                    f"'{fname}' is not a field of {name}{did_you_mean(fname, known)}",
                )
            )
    for index, fname in enumerate(spec.get("sort", {}).get("fields", [])):
        if fname not in known:
            problems.append(
                Problem(
                    (*base, "sort", "fields", index),
                    f"'{fname}' is not a field of {name}{did_you_mean(fname, known)}",
                )
            )
    problems.extend(entity_path_problems(base, spec))
    return problems


def _check_operation(
    index: int, op: dict[str, Any], modules: list[str], doc_entities: dict[str, Any]
) -> list[Problem]:
    base: tuple[PathPart, ...] = ("operations", index)
    problems: list[Problem] = []
    entities = list(doc_entities)
    if op["module"] not in modules:
        problems.append(
            Problem(
                (*base, "module"),
                f"'{op['module']}' is not a declared module; declared: {allowed(modules)}"
                f"{did_you_mean(op['module'], modules)}",
            )
        )
    target = op.get("entity")
    if target is not None:
        if target not in doc_entities:
            problems.append(
                Problem(
                    (*base, "entity"),
                    f"'{target}' is not a declared entity; declared: {allowed(entities)}"
                    f"{did_you_mean(target, entities)}",
                )
            )
        elif doc_entities[target]["module"] != op["module"]:
            problems.append(
                Problem(
                    (*base, "entity"),
                    f"'{target}' is in module '{doc_entities[target]['module']}', "
                    f"not '{op['module']}'",
                )
            )
    when = op.get("appliesWhen")
    if when is not None:
        if target is None:
            problems.append(
                Problem((*base, "appliesWhen"), "appliesWhen needs the operation's 'entity'")
            )
        elif target in doc_entities:
            fields = list(doc_entities[target]["fields"])
            for fname in _predicate_fields(when):
                if fname not in fields:
                    problems.append(
                        Problem(
                            (*base, "appliesWhen"),
                            f"'{fname}' is not a field of {target}{did_you_mean(fname, fields)}",
                        )
                    )
    if op.get(READ_ONLY) and op.get("destructive"):
        problems.append(Problem(base, "an operation cannot be both readOnly and destructive"))
    params: dict[str, Any] = op["params"]
    for pname, pspec in params.items():
        problems.extend(_check_field((*base, "params", pname), pspec, entities, is_param=True))
    executors = [key for key in ("request", "crud", "job") if key in op]
    if len(executors) > 1:
        problems.append(Problem(base, f"one executor at most; found {', '.join(executors)}"))
    request = op.get("request") or (op.get("job") or {}).get("request")
    if request is not None:
        where = (*base, "request", "path") if "request" in op else (*base, "job", "request", "path")
        problems.extend(path_problems(where, request["path"]))
        for name in placeholders(request["path"]):
            if name in params and not params[name].get("required"):
                problems.append(
                    Problem(
                        where,
                        f"placeholder {{{name}}} needs a required param: "
                        "a path cannot leave it out",
                    )
                )
            if name not in params:
                problems.append(
                    Problem(
                        where,
                        f"placeholder {{{name}}} names no param{did_you_mean(name, list(params))}",
                        code="path-placeholder",
                    )
                )
    problems.extend(_check_schedule(base, op))
    crud = op.get("crud")
    if crud is not None:
        if crud["entity"] not in doc_entities:
            problems.append(
                Problem(
                    (*base, "crud", "entity"),
                    f"'{crud['entity']}' is not a declared entity"
                    f"{did_you_mean(crud['entity'], entities)}",
                )
            )
        if crud["action"] in ("update", "delete") and crud.get("target") not in params:
            problems.append(
                Problem(
                    (*base, "crud", "target"),
                    f"{crud['action']} needs 'target': the param holding the record id",
                )
            )
    return problems


def _check_schedule(base: tuple[PathPart, ...], op: dict[str, Any]) -> list[Problem]:
    """A scheduled call is made by no one who could be asked: it sends no arguments, and
    a destructive one runs only when the owner approved the schedule itself."""
    schedule = op.get("schedule")
    if schedule is None:
        return []
    path = (*base, "schedule")
    problems: list[Problem] = []
    if op.get("destructive") and schedule.get("approvedBy") != "owner":
        problems.append(
            Problem(path, "a destructive operation runs on a schedule only with approvedBy: owner")
        )
    required = [name for name, p in op["params"].items() if p.get("required")]
    if required:
        problems.append(
            Problem(
                path,
                "a scheduled call sends no arguments, so it cannot fill required param(s) "
                f"{allowed(required)}",
            )
        )
    return problems


def _check_time_zone(serve: dict[str, Any]) -> list[Problem]:
    name = serve.get("timeZone")
    if name is None or name == "UTC":  # the runtime needs no time zone database for UTC
        return []
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return [Problem(("serve", "timeZone"), f"'{name}' is not an IANA time zone name")]
    return []


def _check_pagination(doc: dict[str, Any]) -> list[Problem]:
    problems = _check_one_pagination(doc["upstream"].get("pagination"), ("upstream", "pagination"))
    for name, spec in doc["entities"].items():
        listing = spec.get("list") or {}
        where = ("entities", name, "list", "pagination")
        problems.extend(_check_one_pagination(listing.get("pagination"), where))
    return problems


def _check_one_pagination(pag: dict[str, Any] | None, where: tuple[str, ...]) -> list[Problem]:
    if pag is None:
        return []
    needs = {"page": ["page"], "offset": ["offset", "size"], "cursor": ["cursor"]}
    problems = [
        Problem(where, f"style {pag['style']} needs '{key}'")
        for key in needs.get(pag["style"], [])
        if key not in pag
    ]
    if pag["style"] == "cursor" and not {"next", "nextFrom", "nextHeader"} & set(pag):
        problems.append(
            Problem(
                where,
                "style cursor needs 'next' (or 'nextFrom', the cursor in the last record, or "
                "'nextHeader', the header holding it)",
            )
        )
    for key in ("unit", "unitHeader"):
        if key in pag and pag["style"] != "range":
            problems.append(Problem(where, f"'{key}' applies to style range only"))
    return problems


def check_semantics(doc: dict[str, Any]) -> list[Problem]:
    problems: list[Problem] = []
    modules: list[str] = []
    for index, module in enumerate(doc["modules"]):
        name = module["name"]
        if name in modules:
            problems.append(Problem(("modules", index, "name"), f"duplicate module '{name}'"))
        if name in RESERVED_MODULES:
            problems.append(
                Problem(
                    ("modules", index, "name"),
                    f"'{name}' is reserved ({allowed(RESERVED_MODULES)})",
                )
            )
        modules.append(name)
    entities: dict[str, Any] = doc["entities"]
    for name, spec in entities.items():
        problems.extend(_check_entity(name, spec, modules, list(entities)))
    seen: set[str] = set()
    for index, op in enumerate(doc.get("operations", [])):
        if op["name"] in seen:
            problems.append(
                Problem(("operations", index, "name"), f"duplicate operation '{op['name']}'")
            )
        seen.add(op["name"])
        problems.extend(_check_operation(index, op, modules, entities))
    problems.extend(_check_pagination(doc))
    for index, trig in enumerate((doc.get("serve") or {}).get("triggers", [])):
        problems.extend(_check_trigger(("serve", "triggers", index), trig, entities))
    feed = (doc.get("serve") or {}).get("feed")
    if feed is not None:
        problems.extend(_check_feed(("serve", "feed"), feed, entities))
    for name, hook in (doc.get("serve") or {}).get("hooks", {}).items():
        problems.extend(_check_hook(("serve", "hooks", name), hook))
    problems.extend(_check_time_zone(doc.get("serve") or {}))
    return problems


def feed_requests_per_minute(entities: int, interval: int) -> int:
    """The fewest upstream requests a minute of polls needs: one page per entity per poll."""
    return entities * -(-60 // interval)


def _check_feed(
    path: tuple[PathPart, ...], feed: dict[str, Any], entities: dict[str, Any]
) -> list[Problem]:
    """The feed watches declared entities, and its budget pays for at least one page of
    each of them per poll: less, and a walk could never finish."""
    declared = list(entities)
    problems = [
        Problem(
            (*path, "entities", i),
            f"'{name}' is not a declared entity; declared: {allowed(declared)}"
            f"{did_you_mean(name, declared)}",
        )
        for i, name in enumerate(feed["entities"])
        if name not in entities
    ]
    interval, budget = feed.get("interval", 60), feed.get("budget", 60)
    needed = feed_requests_per_minute(len(feed["entities"]), interval)
    if budget < needed:
        problems.append(
            Problem(
                (*path, "budget"),
                f"a budget of {budget} requests per minute cannot read the first page of "
                f"{len(feed['entities'])} entities every {interval} seconds; at least {needed} "
                "are needed (or a longer interval)",
            )
        )
    return problems


# The keys only one signature scheme reads; a key another scheme would ignore is refused,
# so a mapping never looks stricter than what is checked.
_SCHEME_KEYS = {
    "standard-webhooks": ("tolerance",),
    "hmac-sha256": ("header", "encoding", "prefix"),
}
_ONE_VARIABLE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")


def _check_hook(path: tuple[PathPart, ...], hook: dict[str, Any]) -> list[Problem]:
    """The secret is one environment variable, the keys fit the scheme, the payload
    fields do not overlap."""
    problems = []
    if not _ONE_VARIABLE.fullmatch(hook["secret"]):
        problems.append(
            Problem((*path, "secret"), "a hook secret is one environment variable: write ${VAR}")
        )
    scheme = hook["scheme"]
    for other, keys in _SCHEME_KEYS.items():
        problems += [
            Problem((*path, key), f"'{key}' is read by scheme {other} only, not {scheme}")
            for key in keys
            if other != scheme and key in hook
        ]
    if scheme == "hmac-sha256" and "header" not in hook:
        problems.append(Problem(path, "scheme hmac-sha256 needs 'header': where the signature is"))
    fields = hook.get("payload", "body")
    if isinstance(fields, list):
        problems += [
            Problem((*path, "payload", i), f"'{f}' is inside '{g}', which the payload carries")
            for i, f in enumerate(fields)
            for g in fields
            if f.startswith(g + ".")
        ]
    return problems


def _check_trigger(
    path: tuple[PathPart, ...], trig: dict[str, Any], entities: dict[str, Any]
) -> list[Problem]:
    """A trigger reads a declared entity and carries, and keys on, fields it declares.

    Its filter is checked where the grammar lives, when the mapping is served and linted.
    """
    name = trig["entity"]
    if name not in entities:
        declared = list(entities)
        return [
            Problem(
                (*path, "entity"),
                f"'{name}' is not a declared entity; declared: {allowed(declared)}"
                f"{did_you_mean(name, declared)}",
            )
        ]
    fields = ["id", *entities[name].get("fields", {})]
    problems = [
        Problem((*path, "payload", i), f"'{f}' is not a field of {name}{did_you_mean(f, fields)}")
        for i, f in enumerate(trig.get("payload", []))
        if f not in fields
    ]
    carried = ["id", *trig["payload"]] if "payload" in trig else fields
    problems += [
        Problem(
            (*path, "dedupKey", i), f"'{f}' is not in the trigger's payload ({allowed(carried)})"
        )
        for i, f in enumerate(trig.get("dedupKey", []))
        if f not in carried
    ]
    return problems
