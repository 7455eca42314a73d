"""The command's global surface: --version, fit's exit status, choices and defaults in --help,
and a --help that loads no library layer."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

import thrift_fp
from thrift_fp.cli import run
from thrift_fp.cli._options import DEFAULT_MAX_TOKENS, DEFAULT_WINDOW, EXIT_DOES_NOT_FIT, TIER_CHOICES, TierOption
from thrift_fp.records import TRUST_TIERS
from thrift_fp.sources import DEFAULT_MAX_TOKENS as LIBRARY_MAX_TOKENS


def _flat(text: str) -> str:
    return " ".join(text.replace("│", " ").split())


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"thrift-fp {version('thrift_fp')}"
    assert thrift_fp.__version__ == version("thrift_fp")  # what --version prints is what is installed


def test_the_cli_defaults_are_the_librarys() -> None:
    assert TIER_CHOICES == TRUST_TIERS
    assert tuple(TierOption) == TIER_CHOICES
    assert DEFAULT_MAX_TOKENS == LIBRARY_MAX_TOKENS


def test_help_lists_choices_and_defaults(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")  # no wrapping inside the option table
    assert run(["ask", "--help"]) == 0
    ask = _flat(capsys.readouterr().out)
    assert f"[default: {DEFAULT_WINDOW}]" in ask
    assert "--tier TIER Only this trust tier (repeatable): first-party, third-party-public, third-party-private." in ask
    assert run(["index", "--help"]) == 0
    index = _flat(capsys.readouterr().out)
    assert "[default: first-party]" in index and f"[default: {DEFAULT_MAX_TOKENS}]" in index
    assert run(["--help"]) == 0
    assert "3 `fit` found that the working set does not fit" in _flat(capsys.readouterr().out)


@pytest.mark.parametrize("command", [[], ["index"], ["ask"], ["fit"], ["schema"], ["count"]], ids=str)
def test_help_shows_no_python_types(
    command: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "300")
    assert run([*command, "--help"]) == 0
    shown = capsys.readouterr().out
    assert "<" not in shown and "list[" not in shown and "Path]" not in shown, shown
    if command in (["index"], ["ask"], ["fit"], ["count"]):
        # Each argument is still explained, in the command's description.
        assert {"index": "PATH... are", "ask": "QUESTION... is", "fit": "FILE is", "count": "FILE is"}[command[0]] in shown


def test_an_80_column_help_lists_every_command_uncut(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # click cuts a command's summary to what the listing leaves of the width ("...").
    monkeypatch.setenv("COLUMNS", "80")
    assert run(["--help"]) == 0
    listing = capsys.readouterr().out.split("Commands:", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    assert [line.split()[0] for line in listing] == ["index", "ask", "serve", "fit", "schema", "count"]
    assert all(len(line) <= 80 and not line.endswith("...") for line in listing), listing


def _fit(tmp_path: Path, window: int) -> Path:
    request = {
        "context_window": window,
        "working_set": {"system_prompt": "You answer from the retrieved passages, briefly and exactly."},
    }
    path = tmp_path / "ws.json"
    path.write_text(json.dumps(request))
    return path


def test_fit_exits_with_a_distinct_status_when_the_set_does_not_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["fit", str(_fit(tmp_path, 1000))]) == 0
    assert json.loads(capsys.readouterr().out)["trace"]["fits"] is True
    assert run(["fit", str(_fit(tmp_path, 5))]) == EXIT_DOES_NOT_FIT == 3
    printed = json.loads(capsys.readouterr().out)  # the bounded refusal is still printed
    assert printed["trace"]["fits"] is False and printed["trace"]["refused"] is True


_HELP_PROBE = """
import sys
from thrift_fp.cli import run
code = run(sys.argv[1:])
heavy = ("rich", "pydantic", "returns", "beartype", "tiktoken", "platformdirs")
loaded = sorted(
    m for m in sys.modules
    if m.split(".")[0] in heavy or (m.startswith("thrift_fp.") and not m.startswith("thrift_fp.cli"))
)
print(code, loaded)
"""

# What cold start costs (benchmarks/cold_start.py) comes from what these load: no library layer,
# no rich (click's plain help), no pydantic (typer's coercion of a flag not given), no returns.
_FAST_INVOCATIONS = [
    ["--help"], ["--version"], *([command, "--help"] for command in ("index", "ask", "fit", "schema", "count")),
]


@pytest.mark.parametrize("argv", _FAST_INVOCATIONS, ids=" ".join)
def test_help_and_version_load_no_library_layer_nor_rich_nor_pydantic(argv: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", _HELP_PROBE, *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "0 []"
