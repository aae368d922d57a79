"""PocketBase's read grammar: parse filter/sort/fields/expand/paging, evaluate locally.

    text ──parse_filter──▶ Expr ──compile_filter(expr, resolver)──▶ record -> bool
    text ──parse_sort────▶ keys ──compile_sort(keys, resolver)────▶ records -> sorted

The engine is generic over `FieldResolver`; `EntityResolver` resolves paths
against a mapping's declared entities, so values compare as declared types.
`plan` splits a query into what the upstream is told (spelled by an `Encoder`,
or handed whole to a `ConditionRenderer`) and what is checked here;
`render_literal` writes a value back as a filter literal.
"""

from ._ast import ANY_OPERATORS as ANY_OPERATORS
from ._ast import MACROS as MACROS
from ._ast import OPERATORS as OPERATORS
from ._ast import And as And
from ._ast import Compare as Compare
from ._ast import Expr as Expr
from ._ast import Literal as Literal
from ._ast import LiteralValue as LiteralValue
from ._ast import Macro as Macro
from ._ast import Operand as Operand
from ._ast import Or as Or
from ._ast import Path as Path
from ._ast import Random as Random
from ._ast import SortItem as SortItem
from ._ast import SortKey as SortKey
from ._ast import comparisons as comparisons
from ._conditions import ConditionRenderer as ConditionRenderer
from ._conditions import NativeFilter as NativeFilter
from ._conditions import native_filter as native_filter
from ._encoder import Encoder as Encoder
from ._encoder import encode_filter as encode_filter
from ._encoder import sort_params as sort_params
from ._evaluate import Predicate as Predicate
from ._evaluate import Record as Record
from ._evaluate import compile_filter as compile_filter
from ._excerpt import Excerpt as Excerpt
from ._fields import FieldPick as FieldPick
from ._fields import parse_fields as parse_fields
from ._fields import project_fields as project_fields
from ._grammar import MAX_COMPARISONS as MAX_COMPARISONS
from ._grammar import MAX_FILTER_LENGTH as MAX_FILTER_LENGTH
from ._grammar import MAX_SORT_KEYS as MAX_SORT_KEYS
from ._grammar import parse_filter as parse_filter
from ._grammar import parse_sort as parse_sort
from ._literal import render_literal as render_literal
from ._params import DEFAULT_PER_PAGE as DEFAULT_PER_PAGE
from ._params import MAX_EXPAND_DEPTH as MAX_EXPAND_DEPTH
from ._params import MAX_PER_PAGE as MAX_PER_PAGE
from ._params import Paging as Paging
from ._params import parse_expand as parse_expand
from ._params import parse_paging as parse_paging
from ._plan import Plan as Plan
from ._plan import plan as plan
from ._resolve import MAX_RELATION_HOPS as MAX_RELATION_HOPS
from ._resolve import EntityResolver as EntityResolver
from ._resolve import FieldResolver as FieldResolver
from ._resolve import Lookup as Lookup
from ._resolve import ResolvedPath as ResolvedPath
from ._resolve import Stage as Stage
from ._sort import Sorter as Sorter
from ._sort import compile_sort as compile_sort
from ._values import Kind as Kind
from ._values import parse_instant as parse_instant

__all__ = [
    "ANY_OPERATORS", "DEFAULT_PER_PAGE", "MACROS", "MAX_COMPARISONS", "MAX_EXPAND_DEPTH",
    "MAX_FILTER_LENGTH", "MAX_PER_PAGE", "MAX_RELATION_HOPS", "MAX_SORT_KEYS", "OPERATORS",
    "And", "Compare", "ConditionRenderer", "Encoder", "EntityResolver", "Excerpt", "Expr",
    "FieldPick", "FieldResolver", "Kind", "Literal", "LiteralValue", "Lookup", "Macro",
    "NativeFilter", "Operand", "Or", "Paging", "Path", "Plan", "Predicate", "Random", "Record",
    "ResolvedPath", "SortItem", "SortKey", "Sorter", "Stage", "comparisons", "compile_filter",
    "compile_sort", "encode_filter", "native_filter", "parse_expand", "parse_fields",
    "parse_filter", "parse_instant", "parse_paging", "parse_sort", "plan", "project_fields",
    "render_literal", "sort_params",
]  # fmt: skip
