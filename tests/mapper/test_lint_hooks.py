"""`a2map lint` checks declared webhooks offline: the secret's variable need not be set,
but the secret must be one, and each key must fit the hook's scheme."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from mapper.cli import app

ROOT = Path(__file__).resolve().parents[2]
BASE = (ROOT / "mappings" / "conformance-kanban.yaml").read_text()


def _with_hook(tmp_path: Path, hook: str) -> str:
    path = tmp_path / "hooked.yaml"
    path.write_text(BASE.rstrip("\n") + "\n  hooks:\n    billing: " + hook + "\n")
    return str(path)


def test_a_hook_whose_secret_comes_from_the_environment_passes(tmp_path: Path) -> None:
    hook = "{scheme: standard-webhooks, secret: '${UNSET_HOOK_SECRET}', event: invoice.paid}"
    result = CliRunner().invoke(app, ["lint", _with_hook(tmp_path, hook)])
    assert result.exit_code == 0, result.output


def test_a_literal_secret_is_refused(tmp_path: Path) -> None:
    hook = "{scheme: standard-webhooks, secret: whsec_c2VjcmV0c2VjcmV0, event: invoice.paid}"
    result = CliRunner().invoke(app, ["lint", _with_hook(tmp_path, hook)])
    assert result.exit_code == 1
    assert "serve.hooks.billing.secret" in result.output and "whsec_" not in result.output


def test_a_header_scheme_without_its_header_is_refused(tmp_path: Path) -> None:
    hook = "{scheme: hmac-sha256, secret: '${S}', event: x.y, encoding: base64, tolerance: 9}"
    result = CliRunner().invoke(app, ["lint", _with_hook(tmp_path, hook)])
    assert result.exit_code == 1
    assert "needs 'header'" in result.output
    assert "serve.hooks.billing.tolerance" in result.output
