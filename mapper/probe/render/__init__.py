"""The probe's drafts built as the runtime's typed mapping and written with its `dump`."""

from ._render import build_mapping as build_mapping
from ._render import built as built
from ._render import document as document
from ._render import entity_model as entity_model
from ._render import header as header
from ._render import label_of as label_of
from ._render import render as render
from ._render import variables as variables

__all__ = [
    "build_mapping", "built", "document", "entity_model", "header", "label_of", "render",
    "variables",
]  # fmt: skip
