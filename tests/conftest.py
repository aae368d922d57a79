"""Shared fixtures: real sample servers on loopback, always stopped."""

pytest_plugins = ["tests.fixtures.plugin"]
