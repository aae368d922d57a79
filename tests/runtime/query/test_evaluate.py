"""Filter evaluation over the typed dataset: every operator, null rules, dates, refs, lists."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from runtime.protocol import ProtocolError
from runtime.query import EntityResolver, compile_filter, parse_filter

from ._dataset import CARD_RECORDS, CARDS, ENTITIES, NOW, ids, resolver

ALL = ["c1", "c2", "c3", "c4", "c5", "c6"]


@dataclass(frozen=True)
class Case:
    filter: str
    expected: list[str]
    why: str = ""


def _run(text: str) -> list[str]:
    predicate = compile_filter(parse_filter(text), resolver(), now=NOW, text=text)
    return ids([r for r in CARD_RECORDS if predicate(r)])


TEXT = [
    Case('title = "Buy milk"', ["c1"]),
    Case('title != "Buy milk"', ["c2", "c3", "c4", "c5", "c6"], "!= is null-safe"),
    Case("title = 'Buy milk'", ["c1"], "single quotes"),
    Case('title = "buy milk"', [], "= is case-sensitive"),
    Case(r'title = "Fix \"the\" bike\\path"', ["c5"], "escaped quote and backslash"),
    Case(r"""title = 'Fix "the" bike\\path'""", ["c5"], "the other quote needs no escape"),
    Case(r'title = "\u00c9clair"', ["c6"], "unicode escape"),
    Case("title = null", ["c3"], "a null text reads as blank"),
    Case('title = ""', ["c3"]),
    Case("title != null", ["c1", "c2", "c4", "c5", "c6"]),
    Case('title > "C"', ["c2", "c4", "c5", "c6"], "code point order"),
    Case('title < "B"', ["c3"], "blank text is the empty string"),
    Case('priority = "high"', ["c1", "c5"]),
    Case('priority != "high"', ["c2", "c3", "c4", "c6"]),
    Case('priority = ""', ["c3"]),
    Case("title ?= 'Buy milk'", ["c1"], "? changes nothing on a single value"),
]
LIKE = [
    Case('title ~ "milk"', ["c1", "c2"], "contains, ASCII case-insensitive"),
    Case('title !~ "milk"', ["c3", "c4", "c5", "c6"]),
    Case('title ~ "100%"', [], "an unescaped % makes a raw pattern: starts with 100"),
    Case('title ~ "Oat%"', ["c2"], "starts with"),
    Case('title ~ "%path"', ["c5"], "ends with"),
    Case('title ~ "mum_"', ["c4"], "without %, _ is a literal"),
    Case('title ~ "%m_m%"', ["c4"], "with %, _ is one character"),
    Case('title ~ "éclair"', [], "case folding is ASCII only"),
    Case('title ~ "ÉCLAIR"', ["c6"]),
    Case('title ~ ""', ALL, "the empty pattern matches all text"),
    Case('title !~ ""', []),
    Case("title ~ null", [], "a null pattern matches nothing"),
    Case("title !~ null", []),
    Case(r"title ~ 'bike\\path'", ["c5"], "a backslash is escaped before wrapping"),
    Case("'Buy milk today' ~ title", ["c1", "c3"], "a literal on the left contains the field"),
    Case("points ~ 5", ["c2"], "numbers are searched as text"),
    Case('created ~ "2026-07-30"', ["c1", "c5"], "datetimes are searched as stored"),
    Case('due ~ "-07-"', ["c1", "c4", "c5", "c6"]),
]
NUMBERS = [
    Case("points > 3", ["c2", "c6"]),
    Case("points >= 3", ["c1", "c2", "c6"]),
    Case("points < 0", ["c5"]),
    Case("points <= 0", ["c4", "c5"]),
    Case("points = 0", ["c4"], "0 is not blank"),
    Case("points = null", ["c3"]),
    Case("points != null", ["c1", "c2", "c4", "c5", "c6"]),
    Case('points > "5"', ["c2", "c6"], "a numeric string compares as a number"),
    Case("points = 10.5", ["c2"]),
    Case("points > -2.5", ["c1", "c2", "c4", "c5", "c6"]),
    Case("points > -.5", ["c1", "c2", "c4", "c6"]),
    Case("points ?> 3", ["c2", "c6"]),
]
BOOLEANS = [
    Case("done = true", ["c2", "c5"]),
    Case("done = false", ["c1", "c3", "c4", "c6"], "false is not blank"),
    Case("done = TRUE", ["c2", "c5"], "true/false/null ignore case"),
    Case("done != true", ["c1", "c3", "c4", "c6"]),
    Case('done = "true"', ["c2", "c5"], "declared boolean: the text true is true"),
    Case("done = null", []),
]
LOGIC = [
    Case('priority = "low" || priority = "high" && done = false', ["c1", "c2"], "&& first"),
    Case('(priority = "low" || priority = "high") && done = false', ["c1"]),
    Case('((points > 1 && (done = true || title ~ "milk")))', ["c1", "c2"]),
    Case("(done = false)(points > 50)", ["c6"], "adjacent groups join with &&"),
    Case('points > 50 || done = true (priority = "low")', ["c2", "c5", "c6"], "last join"),
    Case("done = false // open ones\n&& points > 1", ["c1", "c6"], "comments"),
    Case("1 = 1", ALL),
    Case("1 = 2", []),
    Case("null = ''", ALL, "both blank"),
    Case("'' != null", []),
]
DATES = [
    Case('created > "2026-07-30"', ["c1", "c2", "c5"], "a date is its midnight, UTC"),
    Case('created >= "2026-07-30 09:15:00.000Z"', ["c1", "c5"], "PocketBase's format"),
    Case('created < "2026-07-30T01:30:01Z"', ["c2", "c4", "c6"], "zones are honoured"),
    Case('created = "2026-07-30T10:15:00+01:00"', ["c1"], "an instant, not text"),
    Case("created >= @todayStart && created <= @todayEnd", ["c1", "c2", "c5"]),
    Case("created < @now", ["c1", "c2", "c4", "c6"], "a blank date is never ordered"),
    Case("created <= @now", ["c1", "c2", "c4", "c5", "c6"]),
    Case("created > @yesterday", ["c1", "c2", "c5"], "now minus 24 hours"),
    Case("created = null", ["c3"]),
    Case('created != ""', ["c1", "c2", "c4", "c5", "c6"]),
    Case("created >= @yearStart", ["c1", "c2", "c5", "c6"]),
    Case("created >= @monthStart && created <= @monthEnd", ["c1", "c2", "c5", "c6"]),
    Case('due = "2026-07-30"', ["c1"]),
    Case("due >= @todayStart", ["c1", "c2", "c5"], "day keys compare as dates"),
    Case("due < @now", ["c4", "c6"], "today is not before today"),
    Case("due <= @tomorrow", ["c1", "c4", "c5", "c6"]),
    Case('due > "2026-07-30T23:00:00-02:00"', ["c2"], "a datetime counts by its UTC date"),
    Case("due = null", ["c3"]),
]
MACROS = [
    Case("points < @hour", ["c1", "c2", "c4", "c5"], "@hour is 12"),
    Case("@weekday = 4", ALL, "Thursday; Sunday is 0"),
    Case("@year = 2026 && @month = 7 && @day = 30", ALL),
    Case("points = @minute", ["c4"]),
    Case('@now > "2026-07-30 11:59:59.999Z"', ALL),
]
REFS = [
    Case('owner = "u1"', ["c1", "c5"]),
    Case('owner.id = "u1"', ["c1", "c5"], "a ref's id needs no lookup"),
    Case('owner.name = "Ann"', ["c1", "c5"]),
    Case('owner.name = ""', ["c3", "c4", "c6"], "no owner, a dangling owner, a blank name"),
    Case('owner.name != ""', ["c1", "c2", "c5"]),
    Case('owner.manager.name = "Ann"', ["c2"], "two hops"),
    Case('owner.name ~ "b"', ["c2"]),
    Case('owner.name !~ "b"', ["c1", "c5", "c6"], "!~ through a missing ref is false"),
    Case('owner = ""', ["c3"]),
    Case('owner.id = ""', ["c3"]),
    Case("owner.name = title", ["c3"], "two fields: both blank are equal"),
]
LISTS = [
    Case('tags.name ?= "a"', ["c1", "c2", "c4", "c5", "c6"], "any element"),
    Case('tags.name = "a"', ["c2", "c5"], "every element, and there is one"),
    Case('tags.name != "a"', ["c3"], "no element equal, including no elements"),
    Case('tags.name ?!= "a"', ["c1", "c3", "c4", "c6"], "a dangling tag reads as null"),
    Case('tags.name !~ "a"', [], "no tags: NOT LIKE on null is false"),
    Case('tags.name ?= "a" && tags.name ?= "b"', [], "one shared join row"),
    Case('tags.name ?= "a" && tags.color ?= "blue"', ["c2", "c6"], "one tag both a and blue"),
    Case('tags.name ?= "a" && tags.color ?= "red"', ["c1", "c4", "c5"]),
    Case('tags.color = "blue"', ["c2", "c6"]),
    Case("tags:length = 0", ["c3"]),
    Case("tags:length > 1", ["c1", "c4", "c6"]),
    Case('tags:each ?= "t9"', ["c4"]),
    Case('tags ?= "t1"', ["c1", "c5"], "a bare list compares its elements"),
    Case('tags.id ?= "t9"', [], "a dangling id joins to nothing"),
    Case('tags ~ "t"', ["c1", "c2", "c4", "c5", "c6"], "every element contains t"),
    Case('labels ?= "work"', ["c4", "c5"]),
    Case('labels = "home"', ["c2", "c6"]),
    Case('labels != "home"', ["c3", "c4"]),
    Case('labels ?= "home" && labels ?= "work"', ["c5"], "bare lists are not joined"),
    Case('labels:each ?= "home" && labels:each ?= "work"', [], ":each is one join"),
    Case("labels:length >= 2", ["c1", "c5"]),
    Case('tags.name ?= "b" || labels ?= "work"', ["c1", "c4", "c5", "c6"]),
    Case('labels:lower ?= "home"', ["c1", "c2", "c5", "c6"]),
]
MODIFIERS = [
    Case('title:lower = "buy milk"', ["c1"]),
    Case('title:lower = "oat milk 100%"', ["c2"]),
    Case('title:lower = "éclair"', [], "ASCII-only lowering"),
    Case('priority:each ?= "high"', ["c1", "c5"]),
    Case("priority:length = 0", ["c3"]),
]
JSON = [
    Case("meta.size = 2", ["c1"], "no coercion inside json"),
    Case('meta.size = "2"', ["c2"]),
    Case("meta.size > 1", ["c1", "c2", "c4", "c5"], "text sorts after numbers, as in SQLite"),
    Case("meta.size = null", ["c3", "c6"], "missing and null"),
    Case("meta.size != null", ["c1", "c2", "c4", "c5"]),
    Case('meta.items.0.sku = "A1"', ["c1"], "array index"),
    Case("meta.flag = true", ["c4"]),
    Case('meta ~ "items"', ["c1"], "objects are searched as compact JSON"),
]
CASES = TEXT + LIKE + NUMBERS + BOOLEANS + LOGIC + DATES + MACROS + REFS + LISTS + MODIFIERS + JSON


@pytest.mark.parametrize("case", CASES, ids=[c.filter for c in CASES])
def test_filter_selects_the_expected_records(case: Case) -> None:
    assert _run(case.filter) == case.expected, case.why


@dataclass(frozen=True)
class Refusal:
    filter: str
    message: str


REFUSALS = [
    Refusal("nope = 1", "unknown field 'nope' on cards; declared: id, title, priority, done"),
    Refusal('secret = "x"', "unknown field 'secret'"),
    Refusal("owner.nope = 1", "unknown field 'nope' on users (in 'owner.nope')"),
    Refusal("comments_via_card.id = 1", "Back-relations (x_via_y) are not supported"),
    Refusal('scan = ""', "'scan' is a binary field"),
    Refusal('points = "abc"', "\"abc\" is not a number (field 'points')"),
    Refusal("done = 1", "1 is not true or false (field 'done')"),
    Refusal('due > "31-12-2026"', "is not a day key"),
    Refusal('created > "yesterday"', "is not a date or datetime"),
    Refusal("created > @hour", "12 is not a date or datetime"),
    Refusal("title.x = 1", "'title' is a string field; only ref and json fields can be followed"),
    Refusal('points:lower = "x"', ":lower needs a text field"),
    Refusal("title:length = 1", ":length needs a list, enum or ref field"),
    Refusal("points > meta.size", "cannot compare 'points' (number) with 'meta.size' (json)"),
    Refusal(
        "owner.manager.manager.manager.manager.manager.manager.name = 1",
        "follows more than 6 references",
    ),
]


@pytest.mark.parametrize("case", REFUSALS, ids=[c.filter for c in REFUSALS])
def test_filter_is_refused_with_invalid_filter(case: Refusal) -> None:
    with pytest.raises(ProtocolError) as caught:
        _run(case.filter)
    assert caught.value.code == "invalid_filter"
    assert case.message in caught.value.message
    assert caught.value.extra == {"got": case.filter}


def test_six_hops_are_allowed() -> None:
    assert _run("owner.manager.manager.manager.manager.manager.name = 'Ann'") == []


def test_refs_need_a_lookup() -> None:
    bare = EntityResolver(CARDS, ENTITIES)
    with pytest.raises(ProtocolError, match="needs related users records"):
        compile_filter(parse_filter('owner.name = "Ann"'), bare)
    ok = compile_filter(parse_filter('owner.id = "u1" && tags.id ?= "t9"'), bare)
    assert ids([r for r in CARD_RECORDS if ok(r)]) == []
    has_t9 = compile_filter(parse_filter('tags.id ?= "t9"'), bare)
    assert ids([r for r in CARD_RECORDS if has_t9(r)]) == ["c4"]


def test_refs_to_unmapped_entities_are_refused() -> None:
    with pytest.raises(ProtocolError, match="'owner' refers to 'users', which is not mapped"):
        compile_filter(parse_filter('owner.name = "Ann"'), EntityResolver(CARDS))


def test_got_defaults_to_the_expression_printed_back() -> None:
    with pytest.raises(ProtocolError) as caught:
        compile_filter(parse_filter("nope  =  'x'"), resolver(), now=NOW)
    assert caught.value.extra == {"got": 'nope = "x"'}


def test_no_filter_keeps_everything() -> None:
    assert compile_filter(None, resolver())(CARD_RECORDS[0]) is True


def test_macros_see_the_instant_given_at_compile_time() -> None:
    expr = parse_filter("created <= @now")
    early = compile_filter(expr, resolver(), now=NOW.replace(hour=10))
    assert ids([r for r in CARD_RECORDS if early(r)]) == ["c1", "c2", "c4", "c6"]


def test_a_filter_compiles_once_and_is_reused() -> None:
    predicate = compile_filter(parse_filter('title ~ "milk"'), resolver(), now=NOW)
    assert [predicate(r) for r in CARD_RECORDS] == [predicate(r) for r in CARD_RECORDS]
