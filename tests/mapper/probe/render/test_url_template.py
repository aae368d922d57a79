"""The probed URL becomes the default of ``${<APP>_URL}``, and never a credential."""

from __future__ import annotations

import pytest

from mapper.probe._draft import Draft, UpstreamDraft
from mapper.probe.render._render import url_template

CASES = [
    ("http://127.0.0.1:8000", "${SHOP_URL:-http://127.0.0.1:8000}"),
    ("https://shop.example/api/v1/", "${SHOP_URL:-https://shop.example/api/v1/}"),
    (None, "${SHOP_URL}"),  # a spec alone: nothing was probed
    ("http://h/x}y", "${SHOP_URL}"),  # the template grammar cannot carry it
]


@pytest.mark.parametrize(("url", "template"), CASES)
def test_the_url_template(url: str | None, template: str) -> None:
    assert url_template(Draft("shop", UpstreamDraft(), base_url=url)) == template
