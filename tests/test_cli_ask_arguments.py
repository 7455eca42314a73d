"""`thrift-fp ask` refuses a negative quota as its own argument error, like --max-results.

Regression: `--max-queries -3` reached the retrieval lifecycle and came back as
"limit failed for query ...: returned -3, not a non-negative int".
"""

from __future__ import annotations

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
