"""Probing, verification and review of mappings: the `a2map` command (`mapper.cli`).

The face exports nothing: the command is the interface, and each subpackage
(`mapper.probe`, `mapper.verify`) has its own face.
"""

__all__: list[str] = []
