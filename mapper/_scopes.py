"""Scopes checked against a mapping: a grant for an entity or operation the app
does not declare would never match anything, so it is refused before it is made."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from pathlib import Path


def mapping_scope_problems(path: Path, scopes: Iterable[str], app_id: str | None) -> str | None:
    """One line naming every scope `path` does not declare, or None when all are declared."""
    from runtime.mapping import MappingError, load_mapping  # only when a mapping is named

    try:
        # the mapping's names are all that matter: its ${VARS} need not be set here
        mapping = load_mapping(path, resolve_env=False)
    except FileNotFoundError:
        return f"--mapping {path}: no such file"
    except (OSError, UnicodeDecodeError) as exc:
        return f"--mapping {path}: cannot read it: {exc}"
    except MappingError as exc:
        count = len(exc.problems)
        return f"--mapping {path}: not a valid mapping ({count} problem(s); run a2map lint)"
    if app_id is not None and app_id != mapping.app.id:
        return f"--app {app_id} does not match the app of --mapping {path} ({mapping.app.id})"
    entities = sorted(mapping.entities)
    operations = sorted(op.name for op in mapping.operations)
    problems = []
    for scope in scopes:
        kind, _, rest = scope.partition(":")
        if kind == "data":
            name = rest.rsplit(":", 1)[0]
            if name not in mapping.entities:
                problems.append(f"{scope!r} (no entity {name!r}{_did_you_mean(name, entities)})")
        elif kind == "op" and rest not in operations:
            problems.append(f"{scope!r} (no operation {rest!r}{_did_you_mean(rest, operations)})")
    if not problems:
        return None
    return (
        f"not declared by {path} (app {mapping.app.id}): {', '.join(problems)}; "
        f"entities: {', '.join(entities) or 'none'}; operations: {', '.join(operations) or 'none'}"
    )


def _did_you_mean(name: str, choices: Sequence[str]) -> str:
    folded = {choice.lower(): choice for choice in choices}
    close = difflib.get_close_matches(name.lower(), list(folded), n=1, cutoff=0.6)
    return f"; did you mean {folded[close[0]]!r}?" if close else ""
