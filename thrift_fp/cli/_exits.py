"""How a command ends: an error value as one line on standard error (exit status 1), a usage
error (exit status 2, click's), and the checks every command makes before it starts."""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

import typer

from thrift_fp.cli._annotations import lazy_names

if TYPE_CHECKING:  # for mypy; at run time __getattr__ below binds it on first use
    from thrift_fp._errors import ThriftFpError

# beartype (under the test suite) resolves `fail`'s annotation by getattr on this module.
__getattr__ = lazy_names(__name__, {"ThriftFpError": "thrift_fp._errors"})


# `fit` whose working set does not fit, `ask` whose budget cannot carry one passage (docs/surface.md).
DOES_NOT_FIT = 3


def fail(error: ThriftFpError, status: int = 1) -> NoReturn:
    message = " ".join(error.message.split())
    typer.echo(f"thrift-fp: error: {message}", err=True)
    raise typer.Exit(status)


def usage_error(message: str) -> NoReturn:
    # click's own usage error: the usage line, a pointer to --help, and exit status 2.
    # typer.main's import of its vendored click's get_current_context (not re-exported).
    from typer.main import get_current_context  # type: ignore[attr-defined]  # noqa: PLC0415

    get_current_context().fail(message)
    raise AssertionError("click's Context.fail raises")  # for the type checker: fail() is NoReturn


def check_encoding(encoding: str) -> None:
    # Result and ThriftFpError name the annotated locals below, which beartype's claw checks
    # under the test suite (it evaluates their hints in this function's scope).
    from returns.result import Failure, Result  # noqa: PLC0415 - the library loads on use (module docstring)

    from thrift_fp._errors import ThriftFpError  # noqa: PLC0415
    from thrift_fp.cli._paths import cache_dir  # noqa: PLC0415 - _paths imports this module
    from thrift_fp.tokens._encoding import get_encoding  # noqa: PLC0415
    from thrift_fp.tokens._rank_cache import use_rank_cache  # noqa: PLC0415

    # A command counts once and exits: the vocabulary's parsed ranks come from the cache folder
    # (verified against a pinned digest; about 50 ms less per process than parsing them again).
    use_rank_cache(cache_dir)
    checked: Result[object, ThriftFpError] = get_encoding(encoding)
    if isinstance(checked, Failure):
        fail(checked.failure())
