"""The layout's rules, held by a test: read from the source with `ast`, nothing imported
but the package faces.

(a) no module imports another package's private module (`runtime.<pkg>._x` from outside
    `<pkg>`); a test may import the private modules of the package it mirrors;
(b) no import cycle among the modules of `runtime/` and `mapper/`;
(c) `runtime` never imports `mapper`;
(d) `runtime/protocol` and `runtime/query` do no I/O: no network, database, web or
    process module, nor the runtime's own I/O packages;
(e) every package face in `runtime/` and `mapper/` declares `__all__`, and each name in
    it exists.

Every import counts: at module level, inside a function, under `if TYPE_CHECKING`.
`KNOWN` lists the violations the code has today, each to be removed with the move that
fixes it; a new violation fails, and so does a listed one that is gone (so the list
only shrinks).
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PRODUCT = ("runtime", "mapper", "bench")
LAYERED = ("runtime", "mapper")  # the halves whose modules must not import in a circle
PURE = ("runtime.protocol", "runtime.query")
IO_MODULES = {
    "aiohttp", "asyncio", "fastapi", "http.client", "http.server", "httpx", "requests",
    "selectors", "socket", "socketserver", "sqlalchemy", "sqlite3", "ssl", "starlette",
    "subprocess", "urllib.request", "uvicorn", "alembic",
    # the runtime's own I/O: what talks to the upstream, the store, the web
    "runtime.upstream", "runtime.store", "runtime.web", "runtime.service",
}  # fmt: skip

# Today's violations, each removed by the change that fixes it. Keep the comment saying why.
KNOWN: dict[str, set[str]] = {
    # (a) importer -> private module of another package
    "private": set(),
    # (b) one entry per strongly connected set of modules, sorted and joined by " <-> "
    "cycle": set(),
    # (c) runtime module -> mapper module
    "runtime->mapper": set(),
    # (d) pure module -> I/O module
    "io": set(),
    # (e) package face without `__all__`, or naming what it lacks
    "all": set(),
}


@dataclass(frozen=True, slots=True)
class Module:
    name: str
    path: Path
    is_package: bool

    @property
    def package(self) -> str:
        return self.name if self.is_package else self.name.rpartition(".")[0]


@cache
def modules(tops: tuple[str, ...] = PRODUCT) -> dict[str, Module]:
    found: dict[str, Module] = {}
    for top in tops:
        for path in sorted((REPO / top).rglob("*.py")):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            name = ".".join(parts[:-1] if is_package else parts)
            found[name] = Module(name, path, is_package)
    return found


def imported(module: Module) -> Iterator[str]:
    """Every dotted name `module` imports, relative imports resolved, `from m import n`
    as `m.n` when that is a module of ours, else as `m`."""
    ours = modules()
    tree = ast.parse(module.path.read_text(encoding="utf-8"), str(module.path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:
                yield f"{target}.{alias.name}" if f"{target}.{alias.name}" in ours else target


@cache
def graph() -> dict[str, frozenset[str]]:
    """Importer -> imported modules of ours."""
    ours = modules()
    return {
        name: frozenset(t for t in imported(module) if t in ours) for name, module in ours.items()
    }


def cycles(edges: dict[str, frozenset[str]]) -> list[list[str]]:
    """The strongly connected sets of more than one module (Tarjan), and self-imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges.get(v, ()):
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _private_owner(target: str) -> str | None:
    """The package whose private module `target` is, if it is one."""
    parts = target.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:i]) if i else None
    return None


def _mirrored(test: Path) -> str:
    """The package a test file mirrors: tests/runtime/protocol/test_x.py -> runtime.protocol."""
    return ".".join(test.relative_to(REPO / "tests").parent.parts)


def private_imports() -> set[str]:
    ours = modules()
    found = set()
    for name, module in ours.items():
        for target in imported(module):
            owner = _private_owner(target)
            if owner and owner.split(".")[0] in PRODUCT and not _within(name, owner):
                found.add(f"{name} -> {target}")
    return found


def private_imports_of_tests() -> set[str]:
    found = set()
    for path in sorted((REPO / "tests").rglob("*.py")):
        mirrored = _mirrored(path)
        module = Module(".".join(path.relative_to(REPO).with_suffix("").parts), path, False)
        for target in imported(module):
            owner = _private_owner(target)
            if owner and owner.split(".")[0] in PRODUCT and not _within(mirrored, owner):
                found.add(f"{module.name} -> {target}")
    return found


def _check(kind: str, found: set[str]) -> None:
    new, gone = sorted(found - KNOWN[kind]), sorted(KNOWN[kind] - found)
    assert not new, f"new {kind} violations:\n  " + "\n  ".join(new)
    assert not gone, f"fixed, remove from KNOWN[{kind!r}]:\n  " + "\n  ".join(gone)


def test_no_import_of_another_packages_private_module() -> None:
    _check("private", private_imports())


# Tests mirror the packages: a test reaches into the package it mirrors only.
TESTS_KNOWN: set[str] = set()


def test_tests_reach_only_into_the_package_they_mirror() -> None:
    found = private_imports_of_tests()
    new, gone = sorted(found - TESTS_KNOWN), sorted(TESTS_KNOWN - found)
    assert not new, "tests reaching into another package:\n  " + "\n  ".join(new)
    assert not gone, "fixed, remove from TESTS_KNOWN:\n  " + "\n  ".join(gone)


def test_no_import_cycle() -> None:
    layered = {
        name: frozenset(t for t in targets if t.split(".")[0] in LAYERED)
        for name, targets in graph().items()
        if name.split(".")[0] in LAYERED
    }
    _check("cycle", {" <-> ".join(component) for component in cycles(layered)})


def test_runtime_never_imports_mapper() -> None:
    found = {
        f"{name} -> {target}"
        for name, module in modules().items()
        if _within(name, "runtime")
        for target in imported(module)
        if _within(target, "mapper")
    }
    _check("runtime->mapper", found)


def test_protocol_and_query_do_no_io() -> None:
    found = {
        f"{name} -> {target}"
        for name, module in modules().items()
        if any(_within(name, pure) for pure in PURE)
        for target in imported(module)
        if any(_within(target, io) for io in IO_MODULES)
    }
    _check("io", found)


def _faces() -> list[str]:
    return [m.name for m in modules(LAYERED).values() if m.is_package]


def test_every_package_face_pins_its_public_names() -> None:
    found = set()
    for name in _faces():
        face = importlib.import_module(name)
        names = getattr(face, "__all__", None)
        if names is None:
            found.add(f"{name}: no __all__")
            continue
        found.update(
            f"{name}: __all__ names {n!r}, which it lacks" for n in names if not hasattr(face, n)
        )
    _check("all", found)


def test_the_cycle_finder_finds_cycles() -> None:
    edges = {
        "a": frozenset({"b"}),
        "b": frozenset({"c"}),
        "c": frozenset({"a"}),
        "d": frozenset({"a"}),
    }
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": frozenset({"a"})}) == [["a"]]
    assert cycles({"a": frozenset({"b"}), "b": frozenset()}) == []


@pytest.mark.parametrize(
    ("target", "owner"),
    [
        ("runtime.protocol._errors", "runtime.protocol"),
        ("runtime._state", "runtime"),
        ("runtime.protocol", None),
        ("mapper.__main__", None),
    ],
)
def test_private_owner(target: str, owner: str | None) -> None:
    assert _private_owner(target) == owner
