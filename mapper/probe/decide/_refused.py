"""A probe the API refused: every read of its data answered 401/403.

Then no mapping is written (a public spec alone is not a mapping of what the API
holds): the probe stops with `AuthRefused`, naming the ``--header`` to pass
(`_authhint`) and listing what was refused.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING

from .._auth import HeaderArg
from .._authhint import header_hint
from .._errors import AuthRefused, Finding
from .._naming import env_prefix
from ..sources import SpecRoutes
from ._entities import Source

if TYPE_CHECKING:
    from ..live import ProbeClient


def all_refused(
    client: ProbeClient, sources: Mapping[str, Source], public: Collection[str] = ()
) -> bool:
    """Some request was refused (401/403) and no collection answered otherwise: the
    probe could read nothing of the data, whatever a public spec said. With no
    collection found at all, only if most paths read were refused, beside the `public`
    ones (the home page, the spec): a site whose pages answer while one refuses (an
    admin page) has nothing mappable, it did not refuse the probe."""
    if not client.refused:
        return False
    if not sources:
        refused = {a.path for a in client.refused}
        return len(refused) > len(client.answered - set(public) - refused)
    return not any(
        s.obs is not None and (s.obs.finding is None or s.obs.finding.code != "auth-refused")
        for s in sources.values()
    )


def refusal(
    client: ProbeClient, routes: SpecRoutes | None, headers: Sequence[HeaderArg], ident: str,
    unmapped: list[Finding],
) -> AuthRefused:  # fmt: skip
    """Nothing mapped and the API refused the prober: say which ``--header`` to pass."""
    refused = client.refused
    challenges = [c for a in refused for c in a.headers.get_list("www-authenticate")]
    bodies = [a.text for a in refused if a.text]
    schemes = routes.schemes if routes else {}
    hint, why = header_hint(challenges, bodies, schemes, routes.security if routes else (),
                            env_prefix(ident))  # fmt: skip
    statuses = "/".join(sorted({str(a.status) for a in refused}))
    given = ", ".join(h.name for h in headers)
    told = f"the credentials given ({given}) were refused" if headers else "no credentials given"
    count = f"{len(refused)} request{'' if len(refused) == 1 else 's'}"
    message = (
        f"every read of the API's data was refused ({count} answered {statuses}; {told}): "
        f"pass --header '{hint}' ({why}), with {env_prefix(ident)}_TOKEN set"
    )
    return AuthRefused(message, hint, unmapped)
