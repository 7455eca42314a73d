"""mypy rejects a RetrievalDefinition whose execute returns the wrong type."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKED = Path("tests") / "typing" / "bad_execute.py"


def test_mypy_rejects_a_mistyped_execute_and_accepts_the_typed_one() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", str(CHECKED)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    expected_line = next(
        number
        for number, line in enumerate((ROOT / CHECKED).read_text().splitlines(), start=1)
        if "# expected: [arg-type]" in line
    )
    errors = [line for line in run.stdout.splitlines() if re.search(r": error: ", line)]
    assert run.returncode == 1, run.stdout + run.stderr
    assert len(errors) == 1, run.stdout
    (error,) = errors
    assert error.startswith(f"{CHECKED.as_posix()}:{expected_line}: error: ")
    assert 'Argument "execute" to "RetrievalDefinition" has incompatible type' in error
    assert '"Callable[[str, OperationContext[App]], Found]"' in error
    assert error.endswith("[arg-type]")
