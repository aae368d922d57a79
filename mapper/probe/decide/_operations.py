"""Routes that are not record CRUD -> proposed operations (DRF ``@action``s and the like).

``POST /api/boards/{id}/archive/`` sits under the boards detail route, so it is
``archive-board``, attached to ``boards``, with the path ``{id}`` becoming a
required ``board: {type: ref, entity: boards}`` param. Safe methods are
read-only; DELETE and destructive verbs in the name are destructive. A route
whose answer or body the runtime cannot carry is reported, not proposed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .._draft import Claim, Ev, OperationDraft
from .._errors import Finding
from .._naming import identifier, is_placeholder, kebab, module_name, segments, singular, words
from ..sources import FORM_BODY, Resolver, SchemaProblem, SpecCollection, SpecRoute, body_fields

DESTRUCTIVE_WORDS = frozenset(
    {"delete", "remove", "purge", "clear", "reset", "archive", "destroy", "drop", "wipe",
     "erase", "truncate", "revoke"}
)  # fmt: skip
SAFE = frozenset({"GET", "HEAD", "OPTIONS"})
IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})


def _owner(
    route: SpecRoute, collections: Sequence[SpecCollection]
) -> tuple[SpecCollection, bool] | None:
    """The collection a route hangs under, and whether under its detail route."""
    for coll in sorted(collections, key=lambda c: -len(c.path)):
        detail_stem = coll.detail_path.rstrip("/") + "/"
        if route.path.startswith(detail_stem):
            return coll, True
    for coll in sorted(collections, key=lambda c: -len(c.path)):
        if route.path.startswith(coll.path.rstrip("/") + "/"):
            return coll, False
    return None


def _problem(route: SpecRoute, encoding: str = "json") -> Finding | None:
    def finding(code: str, detail: str) -> Finding:
        return Finding(route.path, code, detail, route.method)

    kind = route.response.kind
    if kind == "binary":
        return finding("binary-response", "the operation answers a file")
    if kind == "html":
        return finding("html-response", "the operation answers an HTML page")
    if kind == "text":
        return finding("non-json", "the operation answers text, not JSON")
    if kind == "none" and route.method in SAFE:
        return finding("no-schema", "a read whose answer has no JSON schema")
    if route.request.kind == "binary":
        return finding("binary-request", "the operation takes a file upload")
    if route.request.kind == "multipart":
        return finding("binary-request", "the operation takes a multipart upload (a file)")
    if route.request.kind == "form" and encoding != "form":
        return finding("form-body", FORM_BODY)
    if route.request.kind in ("html", "text"):
        return finding("non-json", "the operation takes a text body, not JSON")
    return None


def _unique(name: str, method: str, taken: set[str]) -> str:
    candidate = name
    if candidate in taken:
        candidate = kebab(f"{name}-{method}")
    n = 2
    while candidate in taken:
        candidate, n = f"{name}-{n}", n + 1
    taken.add(candidate)
    return candidate


def propose(
    routes: Sequence[SpecRoute],
    collections: Sequence[SpecCollection],
    modules: Mapping[str, str],
    resolver: Resolver,
    default_module: str,
    source: str = "openapi",
    body_encoding: str = "json",
) -> tuple[list[OperationDraft], list[Finding]]:
    """Operations for the routes, and findings for those that cannot be one.

    `modules` maps entity name -> module name.
    """
    ops: list[OperationDraft] = []
    findings: list[Finding] = []
    taken: set[str] = set()
    for route in routes:
        problem = _problem(route, body_encoding)
        if problem is not None:
            findings.append(problem)
            continue
        owner = _owner(route, collections)
        params: dict[str, Claim] = {}
        required: set[str] = set()
        path = route.path
        entity: str | None = None
        if owner is not None and owner[1]:
            coll = owner[0]
            entity = coll.name
            pname = identifier(singular(coll.name))
            path = path.replace("{" + coll.id_param + "}", "{" + pname + "}", 1)
            params[pname] = Claim(source, type="ref", entity=coll.name)
            required.add(pname)
            stem = coll.detail_path.rstrip("/")
            rest = [s for s in segments(route.path[len(stem) :]) if not is_placeholder(s)]
            name = kebab("-".join([*rest, singular(coll.name)]))
        elif owner is not None:
            coll = owner[0]
            rest = [s for s in segments(route.path[len(coll.path.rstrip("/")) :])]
            name = kebab("-".join([*[s for s in rest if not is_placeholder(s)], coll.name]))
        else:
            literal = [s for s in segments(route.path) if not is_placeholder(s)]
            name = kebab("-".join(literal[1:] if len(literal) > 1 else literal) or route.method)
        for param in route.params:
            if param.where == "path" and ("{" + param.name + "}") in route.path:
                if entity is not None and param.name == owner[0].id_param:  # type: ignore[index]
                    continue
                pname = identifier(param.name)
                path = path.replace("{" + param.name + "}", "{" + pname + "}")
                params[pname] = param.claim
                required.add(pname)
            elif param.where == "query":
                params[identifier(param.name)] = param.claim
                if param.required:
                    required.add(identifier(param.name))
        body: dict[str, Claim] = {}
        if route.request.kind in ("json", "form") and route.request.schema is not None:
            try:
                fields, body_required = body_fields(route.request.schema, resolver, source)
            except SchemaProblem as exc:
                findings.append(Finding(route.path, exc.code, exc.detail, route.method))
                continue
            body = {n: c for n, c in fields.items() if isinstance(c, Claim) and not c.read_only}
            required |= {n for n in body_required if n in body}
        queried = [p for p in route.params if p.where == "query"]
        if body and queried:
            findings.append(
                Finding(route.path, "mixed-params", "query and body parameters", route.method)
            )
            continue
        params.update({identifier(n): c for n, c in body.items()})
        send = "body" if body else ("query" if queried else "none")
        op_words = set(words(name))
        destructive = route.method == "DELETE" or bool(op_words & DESTRUCTIVE_WORDS)
        read_only = route.method in SAFE
        evidence = [Ev(source, f"{route.method} {route.path}")]
        if route.destructive is not None:
            destructive = route.destructive
            evidence.append(Ev(source, f"x-a2app-destructive: {str(destructive).lower()}"))
        elif destructive and route.method != "DELETE":
            verb = sorted(op_words & DESTRUCTIVE_WORDS)[0]
            evidence.append(Ev("name", f"{verb!r} names a destructive action"))
        if read_only and destructive:
            destructive = False  # a safe method cannot destroy; the method is the evidence
        module = modules.get(entity or owner[0].name, default_module) if owner else default_module
        if owner is None and route.tag:
            module = modules.get(route.tag, module_name(route.tag))
        ops.append(
            OperationDraft(
                name=_unique(name, route.method, taken), module=module, method=route.method,
                path=path, send=send, params=params, required=frozenset(required),
                entity=entity, description=route.summary, destructive=destructive,
                read_only=read_only, idempotent=route.method in IDEMPOTENT, evidence=evidence,
            )
        )  # fmt: skip
    return ops, findings
