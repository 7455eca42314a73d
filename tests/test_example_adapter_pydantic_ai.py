"""The Pydantic AI example runs offline and every model call it makes fits its budget."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "adapter_pydantic_ai.py"


def test_the_pydantic_ai_example_runs_and_every_call_fits(capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out
    calls = [(int(sent), int(budget), int(shed))
             for sent, budget, shed in re.findall(r"(\d+) tokens of (\d+); shed (\d+)", out)]
    assert len(calls) == 12
    assert all(sent <= budget for sent, budget, _ in calls)
    assert any(shed > 0 for _, _, shed in calls)  # by the later days the oldest turns are shed
