"""The picture of a fit (`thrift_fp.thrift.fit_report_html`): the bar adds up to the window and
matches what the fit kept, every shed item is listed, and hostile text never becomes markup."""

from __future__ import annotations

import math
import random
from html.parser import HTMLParser

import pytest
from typing import TypeVar

from hypothesis import given, settings, strategies as st

from properties.hostile_strategies import MARKUP, any_text, examples
from properties.thrift_model import ORDER_IDS, ORDERS, Case, bucket_tokens, cases
from thrift_fp.thrift import Bucket, BucketTrace, RefillTrace, ShedOrder, ThriftTrace
from thrift_fp.thrift import ReportPassage, ReportShed, fit_report_bar, fit_report_html, report_shed

_T = TypeVar("_T")

each_order = pytest.mark.parametrize("order", ORDERS, ids=ORDER_IDS)

# Every tag and attribute the report itself writes; anything else came from the content.
ALLOWED_TAGS = frozenset({
    "html", "head", "meta", "title", "style", "body", "div", "h1", "h2", "p", "span", "ul", "li",
    "table", "thead", "tbody", "tr", "th", "td", "dl", "dt", "dd",
})
ALLOWED_ATTRIBUTES = frozenset({
    "lang", "charset", "http-equiv", "content", "class", "role", "aria-label", "style", "title",
    "data-window", "data-kind", "data-label", "data-tokens", "data-beyond", "data-table",
})
BUCKETS: tuple[Bucket, ...] = (
    "retrievables-size-unknown", "thoughts", "tools", "image", "tool-calls", "retrievables", "memories",
    "messages", "thoughts-shed", "tools-shed",
)


