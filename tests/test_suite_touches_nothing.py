"""The suite changes nothing on the machine: without a server URL the PostgreSQL tests are skipped
(not errors) with one line saying how to run them, nothing in the suite starts or installs a
server, and ``THRIFT_FP_REQUIRE_PG=1`` turns a skipped PostgreSQL test into a failure."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

from tests import _pgvector_cluster as pgvector
from tests._postgres_cluster import HOW_TO_RUN, REQUIRE_ENV, URL_ENV

ROOT = Path(__file__).resolve().parent.parent


def _pytest(*args: str, env: dict[str, str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=300
    )


def _without_postgres() -> dict[str, str]:
    return {
        name: value for name, value in os.environ.items()
        if name not in (URL_ENV, REQUIRE_ENV, pgvector.URL_ENV, pgvector.REQUIRE_ENV)
    }


def test_without_urls_the_postgresql_and_pgvector_tests_skip_with_one_line_each_saying_how_to_run_them() -> None:
    done = _pytest(
        "tests/test_sources_postgres_cli.py", "thrift_fp/sources/postgres/__init__.py", "properties/test_pgvector_props.py",
        env=_without_postgres(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = done.stdout.strip().splitlines()[-1]
    assert re.search(r"\b\d+ skipped\b", summary) and "error" not in summary and "passed" in summary, summary
    lines = [line for line in done.stdout.splitlines() if HOW_TO_RUN in line]
    assert len(lines) == 1 and re.fullmatch(rf"\d+ {re.escape(HOW_TO_RUN)}", lines[0]), done.stdout
    # The pgvector tests likewise, on their own line.
    lines = [line for line in done.stdout.splitlines() if pgvector.HOW_TO_RUN in line]
    assert len(lines) == 1 and re.fullmatch(rf"1 {re.escape(pgvector.HOW_TO_RUN)}", lines[0]), done.stdout


def test_required_postgresql_without_a_url_is_a_usage_error() -> None:
    done = _pytest("tests/test_sources_postgres_cli.py", env=_without_postgres() | {REQUIRE_ENV: "1"})
    assert done.returncode == 4 and f"{REQUIRE_ENV} is set but {URL_ENV} is not" in done.stderr, done.stderr


def test_required_pgvector_without_a_url_is_a_usage_error() -> None:
    done = _pytest("properties/test_pgvector_props.py", env=_without_postgres() | {pgvector.REQUIRE_ENV: "1"})
    assert done.returncode == 4, done.stdout + done.stderr
    assert f"{pgvector.REQUIRE_ENV} is set but {pgvector.URL_ENV} is not" in done.stderr, done.stderr


def test_required_pgvector_turns_any_skip_of_a_pgvector_test_into_a_failure(tmp_path: Path) -> None:
    (tmp_path / "test_skips.py").write_text(
        "import pytest\n\n"
        "def test_skipped_for_another_reason(pgvector_base_url: str) -> None:\n"
        "    pytest.skip('no vector extension')\n"
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    base = _without_postgres() | {"PYTHONPATH": str(ROOT), pgvector.URL_ENV: "postgresql://u@/db?host=/nonexistent"}
    args = ("-p", "tests._pgvector_cluster", "-c", str(tmp_path / "pytest.ini"), "-rfs", str(tmp_path))
    strict = _pytest(*args, env=base | {pgvector.REQUIRE_ENV: "1"}, cwd=tmp_path)
    assert strict.returncode == 1 and "1 failed" in strict.stdout, strict.stdout
    assert "this pgvector test was skipped" in strict.stdout and "no vector extension" in strict.stdout


def test_required_postgresql_turns_any_skip_of_a_postgresql_test_into_a_failure(tmp_path: Path) -> None:
    (tmp_path / "test_skips.py").write_text(
        "import pytest\n\n"
        "def test_skipped_for_another_reason(pg_base_url: str) -> None:\n"
        "    pytest.skip('psycopg missing')\n\n"
        "def test_not_postgresql() -> None:\n"
        "    pytest.skip('unrelated')\n"
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    base = _without_postgres() | {"PYTHONPATH": str(ROOT), URL_ENV: "postgresql://u@/db?host=/nonexistent"}
    args = ("-p", "tests._postgres_cluster", "-c", str(tmp_path / "pytest.ini"), "-rfs", str(tmp_path))
    lenient = _pytest(*args, env=base, cwd=tmp_path)
    assert lenient.returncode == 0 and "2 skipped" in lenient.stdout, lenient.stdout
    strict = _pytest(*args, env=base | {REQUIRE_ENV: "1"}, cwd=tmp_path)
    assert strict.returncode == 1 and "1 failed, 1 skipped" in strict.stdout, strict.stdout
    assert "this PostgreSQL test was skipped" in strict.stdout and "psycopg missing" in strict.stdout


_SPAWNERS = {"run", "Popen", "call", "check_call", "check_output", "system", "popen", "execv", "execvp", "spawnv"}
_INTERPRETERS = {"sys.executable", "python"}


def _spawned_programs(path: Path) -> list[str]:
    """The first argument of every process-starting call in ``path``, as source text."""
    programs = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SPAWNERS:
            owner = ast.unparse(node.func.value)
            if owner in ("subprocess", "os") and node.args:
                argv = node.args[0]
                first = argv.elts[0] if isinstance(argv, ast.List) and argv.elts else argv
                programs.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(first)}")
    return programs


def test_every_process_the_suite_starts_is_a_python_interpreter() -> None:
    # No shell, package manager, user tool or server binary: the suite installs nothing, creates
    # no user and starts no server (PostgreSQL comes from the environment's URL).
    programs = [
        program
        for folder in ("tests", "properties")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for program in _spawned_programs(path)
    ] + _spawned_programs(ROOT / "conftest.py")
    assert len(programs) > 10  # the check sees the suite's child processes
    assert [program for program in programs if program.rsplit(": ", 1)[1] not in _INTERPRETERS] == []


_LEAK_PROBE = "THRIFT_FP_LEAK_PROBE"


def test_a_temporary_folder_a_test_leaves_is_gone_when_the_run_ends(tmp_path: Path) -> None:
    # A child run whose only test makes a folder with tempfile and never removes it (as a
    # module-level mkdtemp does): the folder is inside the run's own, and gone once the run ends.
    record = tmp_path / "made.txt"
    done = _pytest(
        f"{Path(__file__).relative_to(ROOT)}::test_leak_probe", "-p", "no:randomly",
        env=_without_postgres() | {_LEAK_PROBE: str(record)},
    )
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr
    made = Path(record.read_text())
    assert made.name.startswith("leaked-") and not made.exists(), made
    assert made.parent.name.startswith("thrift-fp-suite-") and not made.parent.exists(), made


def test_leak_probe() -> None:
    # Only the test above runs this, in a child run: it leaks a folder on purpose.
    import tempfile

    record = os.environ.get(_LEAK_PROBE)
    if record is None:
        return
    folder = Path(tempfile.mkdtemp(prefix="leaked-"))
    (folder / "left.txt").write_text("left behind")
    Path(record).write_text(str(folder))
