"""`thrift-fp fit`: the working-set JSON format, its validation, and its published JSON Schema."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from thrift_fp.cli import run
from thrift_fp.cli._working_set_json import FIELDS, _REQUIRED, fitted_to_json, parse_fit_request
from thrift_fp.thrift import subtract_to_fit

SCHEMA = Path(__file__).resolve().parent.parent / "thrift_fp" / "schema" / "working-set.schema.json"

REQUEST = {
    "context_window": 400,
    "relevant_tool_names": ["search"],
    "options": {"output_reserve": 100, "this_turn_result_keep": 1},
    "working_set": {
        "system_prompt": "You answer from the retrieved passages.",
        "standing_instructions": ["Cite sources."],
        "messages": [
            {"id": "m1", "content": "Earlier question " * 30, "created_at": "2026-01-01T10:00:00Z", "role": "user"},
            {"id": "m2", "content": "How does shedding work?", "created_at": "2026-01-01T10:05:00+00:00", "role": "user"},
        ],
        "memories": [{"content": "Prefers short answers.", "importance": 0.8, "id": "mem1"}],
        "retrievables": [
            {"content": "Shedding drops the lowest score first.", "id": "p1", "score": 0.9},
            {"content": "Unrelated long passage. " * 60, "id": "p2", "score": 0.1},
            {"content": "A spooled log.", "id": "p3", "size_unknown": True},
        ],
        "thoughts": [{"id": "t1", "content": "old thought", "created_at": "2026-01-01T09:00:00Z"}],
        "tools": [{"name": "search", "description": "Search the index."}, {"name": "shell", "description": "Run a command."}],
        "tool_calls": [{"ref": "c1", "token_cost": 50, "created_at_ms": 1767261600000}],
        "image": {"label": "diagram.png", "token_cost": 765},
    },
}


def _fitted(capsys: pytest.CaptureFixture[str], args: list[str]) -> dict[str, object]:
    assert run(args) == 0, capsys.readouterr().err
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


def test_fit_writes_the_fitted_working_set_and_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    request = tmp_path / "ws.json"
    request.write_text(json.dumps(REQUEST))
    out = _fitted(capsys, ["fit", str(request)])
    trace = out["trace"]
    assert isinstance(trace, dict) and trace["fits"] is True and trace["budget"] == 300
    ws = out["working_set"]
    assert isinstance(ws, dict)
    assert [r["id"] for r in ws["retrievables"]] == ["p1"]
    assert ws["image"] is None and ws["visible_tool_names"] == ["search"]
    # The output's working set is itself valid input, and fitting it again changes nothing.
    again = parse_fit_request({"context_window": 400, "working_set": ws, "options": REQUEST["options"]}).unwrap()
    assert [getattr(r, "id", None) for r in again.working_set.retrievables] == ["p1"]


def test_fit_reads_standard_input_and_budget_overrides(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(REQUEST).encode())))
    out = _fitted(capsys, ["fit", "-", "--budget", "5000", "--encoding", "o200k_base"])
    trace = out["trace"]
    assert isinstance(trace, dict) and trace["budget"] == 5000 and trace["reserve"] == 0


@pytest.mark.parametrize(
    ("text", "args", "words"),
    [
        ("{oops", [], ["is not valid JSON", "line 1, column 2"]),
        ('{"working_set": {"messages": [{"id": 1}]}, "extra": 1}', [], ["not a valid working set", "$.extra", "(and 3 more)"]),
        ('{"working_set": {}}', [], ["give --window, --budget or context_window"]),
        ('{"working_set": {}, "context_window": 10}', ["--encoding", "nope"], ["unknown encoding 'nope'"]),
        ('{"working_set": {"retrievables": [{"content": "x", "score": 2}]}, "context_window": 9}', [], ["$.working_set.retrievables[0].score"]),
    ],
)
def test_fit_errors_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, args: list[str], words: list[str]
) -> None:
    request = tmp_path / "ws.json"
    request.write_text(text)
    assert run(["fit", str(request), *args]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert all(word in err for word in words), err


@pytest.mark.parametrize("args", [["--window", "-3"], ["--budget", "-1"], ["--window", "5", "--budget", "5"]])
def test_a_negative_or_doubled_window_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    request = tmp_path / "ws.json"
    request.write_text('{"working_set": {}}')
    assert run(["fit", str(request), *args]) == 2
    assert capsys.readouterr().err.startswith("Usage: thrift-fp fit")


def test_no_window_anywhere_says_so_without_a_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    request = tmp_path / "ws.json"
    request.write_text('{"working_set": {}}')
    assert run(["fit", str(request)]) == 1
    assert capsys.readouterr().err == (
        "thrift-fp: error: no context window: give --window, --budget or context_window in the file\n"
    )


def test_every_problem_is_reported_with_its_path() -> None:
    problems = parse_fit_request(
        {"working_set": {"messages": [{"id": "m", "content": "x", "created_at": "2026-01-01T00:00:00"}],
                         "tools": "search", "image": {"label": "i", "token_cost": -1}}}
    ).failure().problems
    assert problems == (
        "$.working_set.messages[0].created_at: timestamp '2026-01-01T00:00:00' has no time zone (add Z or +00:00)",
        "$.working_set.tools: expected an array, got a string",
        "$.working_set.image.token_cost: must be at least 0, got -1",
    )


def test_the_published_schema_matches_the_parser() -> None:
    schema = json.loads(SCHEMA.read_text())
    shapes = {"request": schema, **schema["$defs"]}
    for shape, keys in FIELDS.items():
        assert tuple(shapes[shape]["properties"]) == keys, shape
        assert set(shapes[shape]["required"]) == _REQUIRED[shape], shape
        assert shapes[shape]["additionalProperties"] is False


def test_the_schema_command_prints_the_published_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(SCHEMA.read_text())


def test_fitted_json_round_trips() -> None:
    request = parse_fit_request(REQUEST).unwrap()
    fitted = subtract_to_fit(request.working_set, 400, request.relevant_tool_names, request.options).unwrap()
    out = fitted_to_json(fitted)
    reparsed = parse_fit_request({"working_set": out["working_set"]}).unwrap()
    assert reparsed.working_set == fitted.working_set
