"""One lark grammar (LALR) for the filter and sort parameters, and the tree-to-AST step.

The lexer follows fexpr's token rules (reference §3.1): identifiers may hold
`.` and `:`, a run of sign characters is one operator token (so `==` and `=~`
are refused by name), a number never starts with `.`, and only space, tab and
newline are whitespace. Parse results are cached by text: clients repeat the
same few filters, and parsing costs more than evaluating one page.
"""

from __future__ import annotations

import functools
import re

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from runtime.protocol import ProtocolError

from ._ast import (
    ANY_OPERATORS,
    MACROS,
    MODIFIERS,
    OPERATORS,
    And,
    Compare,
    Expr,
    Literal,
    Macro,
    Operand,
    Or,
    Path,
    Random,
    SortItem,
    SortKey,
    comparisons,
)
from ._strings import decode_string

MAX_FILTER_LENGTH = 3500
MAX_COMPARISONS = 200
MAX_SORT_KEYS = 8
MAX_SORT_KEY_LENGTH = 255

_GRAMMAR = r"""
filter: item link*
link: JOIN item
    | group
?item: group | comparison
group: "(" filter ")"
comparison: operand SIGN operand
// FUNC is named here only so the lexer keeps it: its callback refuses the call
?operand: NAME | STRING | NUMBER | FUNC

sort: sort_item ("," sort_item)*
sort_item: DIRECTION? NAME

JOIN: "&&" | "||"
SIGN: /[=?!<>~]+/
FUNC.2: /[A-Za-z@_#][A-Za-z0-9_.:]*\(/
NAME: /[A-Za-z@_#][A-Za-z0-9_.:]*/
NUMBER: /-(?:\d+(?:\.\d+)?|\.\d+)|\d+(?:\.\d+)?/
STRING: /"(?:[^"\\]|\\[\s\S])*"|'(?:[^'\\]|\\[\s\S])*'/
DIRECTION: "-" | "+"
COMMENT: /\/\/[^\n]*/
WS: /[ \t\n]+/
%ignore WS
%ignore COMMENT
"""


class _FunctionCall(Exception):
    """Raised by the lexer: a call is refused by name before its arguments confuse parsing."""

    def __init__(self, token: Token) -> None:
        super().__init__(str(token))
        self.token = token


def _refuse_function(token: Token) -> Token:
    raise _FunctionCall(token)


_PARSER = Lark(
    _GRAMMAR,
    parser="lalr",
    lexer="basic",
    start=["filter", "sort"],
    lexer_callbacks={"FUNC": _refuse_function},
)
_SEGMENT = re.compile(r"[A-Za-z0-9_]+")
_SIGNS = frozenset(OPERATORS + ANY_OPERATORS)
_WORDS: dict[str, Literal] = {"true": Literal(True), "false": Literal(False), "null": Literal(None)}


def parse_filter(text: str) -> Expr | None:
    """The filter's AST, or None when the text is empty or only whitespace."""
    if not text.strip():
        return None
    return _parse_filter(text)


def parse_sort(text: str) -> tuple[SortItem, ...]:
    """Comma-separated keys; `-` sorts descending, `+` or nothing ascending."""
    if not text.strip():
        return ()
    return _parse_sort(text)


@functools.lru_cache(maxsize=1024)
def _parse_filter(text: str) -> Expr:
    if len(text) > MAX_FILTER_LENGTH:
        raise _error(f"the filter is longer than {MAX_FILTER_LENGTH} characters", text)
    expr = _Builder(text).filter(_parse(text, "filter"))
    if len(comparisons(expr)) > MAX_COMPARISONS:
        raise _error(f"the filter holds more than {MAX_COMPARISONS} comparisons", text)
    return expr


@functools.lru_cache(maxsize=256)
def _parse_sort(text: str) -> tuple[SortItem, ...]:
    tree = _parse(text, "sort")
    if len(tree.children) > MAX_SORT_KEYS:
        raise _error(f"sort lists more than {MAX_SORT_KEYS} fields", text)
    return tuple(_Builder(text).sort_item(item) for item in _trees(tree.children))


def _parse(text: str, start: str) -> Tree[Token]:
    try:
        return _PARSER.parse(text, start=start)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, start) from None
    except _FunctionCall as call:
        name, pos = str(call.token)[:-1], (call.token.start_pos or 0) + 1
        raise _error(f"unsupported function {name}() at position {pos}", text) from None


def _syntax_error(exc: UnexpectedInput, text: str, start: str) -> ProtocolError:
    what = "filter" if start == "filter" else "sort"
    if isinstance(exc, UnexpectedEOF) or (
        isinstance(exc, UnexpectedToken) and exc.token.type == "$END"
    ):
        return _error(f"unexpected end of {what} at position {len(text) + 1}", text)
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream or 0
        char = text[pos]
        if char in "\"'":
            return _error(f"unterminated string starting at position {pos + 1}", text)
        return _error(f"unexpected character {_show(char)} at position {pos + 1}", text)
    if isinstance(exc, UnexpectedToken):
        token = exc.token
        pos = (token.start_pos or 0) + 1
        return _error(f"unexpected token {_show(str(token))} at position {pos}", text)
    return _error(f"the {what} cannot be parsed", text)


