"""The picture of a fit: what the page shows for each kind of result, and that it stays inert
(one self-contained page: no script, no external resource, a policy that forbids loading any)."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from thrift_fp.cli import run
from thrift_fp.records import Retrievable
from thrift_fp.render import (
    BarSegment,
    KeyedNonce,
    ReportPassage,
    fit_and_render,
    fit_report_bar,
    fit_report_html,
    report_shed,
)
from thrift_fp.sources import assemble, index_paths
from thrift_fp.thrift import BucketTrace, Message, RefillTrace, ThriftOptions, ThriftTrace, WorkingSet, subtract_to_fit

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