class _Page(HTMLParser):
    """Every start tag with its attributes, the text, and the cells of each table by name."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []
        self.rows: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._body = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        if tag == "table":
            self._table = dict(attrs).get("data-table") or "?"
            self.rows[self._table] = []
        elif tag == "tbody":
            self._body = True
        elif tag == "tr" and self._table is not None and self._body:
            self.rows[self._table].append([])
        elif tag == "td":
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None and self._table is not None:
            self.rows[self._table][-1].append("".join(self._cell))
            self._cell = None
        elif tag == "table":
            self._table = None
            self._body = False

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def parsed(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    parser.close()
    return parser


def shown(text: str) -> str:
    """What the report shows for ``text``: lone surrogates cannot be encoded, so they become '?'."""
    return text.encode("utf-8", "replace").decode("utf-8")


def window_tokens(trace: ThriftTrace) -> int | float:
    return sum(segment.tokens for segment in fit_report_bar(trace) if not segment.beyond)


@each_order
@settings(max_examples=examples(60))
@given(cases(), st.booleans())
def test_the_bar_is_the_window_split_as_the_fit_kept_it(order: ShedOrder, case: Case, refill: bool) -> None:
    case = case.under(order, refill=refill)
    fitted = case.fit()
    trace = fitted.trace
    bar = fit_report_bar(trace)
    assert window_tokens(trace) == trace.context_window
    # Each bucket's kept segments hold exactly what the fitted working set holds, measured afresh.
    oracle = bucket_tokens(fitted.working_set, case.options.encoding)
    kept: dict[str, int | float] = {}
    for segment in bar:
        if segment.kind == "kept":
            kept[segment.label] = kept.get(segment.label, 0) + segment.tokens
    expected = {("protected" if name == "fixed" else name): tokens for name, tokens in oracle.items() if tokens}
    assert kept == expected
    shed = sum(segment.tokens for segment in bar if segment.kind == "shed")
    assert shed == trace.total_before - trace.total_after
    assert all(segment.beyond for segment in bar if segment.kind == "shed")
    # Every shed id is listed once, and nothing kept is listed as shed.
    listed = [item.id for item in report_shed(trace)]
    back = {key for step in trace.refilled for key in step.ids}
    removed = [key for step in trace.buckets for key in step.ids if key not in back]
    assert sorted(listed) == sorted(removed)
    rows = parsed(fit_report_html(trace)).rows.get("shed", [])
    assert sorted(row[0] for row in rows) == sorted(listed)


numbers = st.integers(0, 10**7)


def _quiet(draw: st.DrawFn, strategy: st.SearchStrategy[_T]) -> _T:
    """``draw(strategy)`` with the global `random` put back: beartype samples one element of each
    checked tuple with it, and Hypothesis forbids strategies from moving that state."""
    state = random.getstate()
    try:
        return draw(strategy)
    finally:
        random.setstate(state)


@st.composite
def traces(draw: st.DrawFn) -> ThriftTrace:
    """Any trace a caller could build: hostile notes and ids, numbers that need not agree."""
    state = random.getstate()
    try:
        return _trace(draw)
    finally:
        random.setstate(state)


def _trace(draw: st.DrawFn) -> ThriftTrace:
    window = draw(st.one_of(numbers, st.floats(0, 1e7, allow_nan=False)))
    reserve = draw(st.integers(0, math.ceil(window)))
    text = st.one_of(st.sampled_from(MARKUP), any_text)
    steps = draw(st.lists(st.builds(
        BucketTrace, st.sampled_from(BUCKETS), numbers, numbers, numbers, numbers, text,
        st.lists(text, max_size=4).map(tuple),
    ), max_size=12))
    refills = draw(st.lists(st.builds(
        RefillTrace, st.sampled_from(("retrievables", "memories")), numbers, numbers, numbers, numbers,
        st.lists(text, max_size=3).map(tuple),
    ), max_size=2))
    return ThriftTrace(
        window, reserve, max(0, math.floor(window - reserve)), draw(numbers), draw(numbers), draw(st.booleans()),
        draw(st.booleans()), tuple(steps), draw(text), tuple(refills),
    )


hostile = st.one_of(st.sampled_from(MARKUP + ('<script>alert(1)</script>', '"><img src=x onerror=alert(1)>',
                                              "' onmouseover='x", "<style>*{}</style>", "</td></tr></table><b>")),
                    any_text)


@st.composite
def passages(draw: st.DrawFn) -> list[ReportPassage]:
    return _quiet(draw, st.lists(st.builds(
        ReportPassage, hostile, st.none() | hostile, st.none() | hostile, st.lists(hostile, max_size=3).map(tuple),
        st.none() | st.floats(allow_nan=True), st.none() | st.integers(0, 10**6), hostile,
    ), max_size=5))


@st.composite
def sheds(draw: st.DrawFn) -> list[ReportShed]:
    return _quiet(draw, st.lists(st.builds(ReportShed, hostile, hostile, hostile, st.none() | st.integers(0, 10**9)),
                                 max_size=6))


@settings(max_examples=examples(150))
@given(traces(), passages(), hostile)
def test_hostile_text_never_becomes_markup_and_the_bar_adds_up(
    trace: ThriftTrace, kept: list[ReportPassage], title: str
) -> None:
    bar = fit_report_bar(trace)
    assert math.isclose(window_tokens(trace), trace.context_window, rel_tol=1e-9, abs_tol=1e-6)
    assert all(segment.tokens > 0 for segment in bar)
    page = fit_report_html(trace, kept, title=title)
    page.encode("utf-8")  # always writable as UTF-8, whatever the content
    doc = parsed(page)
    assert {tag for tag, _ in doc.tags} <= ALLOWED_TAGS
    assert {name for _, attrs in doc.tags for name, _ in attrs} <= ALLOWED_ATTRIBUTES
    assert sum(1 for tag, _ in doc.tags if tag == "style") == 1
    # The hostile text is all there, as text.
    text = "".join(doc.text)
    for passage in kept:
        for value in (passage.id, passage.tier, passage.source, passage.note, *passage.heading_path):
            if value:
                assert shown(value) in text
    gone = report_shed(trace)
    assert [row[0] for row in doc.rows.get("shed", [])] == [shown(item.id) for item in gone]
    assert [row[2] for row in doc.rows.get("shed", [])] == [shown(item.reason) for item in gone]
    assert shown(title) in text


@settings(max_examples=examples(100))
@given(sheds())
def test_a_callers_shed_items_are_listed_as_given(shed: list[ReportShed]) -> None:
    trace = ThriftTrace(100, 35, 65, 0, 0, True, False, ())
    rows = parsed(fit_report_html(trace, (), shed)).rows.get("shed", [])
    assert [(row[0], row[1], row[2]) for row in rows] == [
        (shown(item.id), shown(item.bucket), shown(item.reason)) for item in shed
    ]
