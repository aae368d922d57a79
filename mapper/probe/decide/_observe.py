"""Live observation of one collection: a list sample, OPTIONS, and one detail read.

Only GETs and OPTIONS; the id of one sampled record is used to read its detail
route, and it never reaches the mapping's evidence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from .._draft import Claim, Ev
from .._errors import Finding
from ..live import Envelope, envelope_of, flatten_record, kind_of, records_of, sample_claims
from ..sources import OptionsView, read_options

if TYPE_CHECKING:
    from ..live import Exchange, ProbeClient

ID_NAMES = ("id", "pk", "uuid", "_id", "key")
# Natural keys: records named by what their owner called them. Taken as the id only
# when no id key is there and the detail route answers a record by it; the client
# then chooses it on create.
NATURAL_KEYS = ("slug", "handle", "code", "name")
SAMPLE_SIZE = 100


@dataclass(slots=True)
class Observation:
    name: str
    path: str
    answer: Exchange
    envelope: Envelope | None = None
    records: list[Mapping[str, Any]] = field(default_factory=list)
    claims: dict[str, Claim] = field(default_factory=dict)
    seen: frozenset[str] = frozenset()
    options: OptionsView | None = None
    detail_options: OptionsView | None = None
    detail_path: str | None = None
    item_envelope: str = ""
    id_source: str | None = None
    id_type: str | None = None
    id_client: bool = False
    evidence: list[Ev] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    finding: Finding | None = None


def failure(answer: Exchange, what: str = "the list route") -> Finding | None:
    """Why an answer cannot be used as data, or None when it can."""
    method = answer.method
    if answer.failure is not None:
        code = "outside-upstream" if answer.failure == "outside-upstream" else "unreachable"
        return Finding(answer.path, code, f"{what}: {answer.failure}", method)
    if answer.status in (401, 403):
        return Finding(answer.path, "auth-refused", f"{what} answered {answer.status}", method)
    if answer.status == 404:
        return Finding(answer.path, "not-found", f"{what} answered 404", method)
    if answer.status >= 500:
        return Finding(answer.path, "server-error", f"{what} answered {answer.status}", method)
    if not answer.ok:
        return Finding(answer.path, "no-schema", f"{what} answered {answer.status}", method)
    if answer.kind == "html":
        return Finding(answer.path, "html-response", f"{what} answers an HTML page", method)
    if answer.kind == "binary":
        return Finding(answer.path, "binary-response", f"{what}: {answer.content_type}", method)
    if answer.kind in ("text", "empty"):
        return Finding(
            answer.path, "non-json", f"{what}: {answer.content_type or 'no body'}", method
        )
    return None


def _id_of(records: list[Mapping[str, Any]], jsonapi: bool, hint: str | None) -> str | None:
    known = [*([hint] if hint else []), *ID_NAMES, *NATURAL_KEYS]
    names = ("id",) if jsonapi else tuple(dict.fromkeys(known))
    for name in names:
        values = [flatten_record(r, jsonapi).get(name) for r in records]
        usable = values and all(kind_of(v) in ("string", "integer") for v in values)
        if usable and len({str(v) for v in values}) == len(values):
            return name
    return None


def observe(client: ProbeClient, name: str, path: str, id_hint: str | None) -> Observation:
    answer = client.get(path)
    obs = Observation(name, path, answer)
    obs.finding = failure(answer)
    if obs.finding is not None:
        return obs
    obs.envelope = envelope_of(answer.body, answer.content_type)
    if obs.envelope is None:
        obs.finding = Finding(path, "no-schema", "the answer is not a list of records", "GET")
        return obs
    _use(obs, records_of(answer.body, obs.envelope))
    options = client.options(path)
    obs.options = read_options(options.body, options.headers.get("allow")) if options.ok else None
    obs.id_source = _id_of(obs.records, obs.envelope.jsonapi, id_hint)
    return obs


def _use(obs: Observation, records: list[Mapping[str, Any]]) -> None:
    jsonapi = obs.envelope.jsonapi if obs.envelope else False
    obs.records = records
    obs.claims = sample_claims(records, jsonapi)
    obs.seen = frozenset(k for r in records for k in flatten_record(r, jsonapi))


def enlarge(client: ProbeClient, obs: Observation, size_param: str | None) -> None:
    """A bigger sample in one request, when the first page was not all there is."""
    if size_param is None or obs.envelope is None or obs.finding is not None:
        return
    answer = client.get(obs.path, {size_param: str(SAMPLE_SIZE)})
    envelope = envelope_of(answer.body, answer.content_type) if answer.ok else None
    if envelope is not None and envelope.items == obs.envelope.items:
        records = records_of(answer.body, envelope)
        if len(records) > len(obs.records):
            _use(obs, records)


def read_detail(client: ProbeClient, obs: Observation, detail_template: str) -> None:
    """Read one sampled record at its detail route; confirms the route and the item envelope."""
    if obs.id_source is None or not obs.records or obs.envelope is None:
        return
    jsonapi = obs.envelope.jsonapi
    ident = flatten_record(obs.records[0], jsonapi).get(obs.id_source)
    obs.id_type = "integer" if all(
        kind_of(flatten_record(r, jsonapi).get(obs.id_source)) == "integer" for r in obs.records
    ) else "string"  # fmt: skip
    tried: list[str] = []
    for template, why in _templates(client, obs.records[0], detail_template, ident):
        if template in tried:
            continue
        tried.append(template)
        answer = client.get(template.replace("{id}", quote(str(ident), safe="")))
        if _answers(obs, answer, ident):
            _confirmed(client, obs, template, answer, why)
            return
    obs.notes.append(f"detail route {detail_template}: not confirmed by a read")
    if obs.id_source in NATURAL_KEYS:
        obs.id_source = None  # a natural key is the id only where records are read by it


def _answers(obs: Observation, answer: Exchange, ident: Any) -> bool:
    """Whether a detail read answered the sampled record (and where its envelope is)."""
    if failure(answer, "the detail route") is not None or not isinstance(answer.body, Mapping):
        return False
    jsonapi = obs.envelope.jsonapi if obs.envelope else False
    key = "id" if jsonapi else (obs.id_source or "id")
    body: Mapping[str, Any] = answer.body
    envelope = ""
    if jsonapi or (key not in body and isinstance(body.get("data"), Mapping)):
        body, envelope = body.get("data") or {}, "data"
    if str(flatten_record(body, False).get(key)) != str(ident):
        return False
    obs.item_envelope = envelope
    return True


def _confirmed(
    client: ProbeClient, obs: Observation, template: str, answer: Exchange, why: Ev | None
) -> None:
    obs.detail_path = template
    if why is not None:
        obs.evidence.append(why)
    obs.evidence.append(Ev("lookup", f"GET {template} answers the sampled record"))
    if obs.id_source in NATURAL_KEYS and not (obs.envelope and obs.envelope.jsonapi):
        obs.id_client = True
        obs.evidence.append(Ev("sample", f"no id key: records are named by their "
                               f"{obs.id_source!r}, chosen by the client on create; "
                               "for a2map verify to prove"))  # fmt: skip
    options = client.options(answer.path)
    if options.ok:
        obs.detail_options = read_options(options.body, options.headers.get("allow"))


SELF_LINKS = ("url", "self", "href")


def _templates(
    client: ProbeClient, record: Mapping[str, Any], given: str, ident: Any
) -> list[tuple[str, Ev | None]]:
    """Detail routes to try, in order: the given one (the spec's, or `<list>/{id}`), the
    one a record's own link names, and the given one with a `.json` format suffix."""
    found: list[tuple[str, Ev | None]] = [(given, None)]
    for key in SELF_LINKS:
        link = record.get(key)
        template = _from_link(client, link, ident) if isinstance(link, str) else None
        if template is not None:
            found.append((template, Ev("sample", f"the records' {key!r} names their detail route")))
            break
    suffixed = given.rstrip("/") + ".json"
    found.append((suffixed, Ev("sample", "the detail route takes a .json format suffix")))
    return found


def _from_link(client: ProbeClient, link: str, ident: Any) -> str | None:
    """``/things/{id}.json`` from a record's own link ``http://…/things/7.json``."""
    url = client.resolve(link)
    if url is None:
        return None
    segments = client.relative(url).split("/")
    text = quote(str(ident), safe="")
    for n in range(len(segments) - 1, -1, -1):
        head, dot, suffix = segments[n].partition(".")
        if head == text and (not dot or suffix.isalnum()):
            segments[n] = "{id}" + dot + suffix
            return "/".join(segments)
    return None
