"""`thrift-fp fit` on JSON that parses badly in Python's own decoder: one clear line, exit 1.

Regressions: each of these inputs used to escape as an "internal error" (exit 70).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from thrift_fp.cli import run

WINDOW = '"context_window": 100'


@pytest.mark.parametrize(
    ("text", "words"),
    [
        # Deep nesting exhausts the decoder's recursion.
        ("[" * 100_000 + "]" * 100_000, ["is not valid JSON", "nested too deeply"]),
        # A number longer than Python's int-conversion limit (4300 digits).
        ('{"working_set": {}, "context_window": ' + "1" * 5000 + "}", ["is not valid JSON", "digits"]),
        # A lone surrogate escape is not Unicode text: it could never be written back out.
        ('{"working_set": {"system_prompt": "\\ud800"}, ' + WINDOW + "}", ["is not valid JSON", "\\ud800"]),
        (
            '{"working_set": {"retrievables": [{"content": "a \\udfff b", "id": "p"}]}, ' + WINDOW + "}",
            ["is not valid JSON", "\\udfff"],
        ),
    ],
    ids=["deep-nesting", "huge-integer", "lone-surrogate-prompt", "lone-surrogate-retrievable"],
)
def test_fit_rejects_json_python_cannot_hold_as_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, words: list[str]
) -> None:
    request = tmp_path / "ws.json"
    request.write_text(text, encoding="utf-8")
    assert run(["fit", str(request)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("thrift-fp: error: "), err
    assert all(word in err for word in words), err


def test_a_surrogate_pair_escape_is_ordinary_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    request = tmp_path / "ws.json"
    request.write_text('{"working_set": {"system_prompt": "\\ud83d\\ude00"}, ' + WINDOW + "}", encoding="utf-8")
    assert run(["fit", str(request)]) == 0, capsys.readouterr().err
    assert "\N{GRINNING FACE}" in capsys.readouterr().out
