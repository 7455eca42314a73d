"""`thrift-fp ask` refuses a negative quota as its own argument error, like --max-results.

Regression: `--max-queries -3` reached the retrieval lifecycle and came back as
"limit failed for query ...: returned -3, not a non-negative int".
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from thrift_fp.cli import run
from thrift_fp.sources import index_paths


def test_a_negative_quota_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.md").write_text("budget")
    index_paths(tmp_path / "index.db", [tmp_path / "a.md"]).unwrap()
    for option in ("--max-queries", "--max-results"):
        assert run(["ask", "budget", "--db", str(tmp_path / "index.db"), option, "-3"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("Usage: thrift-fp ask") and f"Error: Invalid value for '{option}'" in err, err


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_a_budget_too_small_for_the_directive_and_one_passage_is_an_error_naming_the_smallest_that_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], as_json: bool
) -> None:
    # The held-out suite's finding: at a tiny budget `ask` printed an empty line and exited 0.
    (tmp_path / "a.md").write_text("# Budgets\n\nA budget is the window minus the reserve, counted in real tokens.\n")
    index_paths(tmp_path / "index.db", [tmp_path / "a.md"]).unwrap()
    asked = ["ask", "budget reserve", "--db", str(tmp_path / "index.db"), *(["--json"] if as_json else [])]
    assert run([*asked, "--budget", "50"]) == 3
    out, err = capsys.readouterr()
    found = re.search(
        r"thrift-fp: error: a budget of 50 tokens cannot carry the safety directive and one passage;"
        r" the smallest useful budget here is (\d+) \(--budget \1\)\n\Z", err,
    )
    assert found is not None and out == "", err
    smallest = int(found.group(1))
    # Exact: one token less is refused, that budget answers with the passage.
    assert run([*asked, "--budget", str(smallest - 1)]) == 3
    capsys.readouterr()
    assert run([*asked, "--budget", str(smallest)]) == 0
    out = capsys.readouterr().out
    assert "A budget is the window minus the reserve" in (json.loads(out)["context"] if as_json else out)
    # Given as a window, the error names the window that leaves that budget too.
    assert run([*asked, "--window", "60"]) == 3
    err = capsys.readouterr().err
    window = re.search(rf"the smallest useful budget here is {smallest} \(--budget {smallest}, or --window (\d+)\)", err)
    assert window is not None, err
    assert run([*asked, "--window", str(int(window.group(1)) - 1)]) == 3
    capsys.readouterr()
    assert run([*asked, "--window", window.group(1)]) == 0


def test_a_question_that_matches_nothing_still_exits_0_at_any_budget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.md").write_text("budget")
    index_paths(tmp_path / "index.db", [tmp_path / "a.md"]).unwrap()
    assert run(["ask", "zebra", "--db", str(tmp_path / "index.db"), "--budget", "5"]) == 0
    assert "no passage matched" in capsys.readouterr().err
