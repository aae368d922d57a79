"""`UpstreamClient`: every request the runtime makes to the foreign API goes through here.

One pooled `httpx.AsyncClient` per upstream; each exchange is bounded by the
mapping's timeout, confined to the base URL, credentialed on the wire only, and
translated at the boundary in `_translate`. Records come back in protocol shape.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any
from urllib.parse import quote

import httpx

from runtime.mapping import Entity, Pagination, Upstream
from runtime.mapping import Mapping as MappingModel
from runtime.protocol import ProtocolError, steers

from ._confine import BaseUrl
from ._form import FORM_MEDIA, form_body
from ._pagination import PAST_END, Answer, Ask, style_for
from ._records import dig, id_text, to_protocol, to_upstream, write_wrap
from ._translate import NOT_FOUND, answered_write, interpret, shape_error, translating
from ._walk import Page, Pager, Scan, with_params
from ._wire import Secrets, WireTransport
from .dialects import Dialect, dialect_for

logger = logging.getLogger("runtime.upstream")
METHODS = frozenset({"GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
MAX_REDIRECTS = 5
# Records read at most to find the one a create answered no id for (`write.findBy`).
FIND_LIMIT = 10000


@dataclass(frozen=True, slots=True)
class ListingTag:
    """A listing's `ETag` (None: it sends none); whether a conditional ask of it was
    answered 304 Not Modified; and whether the answer tagged is the whole listing (no
    page follows it), so that its tag covers every record."""

    etag: str | None
    unchanged: bool = False
    whole: bool = False


class UpstreamClient:
    """The runtime's only connection to one foreign API."""

    def __init__(
        self,
        upstream: Upstream,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        id_types: Mapping[str, str] | None = None,
    ) -> None:
        self.upstream = upstream
        self.base = BaseUrl(upstream.base_url)
        self._secrets = Secrets.of(upstream)
        self._id_types = dict(id_types or {})
        inner = transport if transport is not None else httpx.AsyncHTTPTransport()
        self._http = httpx.AsyncClient(
            transport=WireTransport(inner, upstream, self.base),
            timeout=httpx.Timeout(upstream.timeout_seconds),
            headers={"Accept": "application/json"},
            follow_redirects=True,
            max_redirects=MAX_REDIRECTS,
            # Proxies and .netrc credentials from the environment would change
            # where requests go and what they carry; the mapping alone decides.
            trust_env=False,
        )
        pagination = upstream.pagination
        self._pager = Pager(style_for(pagination, self.base), self._list, pagination.max_size)
        self._pagers: dict[str, Pager] = {}

    @classmethod
    def for_mapping(
        cls, mapping: MappingModel, *, transport: httpx.AsyncBaseTransport | None = None
    ) -> UpstreamClient:
        """A client that also knows every entity's id type, for writing refs."""
        id_types = {name: entity.id_type for name, entity in mapping.entities.items()}
        return cls(mapping.upstream, transport=transport, id_types=id_types)

    @property
    def dialect(self) -> Dialect:
        return dialect_for(self.upstream.dialect)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> UpstreamClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # ------------------------------------------------------------------ exchange

    async def _send(
        self,
        method: str,
        url: httpx.URL,
        *,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        what = f"{method} {url.path}"
        started = time.perf_counter()
        with translating(what):
            # The deadline bounds the whole exchange; httpx's own timeouts bound
            # each phase, so a server trickling bytes cannot hold us past it.
            # asyncio's own (the runtime serves on asyncio): it costs a third of a
            # cancel scope, and every upstream request opens one.
            async with asyncio.timeout(self.upstream.timeout_seconds):
                if self.upstream.body_encoding == "form" and isinstance(json, Mapping):
                    sent = {**(headers or {}), "Content-Type": FORM_MEDIA}
                    request = self._http.build_request(
                        method, url, content=form_body(json), headers=sent
                    )
                else:
                    request = self._http.build_request(method, url, json=json, headers=headers)
                try:
                    response = await self._http.send(request)
                except (httpx.RemoteProtocolError, httpx.ReadError):
                    if method not in SAFE_METHODS:
                        raise
                    # A server may close a kept-alive connection after an error answer,
                    # and the next request sent on it meets the close: a request that
                    # changes nothing is sent once more, on a new connection.
                    response = await self._http.send(request)
        # Path only: the query may hold filter values, or the key of query auth.
        elapsed_ms = 1000 * (time.perf_counter() - started)
        logger.debug("%s -> %d in %.0f ms", what, response.status_code, elapsed_ms)
        return response

    def _interpret(
        self,
        response: httpx.Response,
        entity: Entity | None,
        *,
        not_found_is_none: bool = False,
        listing: bool = False,
    ) -> Any:
        request = response.request
        # A listing's 403 is the credentials' fault even where one record's is not.
        missing = 404 if listing else self.upstream.not_found_status
        return interpret(
            response,
            what=f"{request.method} {request.url.path}",
            secrets=self._secrets,
            errors=self.upstream.errors,
            entity=entity,
            wrap=write_wrap(entity, self.upstream.write_envelope) if entity else (),
            not_found_is_none=not_found_is_none,
            not_found_status=missing,
        )

    async def _exchange(
        self,
        method: str,
        url: httpx.URL,
        *,
        json: Any = None,
        entity: Entity | None = None,
        not_found_is_none: bool = False,
    ) -> Any:
        response = await self._send(method, url, json=json)
        return self._interpret(response, entity, not_found_is_none=not_found_is_none)

    async def _list(self, ask: Ask, entity: Entity) -> Answer:
        response = await self._send(ask.method, ask.url, json=ask.body, headers=dict(ask.headers))
        if response.status_code == 416 and ask.header("Range") is not None:
            return Answer(PAST_END, response)  # a range past the last record
        return Answer(
            self._interpret(response, entity, not_found_is_none=True, listing=True), response
        )

    def _pager_for(self, entity: Entity) -> Pager:
        """The upstream's pager, or the entity's own when its ``list`` names a pagination."""
        own = entity.listing.pagination if entity.listing else None
        if own is None:
            return self._pager
        if entity.name not in self._pagers:
            self._pagers[entity.name] = Pager(style_for(own, self.base), self._list, own.max_size)
        return self._pagers[entity.name]

    def pagination_of(self, entity: Entity) -> Pagination:
        """The pagination the entity is listed with."""
        own = entity.listing.pagination if entity.listing else None
        return own or self.upstream.pagination

    def _listing(self, entity: Entity, params: Mapping[str, str]) -> Ask:
        url = self._join(entity.list_path, params)
        # A POST listing sends its paging in a JSON object, even an empty one.
        return Ask(url, "POST", {}) if entity.list_method == "POST" else Ask(url)

    # ------------------------------------------------------------------ reads

    async def list_page(
        self, entity: Entity, params: Mapping[str, str], *, page: int, per_page: int
    ) -> Page:
        """One protocol page: asked for directly when the style can, else walked to."""
        ask = self._listing(entity, params)
        return await self._pager_for(entity).list_page(entity, ask, page=page, per_page=per_page)

    def scan(self, entity: Entity, params: Mapping[str, str], *, limit: int) -> Scan:
        """Up to `limit` records over all upstream pages; see `Scan.truncated`."""
        return self._pager_for(entity).scan(entity, self._listing(entity, params), limit=limit)

    async def listing_tag(self, entity: Entity, etag: str | None = None) -> ListingTag:
        """The `ETag` of the entity's plain listing (its first page), asked for with
        `If-None-Match: <etag>` when one is given: `unchanged` when answered 304."""
        ask = self._listing(entity, {})
        headers = {**dict(ask.headers), **({"If-None-Match": etag} if etag else {})}
        response = await self._send(ask.method, ask.url, json=ask.body, headers=headers)
        if response.status_code == 304:
            return ListingTag(etag, unchanged=True)
        body = self._interpret(response, entity, listing=True)  # a refusal is translated here
        chunk = self._pager_for(entity).style.chunk(Answer(body, response), ask, 0)
        return ListingTag(response.headers.get("ETag"), whole=chunk.next is None)

    async def get_record(self, entity: Entity, id: str | int) -> dict[str, Any] | None:
        if steers(str(id)):
            return None  # no record has such an id: as a path it would name another resource
        body = await self._exchange(
            "GET", self._detail(entity, id), entity=entity, not_found_is_none=True
        )
        return None if body is NOT_FOUND else self._record(entity, body)

    # ------------------------------------------------------------------ writes

    async def create_record(self, entity: Entity, body: Mapping[str, Any]) -> dict[str, Any]:
        """POST the record; returns it as the upstream stored it."""
        self._allowed(entity, entity.write.create, "create")
        url = self._join(entity.path)
        answer = await self._send("POST", url, json=self._payload(entity, body))
        with answered_write(answer):
            result = self._interpret(answer, entity)
            location = answer.headers.get("location")
            if result is None and location:
                # An empty 201 names the new record in Location; read it from there.
                with translating(f"POST {url.path}"):
                    created = self.base.follow(location, answer.url)
                return self._record(entity, await self._exchange("GET", created, entity=entity))
            if result is None and entity.id_client and body.get("id") is not None:
                # No body, no Location: the client chose the id, so read it by that id.
                found = await self.get_record(entity, str(body["id"]))
                if found is not None:
                    return found
            elif result is None and entity.write.find_by is not None:
                return await self._created_by_value(entity, entity.write.find_by, body)
            return self._written(entity, result)

    async def update_record(
        self, entity: Entity, id: str | int, body: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        """PATCH (or PUT or POST, per the mapping) the record; None when it does not exist."""
        method = entity.write.update
        self._allowed(entity, method is not None, "update")
        changes = dict(body)
        if method == "PUT":
            # PUT replaces: send the stored writable values with the changes on top,
            # so fields the caller did not mention are not wiped.
            current = await self.get_record(entity, id)
            if current is None:
                return None
            kept = {
                name: current.get(name)
                for name, field in entity.fields.items()
                if not field.read_only and not field.write_only and not field.create_only
            }
            changes = kept | changes
        answer = await self._send(
            method or "PATCH", self._detail(entity, id), json=self._payload(entity, changes)
        )
        with answered_write(answer):
            result = self._interpret(answer, entity, not_found_is_none=True)
            if result is NOT_FOUND:
                return None
            if result is None:
                return await self.get_record(entity, id)  # 204: read back what was stored
            return self._written(entity, result)

    async def delete_record(self, entity: Entity, id: str | int) -> dict[str, Any] | None:
        """DELETE the record: the upstream's last view of it, or ``{"id": …}``; None on 404."""
        self._allowed(entity, entity.write.delete, "delete")
        answer = await self._send("DELETE", self._detail(entity, id))
        with answered_write(answer):
            result = self._interpret(answer, entity, not_found_is_none=True)
        if result is NOT_FOUND:
            return None
        item = dig(result, self.upstream.item_envelope) if self.upstream.item_envelope else result
        if isinstance(item, dict) and id_text(dig(item, entity.id_source)) is not None:
            return to_protocol(entity, item)
        return {"id": str(id)}

    # ------------------------------------------------------------------ operations

    async def call(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        json: Any = None,
        entity: Entity | None = None,
        if_missing: Callable[[], Awaitable[None]] | None = None,
    ) -> Any:
        """One request for an operation; `path` is relative to the base URL, already encoded.

        `if_missing` is awaited on a "no such record" answer (404, or the mapping's
        `notFoundStatus`) before it is translated: it may raise a better error, such as
        the refs of the call that name no record."""
        method = method.upper()
        if method not in METHODS:
            raise ValueError(f"unsupported method {method!r}")
        url = self._join(path, params)
        answer = await self._send(method, url, json=json)
        if if_missing is not None and answer.status_code == self.upstream.not_found_status:
            await if_missing()
        if method in ("GET", "HEAD", "OPTIONS"):
            return self._interpret(answer, entity)
        with answered_write(answer):
            return self._interpret(answer, entity)

    # ------------------------------------------------------------------ helpers

    def _join(self, path: str, params: Mapping[str, str] | None = None) -> httpx.URL:
        with translating(f"path {path[:100]}"):
            return with_params(self.base.join(path), params)

    def _detail(self, entity: Entity, id: str | int) -> httpx.URL:
        if steers(str(id)):
            raise ProtocolError("record_not_found", f"No {entity.name} record {str(id)!r}.")
        return self._join(entity.detail_path.replace("{id}", quote(str(id), safe="")))

    def _payload(self, entity: Entity, body: Mapping[str, Any]) -> dict[str, Any]:
        return to_upstream(
            entity, body, envelope=self.upstream.write_envelope, id_types=self._id_types
        )

    def _written(self, entity: Entity, body: Any) -> dict[str, Any]:
        """The record a write answered with: under `write.answer` when the mapping says so."""
        return self._record(entity, body, envelope=entity.write.answer)

    async def _created_by_value(
        self, entity: Entity, name: str, body: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The one record holding the unique value a create sent, when its answer named none.

        Anything but exactly one such record leaves the create's outcome unknown: the
        caller is told to read before retrying, never that it was done.
        """
        field, sent = entity.fields[name], body.get(name)
        if sent is None:
            raise shape_error(f"no record in the answer, and no {name} was sent to find it by")
        params: dict[str, str] = {}
        spelled = entity.filters.get(name, {}).get("=")
        encoded = self.dialect.encode_value(field, sent) if spelled is not None else None
        if spelled is not None and encoded is not None:
            params[spelled.param] = encoded
        found = [r async for r in self.scan(entity, params, limit=FIND_LIMIT) if r[name] == sent]
        if len(found) != 1:
            many = "no" if not found else f"{len(found)}"
            raise shape_error(f"no record in the answer, and {many} {entity.name} records hold "
                              f"the {name} sent")  # fmt: skip
        return found[0]

    def _record(
        self, entity: Entity, body: Any, envelope: tuple[str, ...] | None = None
    ) -> dict[str, Any]:
        envelope = self.upstream.item_envelope if envelope is None else envelope
        item = dig(body, envelope) if envelope else body
        if not isinstance(item, dict):
            got = "nothing" if item is None else f"a {type(item).__name__}"
            raise shape_error(f"{got} where a {entity.name} record was expected")
        return to_protocol(entity, item)

    @staticmethod
    def _allowed(entity: Entity, allowed: bool, action: str) -> None:
        if not allowed:
            raise ProtocolError(
                "not_implemented", f"The upstream does not {action} {entity.name} records."
            )
