"""Directus: one parameter per field and operator, ``filter[f][_eq]=v``, and ``sort=-a,b``.

The operator sits in the parameter's name (``filter[due][_lt]``), so the planner
writes plain ``param=value`` pairs, as for a bare API; what differs is the null
test, ``filter[f][_null]=true`` (and ``_nnull``). A datetime is compared as the
database stores it, which depends on the database (SQLite keeps text), so
datetime values are never sent: the local check decides alone. ``_neq`` is SQL's
``!=``, which skips null values where the protocol's ``!=`` selects them: the
probe declares it for the id only.
"""

from __future__ import annotations

import re
from typing import Any

from runtime.mapping import Field

from ._plain import PlainDialect

_EQUALS = re.compile(r"^(?P<base>.+)\[_eq\]$")


class DirectusDialect(PlainDialect):
    name = "directus"
    text_compared = frozenset({"datetime"})

    def encode_value(self, field: Field | None, value: Any) -> str | None:
        if field is not None and field.type in self.text_compared:
            return None
        return super().encode_value(field, value)

    def null_param(self, param: str, is_null: bool) -> tuple[str, str] | None:
        found = _EQUALS.match(param)
        if found is None:
            return None
        return f"{found['base']}[{'_null' if is_null else '_nnull'}]", "true"
