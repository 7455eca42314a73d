"""`count -` and `fit -` with standard input closed (`<&-`): one error line, not an internal error."""

from __future__ import annotations

import sys

import pytest

from thrift_fp.cli import run


@pytest.mark.parametrize("command", ["count", "fit"])
def test_a_closed_standard_input_is_one_error_line(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # What Python leaves in sys.stdin when the process starts with descriptor 0 closed.
    monkeypatch.setattr(sys, "stdin", None)
    assert run([command, "-"]) == 1
    err = capsys.readouterr().err
    assert err == "thrift-fp: error: cannot read standard input: it is closed\n", err
