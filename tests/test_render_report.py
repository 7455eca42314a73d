"""The picture of a fit: what the page shows for each kind of result, and that it stays inert
(one self-contained page: no script, no external resource, a policy that forbids loading any)."""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from thrift_fp.cli import run
from thrift_fp.records import Retrievable
from thrift_fp.render import KeyedNonce, fit_and_render
from thrift_fp.sources import assemble, index_paths
from thrift_fp.thrift import (
    BarSegment,
    BucketTrace,
    Message,
    RefillTrace,
    ReportPassage,
    ReportShed,
    ThriftOptions,
    ThriftTrace,
    WorkingSet,
    fit_report_bar,
    fit_report_html,
    report_passages,
    report_shed,
    subtract_to_fit,
)

AT = datetime(2026, 12, 1, tzinfo=UTC)


def _records(n: int) -> tuple[Retrievable, ...]:
    return tuple(
        Retrievable(f"kb-{i}", "Refunds take thirty days. " * (10 * (i + 1)), "third-party-public", AT, AT,
                    source=f"kb/{i}.md", score=1 - i / 10)
        for i in range(n)
    )


def test_a_fitted_working_set_shows_its_buckets_kept_and_shed() -> None:
    messages = tuple(Message(f"m{i}", "an older question about refunds " * 20, AT, role="user") for i in range(4))
    ws = WorkingSet(system_prompt="Be brief.", messages=messages, retrievables=_records(3))
    fitted = subtract_to_fit(ws, 400).unwrap()
    page = fitted._repr_html_()
    bar = fit_report_bar(fitted.trace)
    assert sum(s.tokens for s in bar if not s.beyond) == 400
    assert {(s.kind, s.label) for s in bar} >= {("kept", "protected"), ("reserve", "reserve"), ("shed", "messages"), ("shed", "retrievables")}
    for item in report_shed(fitted.trace):
        assert f"<td class=\"tfp-id\">{item.id}</td>" in page
    for record in fitted.working_set.retrievables:
        assert f"<td class=\"tfp-id\">{getattr(record, 'id')}</td>" in page


def test_a_fit_and_render_lists_each_survivors_tier_source_and_exact_cost() -> None:
    done = fit_and_render(WorkingSet(retrievables=_records(3)), 500, nonce=KeyedNonce(bytes(32))).unwrap()
    page = done._repr_html_()
    for record in done.records:
        row = f"<td class=\"tfp-id\">{record.id}</td><td class=\"tfp-nowrap\">third-party-public</td><td>{record.source}</td>"
        assert row in page
        assert f"<td class=\"tfp-num\">{done.costs[record.id]:,}</td>" in page
    shed = [item.id for item in report_shed(done.trace)]
    assert shed and not set(shed) & {record.id for record in done.records}


def test_an_assembled_answer_shows_heading_paths(tmp_path: Path) -> None:
    (tmp_path / "guide.md").write_text("# Refunds\n\n## Timing\n\nRefunds take thirty days after the return.\n")
    index_paths(tmp_path / "i.db", [tmp_path]).unwrap()
    page = assemble("how long do refunds take", database=tmp_path / "i.db").unwrap()._repr_html_()
    assert "<td>Refunds › Timing</td>" in page


def test_a_refused_fit_draws_the_floor_past_the_windows_edge() -> None:
    trace = ThriftTrace(100, 35, 65, 120, 90, False, True, (BucketTrace("messages", 50, 20, 3, 1, "oldest", ("a", "b")),))
    bar = fit_report_bar(trace)
    assert [(s.kind, s.label, s.tokens, s.beyond) for s in bar] == [
        ("kept", "protected", 70, False),
        ("kept", "messages", 20, False),
        ("reserve", "reserve", 10, False),
        ("reserve", "reserve", 25, True),
        ("shed", "messages", 30, True),
    ]
    assert "Refused: the protected floor alone exceeds the budget." in fit_report_html(trace)


def test_each_segment_says_whether_it_lies_in_or_beyond_the_window() -> None:
    trace = ThriftTrace(100, 35, 65, 120, 90, False, True, (BucketTrace("messages", 50, 20, 3, 1, "oldest", ("a", "b")),))
    titles = re.findall(r'class="tfp-seg[^"]*"[^>]* title="([^"]*)"', fit_report_html(trace))
    assert titles == [
        "protected: 70 tokens in the window",
        "messages: 20 tokens in the window",
        "reserve: 10 tokens in the window",
        "reserve: 25 tokens beyond the window",
        "messages: 30 tokens beyond the window",
    ]


