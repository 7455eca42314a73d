"""The beartype claw covers the package, without breaking returns' decorators."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from beartype.roar import BeartypeCallHintParamViolation

from thrift_fp import count_tokens

_MODULE = textwrap.dedent(
    """
    from returns.curry import curry
    from returns.result import Result, safe

    @safe
    def half(value: int) -> float:
        return value / 2

    @curry
    def add(a: int, b: int) -> int:
        return a + b

    def plain(value: int) -> int:
        return value
    """
)

_INIT = textwrap.dedent(
    """
    from beartype.claw import beartype_this_package
    {conf_import}
    beartype_this_package({conf_arg})
    """
)

_CHECK = textwrap.dedent(
    """
    import returnspkg.mod as m
    from returns.result import Success
    assert m.half(4) == Success(2.0), m.half(4)
    assert m.add(1)(2) == 3
    # The claw is on: a plain function rejects a wrong type ...
    try:
        m.plain("x")
    except Exception as error:
        assert "Beartype" in type(error).__name__, type(error)
    else:
        raise AssertionError("the claw did not check plain()")
    # ... and inside @safe the violation surfaces as a Failure -- which is why the
    # package never uses a bare @safe (it would swallow our own type bugs).
    assert "Beartype" in type(m.half("x").failure()).__name__
    print("ok")
    """
)


def _run_probe(tmp_path: Path, conf_import: str, conf_arg: str) -> subprocess.CompletedProcess[str]:
    package = tmp_path / "returnspkg"
    package.mkdir()
    (package / "__init__.py").write_text(_INIT.format(conf_import=conf_import, conf_arg=conf_arg))
    (package / "mod.py").write_text(_MODULE)
    return subprocess.run(
        [sys.executable, "-W", "error", "-c", _CHECK],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_public_function_with_wrong_type_raises_a_violation() -> None:
    with pytest.raises(BeartypeCallHintParamViolation):
        count_tokens(123)  # type: ignore[arg-type]  # deliberately wrong, to prove the claw is on


def test_returns_decorated_functions_work_under_our_claw_conf(tmp_path: Path) -> None:
    done = _run_probe(tmp_path, "from thrift_fp._beartype import CLAW_CONF", "conf=CLAW_CONF")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_default_claw_conf_would_break_them(tmp_path: Path) -> None:
    # Guards the reason for our configuration: the default places @beartype outermost.
    done = _run_probe(tmp_path, "", "")
    assert done.returncode != 0
