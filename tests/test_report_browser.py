"""The fit report in a real browser: Debian's headless Chromium, driven through Debian's
chromedriver by Selenium. The page loads with no console error and no network request but its
own, the bar's rendered segments add up to the window, every shed item is listed, hostile text
shows as text, and a screenshot is not blank.

Skipped (with the reason) where no browser is installed; ``THRIFT_FP_REQUIRE_BROWSER=1`` (set by
``.ci/run``, which installs Chromium) turns the skip into a failure. ``THRIFT_FP_REPORT_SCREENSHOT``
names a file to keep the screenshot in (how ``docs/img/fit-report.png`` is made).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import pytest

from tests._png import distinct_colours
from thrift_fp.sources import Assembled, assemble, embedded_corpus, index_paths
from thrift_fp.thrift import Message, ThriftOptions, WorkingSet, fit_report_bar, report_shed

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--window-size=1100,900",
)
# A file name is a passage's id and source: markup in it must show as text (no "/" in a name).
HOSTILE_NAME = '<img src="http:127.0.0.1:9" onerror="alert(1)"><script>fetch("http:127.0.0.1:9")<script>.md'


def _browser_or_skip() -> None:
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.exists()]
    try:
        import selenium  # noqa: F401, PLC0415 - the dev extra's browser driver
    except ImportError:
        missing.append("the selenium package (the dev extra)")
    if not missing:
        return
    reason = f"no browser to test the report in: missing {', '.join(missing)} (apt-get install chromium chromium-driver)"
    if os.environ.get("THRIFT_FP_REQUIRE_BROWSER") == "1":
        pytest.fail(f"THRIFT_FP_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def assembled(tmp_path_factory: pytest.TempPathFactory) -> Assembled:
    """A fit of the embedded corpus plus a hostile note, with a chat history, in a small window."""
    root = tmp_path_factory.mktemp("report")
    notes = root / "notes"
    shutil.copytree(embedded_corpus(), notes)
    (notes / HOSTILE_NAME).write_text("# Queues\n\n" + "Trains and ferries leave on time. " * 12 + "Who came first goes first.\n")
    index_paths(root / "index.db", [notes]).unwrap()
    at = datetime(2026, 12, 1, tzinfo=UTC)
    history = tuple(
        Message(f"turn-{i}", text, at, role=role)
        for i, (role, text) in enumerate([
            ("user", "We are planning the retrieval budget for our support agent. " * 6),
            ("assistant", "Then start from the window, keep a reserve for the answer, and fit the rest. " * 6),
            ("user", "How does shedding decide what goes first?"),
        ])
    )
    working_set = WorkingSet(system_prompt="Answer from the retrieved notes; cite them. " * 4, messages=history)
    return assemble(
        "how does shedding decide what goes first", database=root / "index.db", context_window=2400,
        working_set=working_set, options=ThriftOptions(refill=True), max_results=12,
    ).unwrap()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    _browser_or_skip()
    from selenium import webdriver  # noqa: PLC0415 - optional (dev extra)
    from selenium.webdriver.chrome.service import Service  # noqa: PLC0415

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    # Every request the page makes (the performance log's Network events) and its console.
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _log(browser: object, kind: str) -> list[dict[str, Any]]:
    """The browser's ``kind`` log since the last read (``performance``: the DevTools events)."""
    from selenium.webdriver.chromium.webdriver import ChromiumDriver  # noqa: PLC0415 - optional (dev extra)

    assert isinstance(browser, ChromiumDriver)
    entries = browser.get_log(kind)  # type: ignore[no-untyped-call]  # selenium leaves it unannotated
    return cast(list[dict[str, Any]], entries)


def test_the_report_in_a_real_browser(assembled: Assembled, browser: object, tmp_path: Path) -> None:
    from selenium.webdriver.chromium.webdriver import ChromiumDriver  # noqa: PLC0415 - optional (dev extra)

    assert isinstance(browser, ChromiumDriver)
    page = tmp_path / "report.html"
    page.write_text(assembled._repr_html_(), encoding="utf-8")
    url = page.as_uri()
    # What the browser loaded before this page (its start page) is not this page's doing.
    browser.get("about:blank")
    _log(browser, "performance")
    _log(browser, "browser")
    browser.get(url)

    # No network request but the page itself.
    requested = [
        message["params"]["request"]["url"]
        for entry in _log(browser, "performance")
        if (message := json.loads(entry["message"])["message"])["method"] == "Network.requestWillBeSent"
    ]
    assert requested == [url]
    # No console error (a blocked load would be one: the page's policy refuses every fetch).
    assert [entry for entry in _log(browser, "browser") if entry["level"] == "SEVERE"] == []

    # The bar as drawn: its segments' tokens add up to the window, their widths fill the bar, and
    # the window's part of the bar is the window's share of the whole.
    drawn = browser.execute_script(
        "const bar = document.querySelector('.tfp-bar');"
        "return {window: Number(bar.dataset.window), width: bar.clientWidth,"
        " segments: [...bar.querySelectorAll('.tfp-seg')].map(s => ({kind: s.dataset.kind,"
        " tokens: Number(s.dataset.tokens), beyond: s.dataset.beyond === 'true',"
        " width: s.getBoundingClientRect().width}))};"
    )
    segments = drawn["segments"]
    trace = assembled.trace
    assert drawn["window"] == trace.context_window
    assert sum(s["tokens"] for s in segments if not s["beyond"]) == trace.context_window
    assert len(segments) == len(fit_report_bar(trace))
    assert {s["kind"] for s in segments} >= {"kept", "reserve", "shed"}
    assert abs(sum(s["width"] for s in segments) - drawn["width"]) <= 1.0
    scale = sum(s["tokens"] for s in segments)
    inside = sum(s["width"] for s in segments if not s["beyond"])
    assert abs(inside / drawn["width"] - trace.context_window / scale) <= 0.01

    # Every shed item is listed, with its reason.
    rows = browser.execute_script(
        "return [...document.querySelectorAll('table[data-table=shed] tbody tr')]"
        ".map(r => [...r.cells].map(c => c.textContent));"
    )
    gone = report_shed(trace)
    assert gone and [row[0] for row in rows] == [item.id for item in gone]
    assert [row[2] for row in rows] == [item.reason for item in gone]

    # The hostile note's markup is text on the page, not elements.
    assert browser.execute_script("return document.querySelectorAll('img, script, iframe, link').length;") == 0
    assert HOSTILE_NAME in browser.execute_script("return document.body.innerText;")

    shot = browser.get_screenshot_as_png()
    assert distinct_colours(shot) >= 8  # the bar's colours and the text: not a blank page
    keep = os.environ.get("THRIFT_FP_REPORT_SCREENSHOT")
    if keep:
        Path(keep).write_bytes(shot)