def _tail(page: str) -> str:
    found = re.findall(r'<span class="tfp-tail" style="([^"]*)">([^<]*)</span>', page)
    assert len(found) == 1
    style, text = found[0]
    return f"{style} {text}"


def test_what_lies_beyond_is_labelled_after_the_edge_or_below_it_when_there_is_no_room() -> None:
    # 55 of 155 bar tokens lie beyond: the edge is at 64.5%, leaving room for the label after it.
    wide = ThriftTrace(100, 35, 65, 120, 90, False, True, (BucketTrace("messages", 50, 20, 3, 1, "oldest", ("a", "b")),))
    assert _tail(fit_report_html(wide)) == "left:64.5161%;padding-left:6px +55 beyond"
    # 100 of 1100: the edge is at 90.9%, under 15% of the bar is left, so the label moves below.
    narrow = ThriftTrace(1000, 350, 650, 700, 600, True, False,
                         (BucketTrace("retrievables", 500, 400, 5, 4, "lowest score first", ("a",)),))
    assert _tail(fit_report_html(narrow)) == "right:0;top:16px +100 beyond"


def test_the_trace_numbers_spell_the_verdicts_in_lowercase_and_an_empty_kept_table_says_so() -> None:
    trace = ThriftTrace(100, 35, 65, 120, 90, False, True, (BucketTrace("messages", 50, 20, 3, 1, "oldest", ("a", "b")),))
    page = fit_report_html(trace)
    assert "<div><dt>fits</dt><dd>false</dd></div><div><dt>refused</dt><dd>true</dd></div>" in page
    assert '<p class="tfp-empty" data-table="kept">No passages were kept.</p>' in page
    fitted = ThriftTrace(1000, 350, 650, 0, 0, True, False, ())
    assert "<div><dt>fits</dt><dd>true</dd></div><div><dt>refused</dt><dd>false</dd></div>" in fit_report_html(fitted)


def test_refill_brings_items_back_off_the_shed_list() -> None:
    trace = ThriftTrace(
        1000, 0, 1000, 900, 850, True, False,
        (BucketTrace("retrievables", 900, 700, 5, 3, "lowest score first", ("r4", "r5")),),
        refilled=(RefillTrace("retrievables", 700, 850, 3, 4, ("r5",)),),
    )
    assert [item.id for item in report_shed(trace)] == ["r4"]
    assert BarSegment("shed", "retrievables", 50, True) in fit_report_bar(trace)
    assert BarSegment("kept", "retrievables", 850, False) in fit_report_bar(trace)


def test_a_fractional_window_still_adds_up() -> None:
    trace = ThriftTrace(100.5, 36, 64, 10, 10, True, False, ())
    assert sum(s.tokens for s in fit_report_bar(trace) if not s.beyond) == pytest.approx(100.5)


def test_the_page_loads_nothing_and_runs_nothing() -> None:
    page = fit_report_html(ThriftTrace(10, 4, 6, 0, 0, True, False, ()), [ReportPassage("<script>x</script>")])
    assert "default-src 'none'" in page
    lowered = page.lower()
    for needle in ("<script", "<link", "<img", "<iframe", "src=", "href=", "url(", "@import", "http:", "https:"):
        assert needle not in lowered, needle


def test_importing_thrift_does_not_load_the_report() -> None:
    code = "import sys, thrift_fp.thrift; print('thrift_fp.render' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_ask_writes_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.md").write_text("# Budget\n\nThe budget is the window minus the reserve.")
    index_paths(tmp_path / "i.db", [tmp_path]).unwrap()
    out = tmp_path / "fit.html"
    assert run(["ask", "what is the budget", "--db", str(tmp_path / "i.db"), "--report", str(out)]) == 0
    assert "The budget is the window minus the reserve." in capsys.readouterr().out
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<td>Budget</td>" in page


