"""stripe-stateful-mock 0.0.16, a stateful fake of Stripe's API, with a few seeded records.

The package comes from npm, installed by ``samples/setup.sh`` into
``<cache>/stripe-stateful-mock-0.0.16`` (``<cache>``: ``$A2APP_SAMPLES_CACHE``, else
``$XDG_CACHE_HOME/a2app-samples``, else ``~/.cache/a2app-samples``). It runs as
``PORT=P node <prefix>/node_modules/stripe-stateful-mock/dist/cli.js``. It has no host
option and binds every interface on that port: the launcher picks a free port and
everything talks to it on 127.0.0.1 only. State is in memory, so ``--data`` keeps only
the server log.

The credential is a Stripe test secret key (``Authorization: Bearer sk_test_...``); the
launcher makes a fresh one per start and prints it as the token. Once the mock answers,
the seed goes in through its own API, form-encoded as Stripe takes it: customers,
products and prices, each with ``metadata``.
"""

from __future__ import annotations

import json
import secrets
import shutil
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from samples.stacks_common.launch import Launch, StackError, cache_root
from samples.stacks_common.launch import main as launch_main

MOCK_VERSION = "0.0.16"
PACKAGE = "stripe-stateful-mock"
SETUP_HINT = "run `bash samples/setup.sh`"
# Any listing answers (401 before the seed's key is known is an answer too).
READY_PATH = "/v1/customers"
SEED_TIMEOUT = 10.0

Form = list[tuple[str, str]]

# The seed, as form bodies. A customer's `name` is sent on create (the mock drops it,
# a real bug kept visible) and again on update, which stores it.
CUSTOMERS: tuple[Form, ...] = (
    [("email", "ada@example.com"), ("name", "Ada Lovelace"), ("metadata[plan]", "pro")],
    [("email", "alan@example.com"), ("name", "Alan Turing"), ("metadata[plan]", "free")],
    [("email", "grace@example.com"), ("name", "Grace Hopper"), ("metadata[plan]", "team"),
     ("description", "Compiler pioneer")],
)  # fmt: skip
PRODUCTS: tuple[Form, ...] = (
    [("name", "Board"), ("description", "A kanban board"), ("metadata[tier]", "basic")],
    [("name", "Board Pro"), ("metadata[tier]", "pro")],
)
# (index of the product, price fields)
PRICES: tuple[tuple[int, Form], ...] = (
    (0, [("currency", "usd"), ("unit_amount", "900"), ("metadata[cycle]", "once")]),
    (1, [("currency", "usd"), ("unit_amount", "2900"), ("nickname", "Pro monthly"),
         ("recurring[interval]", "month"), ("metadata[cycle]", "monthly")]),
    (1, [("currency", "eur"), ("unit_amount", "2700"), ("metadata[cycle]", "once")]),
)  # fmt: skip
SEEDS = {"default": 1, "rich": 4}  # how many times the seed is written


def main(argv: list[str] | None = None) -> int:
    return launch_main(
        "python -m samples.stripe_mock",
        "stripe-stateful-mock 0.0.16 with seeded customers, products and prices "
        "(token: a Stripe test secret key).",
        prepare,
        argv,
    )


def prepare(data_dir: Path, seed: str, port: int) -> Launch:
    node = shutil.which("node")
    if node is None:
        raise StackError(f"node is not on PATH; {SETUP_HINT}")
    key = "sk_test_" + secrets.token_hex(12)
    return Launch(
        [node, str(mock_cli())],
        cwd=data_dir,
        ready_path=READY_PATH,
        env={"PORT": str(port)},
        login=lambda url: _seed(url, key, SEEDS.get(seed, 1)),
    )


def package_dir() -> Path:
    return cache_root() / f"{PACKAGE}-{MOCK_VERSION}" / "node_modules" / PACKAGE


def mock_cli() -> Path:
    package = package_dir()
    try:
        version = json.loads((package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        raise StackError(f"{PACKAGE} is not installed in {package}; {SETUP_HINT}") from None
    if version != MOCK_VERSION:
        raise StackError(f"{package} is {PACKAGE} {version}, not {MOCK_VERSION}")
    return package / "dist" / "cli.js"


def _seed(url: str, key: str, times: int) -> str:
    for _ in range(times):
        for form in CUSTOMERS:
            made = _post(url, key, "/v1/customers", form)
            names = [pair for pair in form if pair[0] == "name"]
            _post(url, key, f"/v1/customers/{made['id']}", names)
        products = [_post(url, key, "/v1/products", form)["id"] for form in PRODUCTS]
        for index, form in PRICES:
            _post(url, key, "/v1/prices", [("product", products[index]), *form])
    return key


def _post(url: str, key: str, path: str, form: Form) -> Any:
    request = urllib.request.Request(
        url + path,
        data=urllib.parse.urlencode(form).encode(),
        headers={"Authorization": f"Bearer {key}"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=SEED_TIMEOUT) as answer:
            return json.loads(answer.read())
    except (OSError, ValueError) as exc:
        raise StackError(f"seeding {path} failed: {exc}") from None
