"""A command named first runs in a group holding that command alone (`thrift_fp.cli._app.app_for`:
typer builds a click command from each registered function on every run, issue 35); what it
prints and how it exits are those of the whole app."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer.main

from thrift_fp.cli import run
from thrift_fp.cli._app import _COMMANDS, app, app_for


def _whole_app(argv: list[str]) -> int:
    try:
        app(args=argv, prog_name="thrift-fp")
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0


CASES = [
    *([name, "--help"] for name in _COMMANDS),
    ["ask"],
    ["ask", "--budget", "-1", "why"],
    ["ask", "--no-such-option", "why"],
    ["ask", "--verbose", "why"],
    ["count"],
    ["count", "--encoding"],
    ["schema", "extra"],
    ["fit", "--budget", "x"],
    ["serve", "--http", "--port", "nope"],
    ["index"],
]


@pytest.mark.parametrize("argv", CASES, ids=" ".join)
def test_a_command_alone_prints_and_exits_as_in_the_whole_app(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")
    whole = _whole_app(list(argv)), capsys.readouterr()
    alone = run(list(argv)), capsys.readouterr()
    assert alone == whole


def test_only_the_command_named_first_is_built(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    built: list[str | None] = []
    real = typer.main.get_command_from_info

    def recorded(command_info: typer.models.CommandInfo, **kwargs: object) -> object:
        built.append(command_info.name)
        return real(command_info, **kwargs)  # type: ignore[arg-type]  # typer's own keywords, passed through

    monkeypatch.setattr(typer.main, "get_command_from_info", recorded)
    (tmp_path / "note.txt").write_text("three tokens here")
    assert run(["count", str(tmp_path / "note.txt")]) == 0
    assert built == ["count"]
    assert app_for(["--version"]) is app and app_for([]) is app and app_for(["nope"]) is app
