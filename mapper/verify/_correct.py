"""`--write-corrected`: the mapping with every mechanical fix applied, as a separate file.

The verifier never rewrites the mapping it verified; a corrected copy keeps the
file's comments, order and flow style (ruamel's round trip), so it can be
reviewed as a small diff and adopted by hand.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from ruamel.yaml import YAML

from ._failures import Correction


def _yaml() -> YAML:
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap a line the author wrote
    yaml.indent(mapping=2, sequence=4, offset=2)  # `  - item`, as the prober writes lists
    return yaml


def _walk(doc: Any, path: tuple[str | int, ...]) -> Any:
    node = doc
    for part in path:
        found = (isinstance(node, dict) and part in node) or (
            isinstance(node, list) and isinstance(part, int) and part < len(node)
        )
        if not found:
            return None
        node = node[part]
    return node


def _apply(doc: Any, fix: Correction) -> bool:
    *above, last = fix.path
    if fix.action == "set":
        parent = doc
        for part in above:
            if isinstance(parent, dict) and part not in parent:
                parent[part] = {}
            parent = _walk(parent, (part,))
        if not isinstance(parent, dict):
            return False
        parent[last] = fix.value
        return True
    parent = _walk(doc, tuple(above))
    if fix.action == "remove-item":
        items = _walk(doc, fix.path)
        if not isinstance(items, list) or fix.value not in items:
            return False
        items.remove(fix.value)
        return True
    if not isinstance(parent, dict) or last not in parent:
        return False
    del parent[last]
    # An emptied filter or field block would only confuse a reader; drop it too.
    while len(above) > 2 and not _walk(doc, tuple(above)):
        *above, last = above
        container = _walk(doc, tuple(above))
        if isinstance(container, dict):
            del container[last]
    return True


def corrected_text(text: str, corrections: Iterable[Correction]) -> tuple[str, list[Correction]]:
    """The corrected document, and the corrections that could not be applied."""
    yaml = _yaml()
    doc = yaml.load(text)
    missed = [fix for fix in corrections if not _apply(doc, fix)]
    out = io.StringIO()
    yaml.dump(doc, out)
    return out.getvalue(), missed
