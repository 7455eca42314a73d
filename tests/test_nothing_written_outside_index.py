"""Nothing leaves or lingers: `thrift-fp index` and `ask`, with the real embedding model, write no
file outside the index and the package's own folders (issue 35).

The commands run in a subprocess whose ``HOME``, XDG folders and ``TMPDIR`` all lie in a fresh
temporary folder, and every file that appears under it is listed: onnxruntime's telemetry store
(``Microsoft/DeveloperTools/.onnxruntime/deviceid`` and ``onnxruntime.db`` under the user cache
folder), or any other library's, would show up there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from returns.result import Success

from thrift_fp.sources.dense import default_embedder

pytestmark = pytest.mark.skipif(
    not isinstance(default_embedder(), Success), reason="the [dense] extra's default model is not installed"
)

_FOLDERS = ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR")


def _files(root: Path) -> set[str]:
    return {path.relative_to(root).as_posix() for path in root.rglob("*") if not path.is_dir()}


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "thrift_fp", *args], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=300, check=False,
    )


def test_index_and_ask_write_only_the_index_and_the_package_folders(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {key: value for key, value in os.environ.items()
           if key not in _FOLDERS and key not in ("HOME", "TMPDIR", "THRIFT_FP_CACHE_DIR", "THRIFT_FP_DATABASE_URL")}
    env |= {"HOME": str(home), "TMPDIR": str(home / "tmp")}
    env |= {name: str(home / name.lower()) for name in _FOLDERS}
    for folder in (home / "tmp", *(home / name.lower() for name in _FOLDERS)):
        folder.mkdir(parents=True)
    (home / "xdg_runtime_dir").chmod(0o700)
    work = home / "work"
    (work / "docs").mkdir(parents=True)
    (work / "docs" / "budget.md").write_text(
        "# Budget\n\nThe budget is the context window minus the reserve for the answer.\n\n"
        "## Shedding\n\nShedding removes the lowest-scoring passages first.\n"
    )
    before = _files(home)

    indexed = _run(["index", "docs", "--db", "docs.db", "--json"], work, env)
    assert indexed.returncode == 0, indexed.stderr
    assert json.loads(indexed.stdout)["embedded"] >= 1  # the model really ran
    asked = _run(["ask", "how is the budget computed", "--db", "docs.db", "--json"], work, env)
    assert asked.returncode == 0, asked.stderr
    assert json.loads(asked.stdout)["ranking"] == "hybrid"  # and ran again for the question
    embedded = _run(["ask", "what is shed first", "--json"], work, env)  # the embedded corpus's index
    assert embedded.returncode == 0, embedded.stderr

    created = _files(home) - before
    own = ("xdg_cache_home/thrift-fp/", "xdg_data_home/thrift-fp/")
    assert sorted(path for path in created if path != "work/docs.db" and not path.startswith(own)) == []
    assert "work/docs.db" in created
    assert not (home / "xdg_cache_home" / "Microsoft").exists()
    assert "telemetry" not in indexed.stderr + asked.stderr + embedded.stderr
