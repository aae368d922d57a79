"""Collections gathered from every source, and the live reads that share one client."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from .._naming import entity_name, module_name, segments
from ..live import dig
from ..sources import (
    ACCEPT_RENDERING,
    PageCollection,
    Roots,
    SpecCollection,
    SpecRoutes,
    detail_renderings,
)
from ._entities import Source
from ._paging import Paging, infer

if TYPE_CHECKING:
    from ..live import Exchange, ProbeClient
    from ._observe import Observation

Progress = Callable[[str], None]


def _module_for(path: str, all_paths: list[str]) -> str:
    """No tag: the first segment after the prefix all collections share."""
    parts = [segments(p) for p in all_paths]
    common = 0
    while all(len(p) > common + 1 for p in parts) and len({p[common] for p in parts}) == 1:
        common += 1
    rest = segments(path)[common:]
    return module_name(rest[0] if rest else "api")


def sources_of(
    colls: list[SpecCollection],
    roots: Roots,
    routes: SpecRoutes | None,
    named: Sequence[str] = (),
    pages: Mapping[str, PageCollection] | None = None,
) -> dict[str, Source]:
    """Spec collections, collections an API root names, and those the owner named;
    sorted by name."""
    sources: dict[str, Source] = {}
    spec_source = routes.source if routes else "openapi"
    for coll in colls:
        module = module_name(coll.tag) if coll.tag else ""
        summary = routes.tags.get(coll.tag) if routes and coll.tag else None
        sources[coll.name] = Source(coll.name, coll.path, spec=coll, module=module,
                                    module_summary=summary, spec_source=spec_source)  # fmt: skip
    by_path = {s.path: s for s in sources.values()}
    root = roots.roots[-1] if roots.roots else None
    for name, path in roots.links.items():
        if path in by_path:
            by_path[path].root = root
        elif name not in sources:
            sources[name] = Source(name, path, root=root)
    for name, page in (pages or {}).items():
        if page.path not in by_path and name not in sources:
            sources[name] = Source(name, page.path, page=page.page, rendering=page.rendering,
                                   detail_hint=page.detail_path)  # fmt: skip
    for path in named:
        by_path = {s.path: s for s in sources.values()}
        named_as = entity_name(path)
        if path in by_path:
            by_path[path].owner = True
        elif named_as is not None and named_as not in sources:
            sources[named_as] = Source(named_as, path, owner=True)
    paths = [s.path for s in sources.values()]
    for src in sources.values():
        src.module = src.module or _module_for(src.path, paths)
    return dict(sorted(sources.items()))


def template(src: Source) -> str:
    return src.template()


class Live:
    """The live steps, sharing one client and a cache of lookups."""

    def __init__(self, client: ProbeClient, sources: dict[str, Source], progress: Progress):
        self.client = client
        self.sources = sources
        self.progress = progress
        self._lookups: dict[tuple[str, str], bool] = {}

    def fetch(self, path: str, extra: Mapping[str, str] | None = None) -> Callable[..., Exchange]:
        def fetch(params: Mapping[str, str], headers: Mapping[str, str] | None = None) -> Exchange:
            return self.client.get(path, {**(extra or {}), **params}, headers=headers)

        return fetch

    def template(self, src: Source) -> str:
        return template(src)

    # The sampling steps load with the first live probe: a spec file alone never samples.
    def observe(self) -> None:
        from ._observe import observe

        for src in self.sources.values():
            if src.spec is not None and src.spec.list_path is not None:
                # Listed by POST only: the probe sends no POST, so nothing is sampled.
                self.progress(f"{src.name}: POST {src.spec.list_path}: not sent (read-only)")
                continue
            hint = src.spec.id_param if src.spec else None
            src.obs = observe(self.client, src.name, src.path, hint)
            state = src.obs.finding.reason if src.obs.finding else "sampled"
            self.progress(f"{src.name}: GET {src.path}: {state}")

    def paging(self, spec_params: Mapping[str, list[str]]) -> Paging | None:
        """From the collection with the most records, the one most likely to page."""
        usable = [s for s in self.sources.values() if s.obs and s.obs.envelope]
        usable.sort(key=lambda s: (-len(s.records), s.name))
        if not usable or usable[0].obs is None:
            return None
        src, obs = usable[0], usable[0].obs
        found = infer(obs.answer, spec_params.get(src.name, []), self.fetch(src.path))
        if found is not None:
            self.progress(f"pagination: {found.pagination.get('style')} (from {src.name})")
        return found

    def details(self, size: str | None) -> None:
        from ._observe import enlarge, read_detail

        for src in self.sources.values():
            if src.obs is None or src.obs.finding is not None:
                continue
            enlarge(self.client, src.obs, size)
            read_detail(self.client, src.obs, template(src))
            if src.rendering == ACCEPT_RENDERING and src.obs.detail_path is None:
                self._other_detail(src.obs)

    def _other_detail(self, obs: Observation) -> None:
        """A page whose list answers JSON by Accept while its records answer only with a
        suffix (``/boards/{id}.json``): the first detail rendering that reads back."""
        from ._observe import read_detail

        for detail in detail_renderings(obs.path):
            read_detail(self.client, obs, detail)
            if obs.detail_path is not None:
                # The routes tried first are not worth a note once one read back.
                obs.notes = [n for n in obs.notes if not n.startswith("detail route ")]
                return

    def lookup(self, target: str, value: Any) -> bool:
        """Whether `value` names a record at the target's detail route (one GET, cached)."""
        key = (target, str(value))
        if key not in self._lookups:
            src = self.sources[target]
            ident = src.id_source() or "id"
            answer = self.client.get(template(src).replace("{id}", quote(str(value), safe="")))
            body = answer.body if answer.ok else None
            if isinstance(body, Mapping) and ident not in body:
                body = body.get("data")
            found = dig(body, ident) if isinstance(body, Mapping) else None
            self._lookups[key] = found is not None and str(found) == str(value)
        return self._lookups[key]

    def anonymous(self, path: str, notes: list[str]) -> Exchange:
        """One GET without credentials: are they needed, and how does a refusal read?"""
        answer = self.client.get(path, anonymous=True)
        if answer.status in (401, 403):
            notes.append(
                f"upstream.auth: required (sample: GET without it answered {answer.status})"
            )
        elif answer.ok:
            notes.append("upstream.auth: optional? (sample: GET without it answered 200)")
        return answer

    def used(self) -> list[str]:
        used = []
        if any(s.obs and s.obs.options for s in self.sources.values()):
            used.append("options")
        if any(s.records for s in self.sources.values()):
            used.append("sample")
        if self._lookups or any(s.obs and s.obs.detail_path for s in self.sources.values()):
            used.append("lookup")
        return used
