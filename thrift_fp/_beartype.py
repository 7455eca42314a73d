"""How the package is type-checked at run time (see docs/surface.md, "Run-time type checking").

Two levels. Under the test suite ``conftest.py`` installs the beartype claw over the whole
package (`claw_conf`) before anything imports it. In production each public function
is checked at its boundary: `check_public` wraps the functions a subpackage exports, and
each wrapper builds its beartype checker on its first call, so ``import thrift_fp`` pays
nothing for functions it never calls (decorating them all at import cost about 0.1 s).
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable, Iterable, MutableMapping
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from beartype import BeartypeConf


def claw_conf() -> BeartypeConf:
    """The one beartype configuration: the claw's (``conftest.py``) and every `checked` wrapper's.

    FIRST puts @beartype innermost: returns' decorators (@safe, @curry, ...) then wrap an
    already-checked function. Outermost, beartype would check the wrapper's signature and break
    them. Decorator exceptions are already errors, not warnings. Built on first use: importing
    beartype loads its whole decorator machinery (about 320 modules, some 50 ms), which a
    process pays only when it first calls a checked function, not when it imports a package.

    >>> claw_conf() is claw_conf(), claw_conf().warning_cls_on_decorator_exception
    (True, None)
    """
    if not _conf:
        from beartype import BeartypeConf, BeartypeDecorPlace  # noqa: PLC0415 - on first use (see above)

        _conf.append(BeartypeConf(
            claw_decor_place_func=BeartypeDecorPlace.FIRST,
            warning_cls_on_decorator_exception=None,
        ))
    return _conf[0]


_conf: Final[list[BeartypeConf]] = []


def checked(function: Callable[..., Any], public_module: str) -> Callable[..., Any]:
    """``function``, type-checked by beartype from its first call on (and named as exported).

    >>> def half(value: int) -> float:
    ...     return value / 2
    >>> safe_half = checked(half, "example")
    >>> safe_half(4), safe_half.__module__
    (2.0, 'example')
    >>> safe_half("4")
    Traceback (most recent call last):
    ...
    beartype.roar.BeartypeCallHintParamViolation: ...
    """
    # The checker is built on first use: beartype decorating every public function at
    # import was most of the cost of ``import thrift_fp`` for functions a caller never uses.
    built: list[Callable[..., Any]] = []

    def checker() -> Callable[..., Any]:
        if not built:
            from beartype import beartype  # noqa: PLC0415 - its decorator machinery is imported on first call

            built.append(beartype(conf=claw_conf())(function))
        return built[0]

    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def call_async(*args: Any, **kwargs: Any) -> Any:
            return await checker()(*args, **kwargs)

        wrapper: Callable[..., Any] = call_async
    else:

        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            return checker()(*args, **kwargs)

        wrapper = call
    # Pickle (and multiprocessing) find a function by module and name: point them at the export.
    wrapper.__module__ = public_module
    _wrapper_codes.add(wrapper.__code__)
    return wrapper


# The code objects of `checked`'s wrappers, so that `check_public` never wraps twice.
_wrapper_codes: Final[set[types.CodeType]] = set()


def check_public(namespace: MutableMapping[str, Any], names: Iterable[str]) -> None:
    """Replace each function among ``names`` in a package's ``namespace`` by its `checked` form.

    Called at the end of each subpackage's ``__init__`` with its ``globals()`` and ``__all__``;
    internal calls keep using the unwrapped functions (their inputs were checked at the boundary):
    the package's own modules import each from its home, not from the face
    (``tests/test_internal_calls_unchecked.py``).
    A function beartype already checks (the claw, under the test suite) is left as it is.

    >>> space = {"__name__": "pkg", "double": lambda value: value * 2, "LIMIT": 3}
    >>> check_public(space, ["double", "LIMIT"])
    >>> once = space["double"]
    >>> check_public(space, ["double"])
    >>> space["double"] is once, once(2), space["LIMIT"], once.__wrapped__(3)
    (True, 4, 3, 6)
    """
    module = str(namespace["__name__"])
    for name in names:
        value = namespace[name]
        if not isinstance(value, types.FunctionType):
            continue
        if value.__code__ not in _wrapper_codes and not hasattr(value, "__beartype_wrapper"):
            namespace[name] = checked(value, module)
