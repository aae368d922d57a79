"""One module per source a probe reads: OpenAPI 3 and Swagger 2 specs (found, loaded,
resolved), DRF `OPTIONS`, PocketBase's collection schema, metadata APIs listing
collections and fields, Rails and json-server conventions, API roots and their links,
HTML pages and their JSON renderings.
"""

from ._bodies import FORM_BODY as FORM_BODY
from ._collections import NOT_CREATED as NOT_CREATED
from ._collections import NOT_SENT as NOT_SENT
from ._collections import NOT_UPDATED as NOT_UPDATED
from ._collections import SpecCollection as SpecCollection
from ._collections import group as group
from ._collections import group_all as group_all
from ._jsonserver import is_json_server as is_json_server
from ._jsonserver import jsonserver_conventions as jsonserver_conventions
from ._links import Roots as Roots
from ._links import find_roots as find_roots
from ._metadata import SOURCE as METADATA
from ._metadata import Convention as Convention
from ._metadata import Metadata as Metadata
from ._metadata import describe as describe_field
from ._metadata import read_metadata as read_metadata
from ._openapi import SpecRoute as SpecRoute
from ._openapi import SpecRoutes as SpecRoutes
from ._openapi import body_fields as body_fields
from ._openapi import read_routes as read_routes
from ._options import OptionsView as OptionsView
from ._options import read_options as read_options
from ._pages import ACCEPT_RENDERING as ACCEPT_RENDERING
from ._pages import PageCollection as PageCollection
from ._pages import Pages as Pages
from ._pages import detail_renderings as detail_renderings
from ._pages import read_pages as read_pages
from ._pocketbase import SOURCE as SOURCE
from ._pocketbase import Schema as Schema
from ._pocketbase import looks_like_pocketbase as looks_like_pocketbase
from ._pocketbase import read_schema as read_schema
from ._rails import is_rails as is_rails
from ._rails import rails_conventions as rails_conventions
from ._schema import Resolver as Resolver
from ._schema import SchemaProblem as SchemaProblem
from ._specload import SpecDoc as SpecDoc
from ._specload import discover as discover
from ._specload import load_given as load_given

__all__ = [
    "ACCEPT_RENDERING", "FORM_BODY", "METADATA", "NOT_CREATED", "NOT_SENT", "NOT_UPDATED",
    "SOURCE", "Convention", "Metadata",
    "OptionsView", "PageCollection", "Pages", "Resolver", "Roots", "Schema", "SchemaProblem",
    "SpecCollection", "SpecDoc", "SpecRoute", "SpecRoutes", "body_fields", "describe_field",
    "detail_renderings", "discover", "find_roots", "group", "group_all", "is_json_server",
    "is_rails", "jsonserver_conventions", "load_given", "looks_like_pocketbase",
    "rails_conventions", "read_metadata", "read_options", "read_pages", "read_routes",
    "read_schema",
]  # fmt: skip