def test_ask_names_a_report_path_it_cannot_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.md").write_text("# Budget\n\nThe budget is the window minus the reserve.")
    index_paths(tmp_path / "i.db", [tmp_path]).unwrap()
    missing = tmp_path / "no-such-folder" / "fit.html"
    assert run(["ask", "budget", "--db", str(tmp_path / "i.db"), "--report", str(missing)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"thrift-fp: error: --report '{missing}': cannot be written") and "No such file" in err


# --- The whole page, byte for byte -------------------------------------------------------------
#
# Each fixed fit below is drawn and compared with its committed page in tests/golden/. A change to
# anything the page shows (a colour, a word, a width, an attribute) fails here with a diff. To
# change the page on purpose, rewrite the files and review the diff before committing them:
#
#     THRIFT_FP_REGOLD=1 python -m pytest tests/test_render_report.py -k golden
#
# A missing file fails (it is never written silently); the rewrite run reports each file it wrote
# as skipped, so it cannot pass unnoticed either.
#
# Every page carries the same stylesheet, so it is pinned once, in golden/fit_report_style.golden
# (the bytes between <style> and </style>), and each golden page holds a marker in its place: the
# drawn page is still compared whole, byte for byte, with its golden page after the marker is
# replaced by that stylesheet, and a change of style is one file to review rather than nine.

GOLDEN = Path(__file__).parent / "golden"
STYLESHEET = GOLDEN / "fit_report_style.golden"
STYLE_MARKER = "/* the stylesheet pinned in tests/golden/fit_report_style.golden */"
_STYLE = re.compile(r"(?<=<style>).*?(?=</style>)", re.DOTALL)


def _every_bucket() -> str:
    # Every pass kind, refill into both refillable buckets, a protected floor and free budget; the
    # kept rows come from records of mixed shapes through `report_passages`.
    trace = ThriftTrace(
        4096, 1024, 3072, 5200, 2900, True, False,
        (
            BucketTrace("retrievables-size-unknown", 0, 0, 2, 1, "size unknown: dropped", ("blob-1",)),
            BucketTrace("thoughts", 300, 120, 3, 1, "thoughts stripped: earlier turns", ("t1", "t2")),
            BucketTrace("tools", 400, 250, 4, 2, "tool shortlist", ("search", "fetch")),
            BucketTrace("image", 765, 0, 1, 0, "over budget: image dropped", ("diagram.png",)),
            BucketTrace("tool-calls", 500, 300, 5, 3, "oldest results first", ("call-1", "call-2")),
            BucketTrace("retrievables", 1800, 900, 6, 3, "lowest score first", ("kb-4", "kb-5", "kb-6")),
            BucketTrace("memories", 400, 200, 4, 2, "oldest first", ("mem-3", "mem-4")),
            BucketTrace("messages", 900, 600, 9, 6, "oldest first", ("m1", "m2", "m3")),
            BucketTrace("thoughts-shed", 120, 60, 1, 0, "this turn's thoughts", ("t3",)),
            BucketTrace("tools-shed", 250, 200, 2, 1, "tools last", ("browse",)),
        ),
        shed_order="agent",
        refilled=(
            RefillTrace("retrievables", 900, 1000, 3, 4, ("kb-5",)),
            RefillTrace("memories", 200, 260, 2, 3, ("mem-4",)),
        ),
    )
    records = [
        SimpleNamespace(id="kb-1", trust_tier="first-party", source="docs/refunds.md", score=0.91234),
        SimpleNamespace(id="kb-2", trust_tier="third-party-public", source="kb/2.md", score=2),
        SimpleNamespace(id="kb-5", trust_tier=3, source=None, score=True),
        SimpleNamespace(id=7, trust_tier="first-party", source=b"kb/7.md", score=float("nan")),
        "an anonymous record",
        SimpleNamespace(id="kb-9", score=float("inf")),
    ]
    kept = report_passages(
        records,
        costs={"kb-1": 1234, "kb-2": 56, "kb-5": 100, "#3": 7},
        heading_paths={"kb-1": ("Refunds", "Timing"), "#4": ("Loose",)},
        refilled=("kb-5", "#4"),
    )
    return fit_report_html(trace, kept, report_shed(trace, {"m1": 100, "kb-4": 300, "t3": 60}))


def _refused() -> str:
    # The protected floor alone overruns the window: reserve is cut at the edge, the edge sits past
    # the middle (its label ends there) and the "+N beyond" label has room after it.
    trace = ThriftTrace(100, 35, 65, 120, 90, False, True, (BucketTrace("messages", 50, 20, 3, 1, "oldest", ("a", "b")),))
    return fit_report_html(trace)


def _nothing_kept() -> str:
    # Everything offered was shed: no floor, no kept passages; under 15% of the bar lies beyond the
    # edge, so its label goes below the bar.
    trace = ThriftTrace(1000, 300, 700, 100, 0, True, False,
                        (BucketTrace("messages", 100, 0, 2, 0, "oldest first", ("m1", "m2")),))
    return fit_report_html(trace, ())


def _hostile() -> str:
    # A fractional window that does not fit, most of the bar beyond the edge (the edge label starts
    # at the edge), and caller text full of markup, quotes, a lone surrogate and a long heading.
    trace = ThriftTrace(
        100.5, 10, 90, 400, 50, False, False,
        (BucketTrace("messages", 400, 50, 8, 1, '<script>alert("x")</script> & \'q\'', ('"><img src=x>', "a&b")),),
        shed_order="<oldest & 'first'>",
    )
    kept = [
        ReportPassage('<b id="x">', tier="<tier>", source="s&'t", heading_path=("A<B", "C&D", "long " * 40),
                      score=0.5, tokens=12, note='"quoted"'),
    ]
    shed = [ReportShed("<i>", "<bucket>", "because & why", 3), ReportShed("plain", "messages", "\ud800", None)]
    return fit_report_html(trace, kept, shed, title='Fit <"A&B"> \'q\' \ud800')


def _empty() -> str:
    # No pass ran and nothing was offered: every table says it is empty.
    return fit_report_html(ThriftTrace(10, 4, 6, 0, 0, True, False, ()))


def _huge() -> str:
    # A window too long to print and segments far too narrow to see: numbers past 200 bits are
    # described, those of exactly 200 bits (the reserve, a passage) still printed; widths round to 0.
    window = 2**300
    trace = ThriftTrace(window, 2**199, window - 2**199, 3, 2, True, False,
                        (BucketTrace("memories", 3, 1, 3, 1, "oldest first", ("k1", "k2")),))
    return fit_report_html(trace, [ReportPassage("k3", tokens=2**210, score=1.0), ReportPassage("k4", tokens=2**199)])


def _zero_window() -> str:
    # A window of 0 with nothing in it: an empty bar, the edge label at the end of it, no tail.
    return fit_report_html(ThriftTrace(0, 0, 0, 0, 0, True, False, ()))


def _floor_beyond_window() -> str:
    # The protected floor alone is longer than the window: the kept messages and the whole reserve
    # lie past the edge, none of them inside it.
    trace = ThriftTrace(100, 35, 65, 160, 130, False, True, (BucketTrace("messages", 50, 20, 3, 1, "oldest", ("a", "b")),))
    return fit_report_html(trace)


def _refused_by_a_token() -> str:
    # The reserve overruns the window's edge by exactly one token.
    trace = ThriftTrace(100, 21, 79, 90, 80, False, True, (BucketTrace("messages", 30, 20, 3, 2, "oldest", ("a",)),))
    return fit_report_html(trace)


GOLDEN_PAGES = {
    "every_bucket": _every_bucket,
    "refused": _refused,
    "nothing_kept": _nothing_kept,
    "hostile": _hostile,
    "empty": _empty,
    "huge": _huge,
    "zero_window": _zero_window,
    "floor_beyond_window": _floor_beyond_window,
    "refused_by_a_token": _refused_by_a_token,
}


def _readable(page: str) -> list[str]:
    """The page cut after each tag, so a diff shows the element that changed."""
    return page.replace(">", ">\n").splitlines()


@pytest.mark.parametrize("name", sorted(GOLDEN_PAGES))
def test_golden_the_page_is_drawn_exactly_as_committed(name: str) -> None:
    page = GOLDEN_PAGES[name]()
    path = GOLDEN / f"fit_report_{name}.html"
    if os.environ.get("THRIFT_FP_REGOLD") == "1":
        style = _STYLE.search(page)
        assert style is not None and page.count("<style>") == 1, "the page has no single stylesheet to pin"
        path.parent.mkdir(exist_ok=True)
        STYLESHEET.write_bytes(style.group().encode("utf-8"))
        path.write_bytes((page[: style.start()] + STYLE_MARKER + page[style.end() :]).encode("utf-8"))
        pytest.skip(f"rewrote {path} and {STYLESHEET}: review the diff before committing them")
    for needed in (path, STYLESHEET):
        if not needed.exists():
            pytest.fail(f"{needed} is missing; write it deliberately with THRIFT_FP_REGOLD=1 (see above)")
    pinned = path.read_bytes().decode("utf-8")
    if pinned.count(STYLE_MARKER) != 1:
        pytest.fail(f"{path} must hold the stylesheet marker exactly once; rewrite it with THRIFT_FP_REGOLD=1")
    expected = pinned.replace(STYLE_MARKER, STYLESHEET.read_bytes().decode("utf-8"))
    if page != expected:
        diff = difflib.unified_diff(_readable(expected), _readable(page), str(path), "drawn now", lineterm="", n=2)
        pytest.fail(
            "the page differs from its golden file (if on purpose, rewrite it with THRIFT_FP_REGOLD=1 and review"
            " the diff):\n" + "\n".join(list(diff)[:60])
        )


def _shed_only(window: int, shed: int) -> ThriftTrace:
    """A fit with no reserve that shed ``shed`` message tokens and kept nothing: the bar is the free
    window and then the shed tokens, so the edge falls at ``window / (window + shed)``."""
    return ThriftTrace(window, 0, window, shed, 0, True, False, (BucketTrace("messages", shed, 0, 1, 0, "oldest", ("m",)),))


def _edge_label(page: str) -> str:
    found: list[str] = re.findall(r'<span class="tfp-edge-label" style="([^"]*)">', page)
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize(("window", "shed", "anchor", "tail"), [
    # The edge exactly in the middle: its label starts there, so what lies beyond goes below.
    (100, 100, "left:50.0000%", "right:0;top:16px +100 beyond"),
    # Just past the middle: the label ends at the edge and the tail has the room after it.
    (51, 49, "right:49.0000%", "left:51.0000%;padding-left:6px +49 beyond"),
    # Exactly 15% of the bar left after the edge is room enough ...
    (85, 15, "right:15.0000%", "left:85.0000%;padding-left:6px +15 beyond"),
    # ... 14.5% is not.
    (171, 29, "right:14.5000%", "right:0;top:16px +29 beyond"),
    # A single token beyond still gets its label.
    (99, 1, "right:1.0000%", "right:0;top:16px +1 beyond"),
])
def test_the_edge_and_what_lies_beyond_are_labelled_by_where_the_edge_falls(
    window: int, shed: int, anchor: str, tail: str
) -> None:
    page = fit_report_html(_shed_only(window, shed))
    assert (_edge_label(page), _tail(page)) == (anchor, tail)


def test_an_edge_left_of_the_middle_puts_what_lies_beyond_below_its_own_label() -> None:
    # The edge's label starts at an edge left of the middle: the tail on the same line would
    # be drawn over it.
    page = fit_report_html(_shed_only(100, 300))
    assert (_edge_label(page), _tail(page)) == ("left:25.0000%", "right:0;top:16px +300 beyond")


def test_refill_takes_off_the_shed_tokens_exactly_what_it_brought_back() -> None:
    def shed_of(*steps: BucketTrace, refilled: tuple[RefillTrace, ...]) -> list[tuple[str, int | float]]:
        trace = ThriftTrace(1000, 0, 1000, 900, 850, True, False, steps, refilled=refilled)
        return [(s.label, s.tokens) for s in fit_report_bar(trace) if s.kind == "shed"]

    everything_back = BucketTrace("retrievables", 900, 700, 5, 3, "lowest score first", ("r4", "r5"))
    assert shed_of(everything_back, refilled=(RefillTrace("retrievables", 700, 900, 3, 5, ("r4", "r5")),)) == []
    nothing_back = BucketTrace("memories", 100, 40, 4, 1, "oldest first", ("k1", "k2", "k3"))
    assert shed_of(nothing_back, refilled=(RefillTrace("memories", 40, 40, 1, 1, ()),)) == [("memories", 60)]
    # A refill of a bucket no pass shed from sheds nothing and takes nothing off.
    assert shed_of(nothing_back, refilled=(RefillTrace("retrievables", 0, 0, 0, 0, ()),)) == [("memories", 60)]


def test_a_window_without_bound_is_shown_as_inf() -> None:
    page = fit_report_html(ThriftTrace(float("inf"), 10, 90, 50, 50, True, False, ()))
    assert "<div><dt>context window</dt><dd>inf</dd></div>" in page
    assert "(window inf, reserve 10)" in page


def test_a_pass_from_a_bucket_the_picture_does_not_know_is_drawn_as_other() -> None:
    # The type admits only known buckets, but a trace read back from elsewhere without checks
    # may carry another: it is drawn, not dropped, under "other".
    step = object.__new__(BucketTrace)
    for field, value in zip(
        ("bucket", "before_tokens", "after_tokens", "before_count", "after_count", "note", "ids"),
        ("scratchpad", 50, 30, 2, 1, "trimmed", ("s1",)), strict=True,
    ):
        object.__setattr__(step, field, value)
    trace = ThriftTrace(100, 10, 90, 50, 40, True, False, (step,))
    bar = [(s.kind, s.label, s.tokens) for s in fit_report_bar(trace)]
    assert bar == [("kept", "protected", 10), ("kept", "other", 30), ("free", "free", 50), ("reserve", "reserve", 10),
                   ("shed", "other", 20)]
    assert 'data-label="other" data-tokens="30" data-beyond="false"' in fit_report_html(trace)
    assert 'background-color:#7f7f7f"></div>' in fit_report_html(trace)