class _Builder:
    """Turns lark's parse tree into the frozen AST, checking what the grammar leaves open."""

    def __init__(self, text: str) -> None:
        self.text = text

    def filter(self, tree: Tree[Token]) -> Expr:
        # fexpr yields a flat list where each item carries the join before it; an
        # adjacent group with no join reuses the last join seen (&& at first).
        # Splitting that list on || gives SQL's precedence: && binds tighter.
        first, *links = tree.children
        groups: list[list[Expr]] = [[self.item(first)]]
        join = "&&"
        for link in _trees(links):
            if len(link.children) == 2:
                join = str(link.children[0])
                node = link.children[1]
            else:
                node = link.children[0]
            if join == "||":
                groups.append([])
            groups[-1].append(self.item(node))
        terms = tuple(g[0] if len(g) == 1 else And(tuple(g)) for g in groups)
        return terms[0] if len(terms) == 1 else Or(terms)

    def item(self, node: Tree[Token] | Token) -> Expr:
        assert isinstance(node, Tree)
        if node.data == "group":
            return self.filter(_tree(node.children[0]))
        left, sign, right = node.children
        assert isinstance(sign, Token)
        if str(sign) not in _SIGNS:
            raise self.fail(f"unknown operator {_show(str(sign))}", sign)
        return Compare(self.operand(left), str(sign), self.operand(right))

    def operand(self, node: Tree[Token] | Token) -> Operand:
        assert isinstance(node, Token)
        if node.type == "STRING":
            return Literal(decode_string(str(node)[1:-1]))
        if node.type == "NUMBER":
            raw = str(node)
            return Literal(float(raw) if "." in raw else int(raw))
        word = _WORDS.get(str(node).lower())
        if word is not None:
            return word
        if str(node).startswith("@"):
            return self.macro(node)
        return self.path(node)

    def macro(self, token: Token) -> Macro:
        name = str(token)
        if name.startswith(("@request", "@collection")):
            raise self.fail(
                f"{name} is not available: this runtime has no request or collection context",
                token,
            )
        if name in ("@random", "@rowid"):
            raise self.fail(f"{name} is only meaningful in sort", token)
        if name[1:] not in MACROS:
            raise self.fail(f"unknown macro {_show(name)} (macros are case-sensitive)", token)
        return Macro(name[1:])

    def path(self, token: Token) -> Path:
        name = str(token)
        body, _, modifier = name.partition(":")
        parts = tuple(body.split("."))
        if not all(_SEGMENT.fullmatch(p) for p in parts) or not _SEGMENT.fullmatch(modifier or "x"):
            raise self.fail(f"invalid field path {_show(name)}", token)
        if not modifier:
            if name.endswith(":"):
                raise self.fail(f"invalid field path {_show(name)}", token)
            return Path(parts)
        if modifier in ("isset", "changed"):
            raise self.fail(f"the :{modifier} modifier applies only to @request fields", token)
        if modifier not in MODIFIERS:
            raise self.fail(
                f"unknown modifier {_show(':' + modifier)} in {_show(name)}; "
                f"supported: {', '.join(':' + m for m in MODIFIERS)}",
                token,
            )
        return Path(parts, modifier)

    def sort_item(self, tree: Tree[Token]) -> SortItem:
        *direction, token = tree.children
        assert isinstance(token, Token)
        descending = bool(direction) and str(direction[0]) == "-"
        name = str(token)
        if len(name) > MAX_SORT_KEY_LENGTH:
            raise self.fail(f"a sort field is longer than {MAX_SORT_KEY_LENGTH} characters", token)
        if name == "@random":
            return Random()
        if name == "@rowid":
            raise self.fail(
                "@rowid is not supported: upstream records have no insertion order", token
            )
        if name.startswith("@") or name.lower() in _WORDS:
            raise self.fail(f"sort by {_show(name)}: a sort item must name a field", token)
        return SortKey(self.path(token), descending)

    def fail(self, message: str, token: Token) -> ProtocolError:
        return _error(f"{message} at position {(token.start_pos or 0) + 1}", self.text)


def _trees(nodes: list[Tree[Token] | Token]) -> list[Tree[Token]]:
    return [_tree(n) for n in nodes]


def _tree(node: Tree[Token] | Token) -> Tree[Token]:
    assert isinstance(node, Tree)
    return node


def _show(text: str) -> str:
    return "'" + repr(text)[1:-1] + "'"


def _error(message: str, text: str) -> ProtocolError:
    return ProtocolError("invalid_filter", message, got=text)
