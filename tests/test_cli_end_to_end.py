"""The real command in a subprocess (`python -m thrift_fp`): index, ask, fit, and a bad input.

Each start costs about a second, so these tests are few; the in-process tests cover the rest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _thrift_fp(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "THRIFT_FP_CACHE_DIR": str(cwd / "cache"), "COLUMNS": "160"}
    return subprocess.run(
        [sys.executable, "-m", "thrift_fp", *args],
        cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=120, check=False,
    )


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "guides").mkdir(parents=True)
    (docs / "budget.md").write_text(
        "# Budget\n\nThe budget is the context window minus the reserve for the answer.\n\n"
        "## Reserve\n\nWithout an output reserve, 35 percent of the window is reserved.\n"
    )
    (docs / "guides" / "shedding.txt").write_text(
        "Shedding removes the lowest-scoring passages first while the working set is over budget.\n"
    )
    (docs / "faq.jsonl").write_text('{"id": "quota", "text": "A quota caps how many queries one request may run."}\n')
    # A record cannot choose its own tier: public pages are indexed under their tier.
    (tmp_path / "web.jsonl").write_text('{"id": "web", "content": "Public pages say shedding is like packing a suitcase."}\n')
    return docs


def test_index_then_ask_then_fit(corpus: Path, tmp_path: Path) -> None:
    indexed = _thrift_fp("index", str(corpus), "--db", "docs.db", cwd=tmp_path)
    assert indexed.returncode == 0, indexed.stderr
    assert "indexed 3 files into docs.db: 3 chunked, 0 touched, 0 unchanged, 0 removed; 3 passages" in indexed.stdout
    public = _thrift_fp("index", "web.jsonl", "--db", "docs.db", "--tier", "third-party-public", cwd=tmp_path)
    assert public.returncode == 0 and "; 4 passages" in public.stdout, public.stderr

    asked = _thrift_fp("ask", "how does shedding work", "--db", "docs.db", "--budget", "1000", cwd=tmp_path)
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.startswith("Retrieved data follows.")
    assert "Shedding removes the lowest-scoring passages first" in asked.stdout
    assert "tier=third-party-public" in asked.stdout
    assert "docs/guides/shedding.txt#1" in asked.stderr and "kept" in asked.stderr

    request = {
        "context_window": 200,
        "options": {"output_reserve": 50},
        "working_set": {
            "system_prompt": "Answer from the passages.",
            "retrievables": [
                {"id": "good", "content": "Shedding removes low scores first.", "score": 0.9},
                {"id": "long", "content": "filler " * 400, "score": 0.2},
            ],
        },
    }
    fitted = _thrift_fp("fit", "-", cwd=tmp_path, stdin=json.dumps(request))
    assert fitted.returncode == 0, fitted.stderr
    out = json.loads(fitted.stdout)
    assert [r["id"] for r in out["working_set"]["retrievables"]] == ["good"]
    assert out["trace"]["budget"] == 150 and out["trace"]["fits"] is True
    assert next(b for b in out["trace"]["buckets"] if b["bucket"] == "retrievables")["ids"] == ["long"]


def test_bad_input_in_a_real_process_is_one_line_without_traceback(tmp_path: Path) -> None:
    (tmp_path / "corrupt.db").write_bytes(b"\x00garbage" * 512)
    failed = _thrift_fp("ask", "budget", "--db", "corrupt.db", cwd=tmp_path)
    assert failed.returncode == 1 and failed.stdout == ""
    assert failed.stderr.startswith("thrift-fp: error: corrupt.db is not a usable thrift_fp index")
    assert failed.stderr.count("\n") == 1 and "Traceback" not in failed.stderr
