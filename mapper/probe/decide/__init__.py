"""The probe's decisions, made from the sources and the samples with evidence:
collections observed, fields merged, refs confirmed, filters, sorts, paging,
expansions, operations and what is left unmapped.
"""

from ._entities import Source as Source
from ._entities import build as build
from ._entities import ref_inputs as ref_inputs
from ._expansions import settle as settle
from ._filters import filter_candidates as filter_candidates
from ._filters import probe_sort as probe_sort
from ._filters import sort_param as sort_param
from ._instances import Instances as Instances
from ._instances import expand as expand
from ._instances import instances as instances
from ._leftovers import unclaimed as unclaimed
from ._leftovers import unserved as unserved
from ._metadata_draft import metadata as metadata
from ._missing import not_found_status as not_found_status
from ._nospec import refine as refine
from ._operations import propose as propose
from ._pagefit import fit_pages as fit_pages
from ._pagefit import refuse_unwalkable as refuse_unwalkable
from ._pagefit import with_size_cap as with_size_cap
from ._paging import Paging as Paging
from ._paging import spec_paging as spec_paging
from ._pocketbase_draft import pocketbase as pocketbase
from ._refs import by_name_and_format as by_name_and_format
from ._refs import by_name_only as by_name_only
from ._refs import decide as decide
from ._refused import all_refused as all_refused
from ._refused import refusal as refusal
from ._steps import Live as Live
from ._steps import sources_of as sources_of
from ._steps import template as template
from ._upstream import credentials as credentials
from ._upstream import dialects as dialects

__all__ = [
    "Instances",
    "Live",
    "Paging",
    "Source",
    "all_refused",
    "build",
    "by_name_and_format",
    "by_name_only",
    "credentials",
    "decide",
    "dialects",
    "expand",
    "filter_candidates",
    "fit_pages",
    "instances",
    "metadata",
    "not_found_status",
    "pocketbase",
    "probe_sort",
    "propose",
    "ref_inputs",
    "refine",
    "refusal",
    "settle",
    "sort_param",
    "sources_of",
    "spec_paging",
    "template",
    "unclaimed",
    "unserved",
    "with_size_cap",
]  # fmt: skip
__all__ += ["refuse_unwalkable"]
