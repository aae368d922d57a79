"""Swagger 2 rewritten into the OpenAPI 3 shape, so one reader serves both.

Only what the prober reads is carried over: paths and their operations,
parameters (body and formData become a request body), responses with a
schema, definitions (as components), security definitions, and ``basePath``
(as a server path, which is read and never contacted).
"""

from __future__ import annotations

from typing import Any

_SCALAR_KEYS = ("type", "format", "enum", "items", "maxLength", "default", "pattern")
_METHODS = ("get", "put", "post", "delete", "options", "head", "patch")


def _refs(node: Any) -> Any:
    """Every ``#/definitions/X`` becomes ``#/components/schemas/X``; x-nullable, nullable."""
    if isinstance(node, dict):
        out = {k: _refs(v) for k, v in node.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/definitions/"):
            out["$ref"] = "#/components/schemas/" + ref[len("#/definitions/") :]
        if out.pop("x-nullable", False):
            out["nullable"] = True
        return out
    if isinstance(node, list):
        return [_refs(v) for v in node]
    return node


def _parameter(param: dict[str, Any]) -> dict[str, Any]:
    schema = {k: param[k] for k in _SCALAR_KEYS if k in param}
    out: dict[str, Any] = {
        k: param[k] for k in ("name", "in", "required", "description") if k in param
    }
    out["schema"] = schema
    return out


def _operation(op: dict[str, Any], consumes: list[str], produces: list[str]) -> dict[str, Any]:
    out = {k: v for k, v in op.items() if k not in ("parameters", "responses", "consumes")}
    params: list[dict[str, Any]] = []
    form: dict[str, Any] = {}
    form_required: list[str] = []
    for param in op.get("parameters", []):
        where = param.get("in")
        if where == "body":
            media = op.get("consumes", consumes) or ["application/json"]
            out["requestBody"] = {
                "required": bool(param.get("required")),
                "content": {m: {"schema": param.get("schema", {})} for m in media},
            }
        elif where == "formData":
            form[param["name"]] = {k: param[k] for k in _SCALAR_KEYS if k in param}
            if param.get("type") == "file":
                form[param["name"]] = {"type": "string", "format": "binary"}
            if param.get("required"):
                form_required.append(param["name"])
        elif isinstance(param, dict) and "name" in param:
            params.append(_parameter(param))
    if form:
        media = op.get("consumes", consumes) or ["multipart/form-data"]
        schema = {"type": "object", "properties": form, "required": form_required}
        out["requestBody"] = {"content": {m: {"schema": schema} for m in media}}
    if params:
        out["parameters"] = params
    responses: dict[str, Any] = {}
    for code, answer in (op.get("responses") or {}).items():
        entry: dict[str, Any] = {"description": answer.get("description", "")}
        if isinstance(answer, dict) and "schema" in answer:
            media = op.get("produces", produces) or ["application/json"]
            entry["content"] = {m: {"schema": answer["schema"]} for m in media}
        responses[str(code)] = entry
    out["responses"] = responses
    return out


def _security(defs: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, scheme in defs.items():
        kind = scheme.get("type")
        if kind == "basic":
            out[key] = {"type": "http", "scheme": "basic"}
        else:
            out[key] = dict(scheme)
    return out


def to_openapi3(doc: dict[str, Any]) -> dict[str, Any]:
    consumes = list(doc.get("consumes", []))
    produces = list(doc.get("produces", []))
    paths: dict[str, Any] = {}
    for path, item in (doc.get("paths") or {}).items():
        if not isinstance(item, dict):
            continue
        shared = [p for p in item.get("parameters", []) if isinstance(p, dict)]
        new: dict[str, Any] = {}
        for method in _METHODS:
            op = item.get(method)
            if isinstance(op, dict):
                merged = dict(op)
                names = {(p.get("name"), p.get("in")) for p in op.get("parameters", [])}
                inherited = [p for p in shared if (p.get("name"), p.get("in")) not in names]
                merged["parameters"] = inherited + list(op.get("parameters", []))
                new[method] = _operation(merged, consumes, produces)
        paths[path] = new
    out: dict[str, Any] = {
        "openapi": "3.0.0",
        "info": doc.get("info", {}),
        "paths": paths,
        "components": {
            "schemas": doc.get("definitions", {}),
            "securitySchemes": _security(doc.get("securityDefinitions", {})),
        },
    }
    if doc.get("basePath"):
        out["servers"] = [{"url": doc["basePath"]}]
    if "security" in doc:
        out["security"] = doc["security"]
    if "tags" in doc:
        out["tags"] = doc["tags"]
    return _refs(out)  # type: ignore[no-any-return]
