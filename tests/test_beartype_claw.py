"""The beartype claw covers the package under the suite, without breaking returns' decorators;
in production every public function is checked at its boundary."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest
from beartype import beartype
from beartype.roar import BeartypeCallHintParamViolation

import thrift_fp
from thrift_fp import count_tokens

# Loaded by conftest.py to build the claw, so before it: the only modules it cannot cover.
_BEFORE_THE_CLAW = {"thrift_fp", "thrift_fp._beartype"}

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
    done = _run_probe(tmp_path, "from thrift_fp._beartype import claw_conf", "conf=claw_conf()")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_default_claw_conf_would_break_them(tmp_path: Path) -> None:
    # Guards the reason for our configuration: the default places @beartype outermost.
    done = _run_probe(tmp_path, "", "")
    assert done.returncode != 0


def _package_modules() -> list[types.ModuleType]:
    names = [info.name for info in pkgutil.walk_packages(thrift_fp.__path__, "thrift_fp.")]
    return [importlib.import_module(name) for name in ["thrift_fp", *names]]


def test_the_claw_covers_every_function_of_the_package() -> None:
    unchecked: list[str] = []
    checked = 0
    for module in _package_modules():
        if module.__name__ in _BEFORE_THE_CLAW:
            continue
        for name, value in vars(module).items():
            if inspect.isfunction(value) and value.__module__ == module.__name__:
                if getattr(value, "__beartype_wrapper", False):
                    checked += 1
                elif beartype(value) is value:
                    # Every hint ignorable (``object``, an unbounded TypeVar): beartype itself
                    # returns such a function as it is, claw or not; there is nothing to check.
                    continue
                elif getattr(value, "__no_type_check__", False):
                    # Deliberately unchecked hot-path code (thrift's per-item internals):
                    # it runs on data validated once at the public boundary, as its comments say.
                    assert module.__name__.startswith("thrift_fp.thrift."), module.__name__
                else:
                    unchecked.append(f"{module.__name__}.{name}")
    assert not unchecked, unchecked
    assert checked > 200


def test_private_functions_are_checked_under_the_suite() -> None:
    from thrift_fp.records._lines import strip_line_end  # noqa: PLC0415 - a private module on purpose

    with pytest.raises(BeartypeCallHintParamViolation):
        strip_line_end(b"a\n")  # type: ignore[arg-type]  # deliberately wrong


_PRODUCTION = textwrap.dedent(
    """
    import sys
    import thrift_fp
    # import thrift_fp alone imports no subpackage, no optional dependency, not the claw
    loaded = sorted(m for m in sys.modules if m.startswith(("thrift_fp.", "beartype.claw", "typer", "rich")))
    assert loaded == [], loaded
    from thrift_fp import count_tokens
    from thrift_fp.records._lines import strip_line_end
    try:
        count_tokens(123)
    except Exception as error:
        print(type(error).__name__)
    # private functions are not checked in production: the wrong type reaches the code
    try:
        strip_line_end(b"a\\n")
    except Exception as error:
        print("unchecked", "Beartype" not in type(error).__name__)
    else:
        print("unchecked", True)
    print("beartype.claw" in sys.modules)
    # the checked export pickles by reference, as multiprocessing needs
    import pickle
    print(pickle.loads(pickle.dumps(count_tokens)) is count_tokens)
    """
)


_EVERY_PUBLIC_FUNCTION = textwrap.dedent(
    """
    import importlib, types
    from thrift_fp._beartype import _wrapper_codes
    unchecked, checked = [], 0
    for name in ("tokens", "records", "retrieval", "thrift", "render", "sources"):
        package = importlib.import_module(f"thrift_fp.{name}")
        for export in package.__all__:
            value = getattr(package, export)
            if isinstance(value, types.FunctionType):
                if value.__code__ in _wrapper_codes:
                    checked += 1
                else:
                    unchecked.append(f"{name}.{export}")
    print(checked, unchecked)
    """
)


def test_production_wraps_every_exported_function() -> None:
    done = subprocess.run([sys.executable, "-c", _EVERY_PUBLIC_FUNCTION], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    checked, unchecked = done.stdout.split(" ", 1)
    assert unchecked.strip() == "[]" and int(checked) >= 40, done.stdout


def test_production_checks_public_functions_and_loads_lazily() -> None:
    done = subprocess.run([sys.executable, "-c", _PRODUCTION], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["BeartypeCallHintParamViolation", "unchecked", "True", "False", "True"]
