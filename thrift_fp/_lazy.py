"""Lazy faces: a package's public names, imported from their homes on first use (PEP 562).

A face that imports every name it exports loads all of its homes, and their dependencies,
whenever anything below it is imported: Python runs a package's ``__init__`` before any of
its submodules. A lazy face binds a name only when someone asks for it, so importing
``thrift_fp.sources.postgres`` loads neither the SQLite store nor the driver until a name that
needs one is used. The face keeps a static import block under ``TYPE_CHECKING`` for mypy and
Griffe, and a `homes` table for the run time; ``tests/test_sources_stack.py`` checks they agree.

A name that leaves a face (an internal that was exported, or a name whose home is another face)
keeps working for a while: the face's ``__getattr__`` still returns it, with a
``DeprecationWarning`` saying what to import instead (`retired_face`, and ``retired=`` of
`lazy_face`). Type checkers no longer see it exported.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable, Mapping, MutableMapping
from types import FrameType, MappingProxyType
from typing import Any


def homes(modules: Mapping[str, tuple[str, ...]]) -> Mapping[str, str]:
    """Name → home module, from home module → the names a face takes from it.

    >>> dict(homes({"json": ("dumps", "loads"), "math": ("tau",)}))
    {'dumps': 'json', 'loads': 'json', 'tau': 'math'}
    """
    table: dict[str, str] = {}
    for module, names in modules.items():
        for name in names:
            if name in table:
                raise ValueError(f"{name!r} has two homes: {table[name]} and {module}")
            table[name] = module
    return MappingProxyType(table)


def _outside(frame: FrameType) -> int:
    """The ``stacklevel``, for a warning issued in ``frame``, that names the line that asked for a
    retired name: past this module's frames and the beartype wrappers around them (under the test
    suite's claw); warnings itself skips the import machinery's frames, so they are not counted."""
    level, outer = 1, frame.f_back
    while outer is not None and (outer.f_code.co_filename == __file__ or outer.f_code.co_filename.startswith("<@beartype")):
        level += 1
        outer = outer.f_back
    return level + 1


def _retired(module: str, name: str, home: str, advice: str) -> Any:
    """``name`` from ``home``, warning that ``module`` no longer exports it."""
    warnings.warn(
        f"{module}.{name} is no longer public there: {advice}; the old import will be removed in a later release",
        DeprecationWarning,
        stacklevel=_outside(sys._getframe()),
    )
    return getattr(importlib.import_module(home), name)


def retired_face(module: str, retired: Mapping[str, tuple[str, str]]) -> Callable[[str], Any]:
    """The ``__getattr__`` of a face some names left: name → (its home, what to do instead).

    Each still resolves from its home, with a ``DeprecationWarning``; any other name is the usual
    ``AttributeError``. The name is not bound, so each importing module is warned.

    >>> import warnings
    >>> get = retired_face("face", {"tau": ("math", "import it from math")})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     round(get("tau"), 2)
    6.28
    >>> print(caught[0].message)
    face.tau is no longer public there: import it from math; the old import will be removed in a later release
    >>> get("pi")
    Traceback (most recent call last):
    ...
    AttributeError: module 'face' has no attribute 'pi'
    """

    def __getattr__(name: str) -> Any:
        found = retired.get(name)
        if found is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        return _retired(module, name, *found)

    return __getattr__


def lazy_face(
    namespace: MutableMapping[str, Any],
    table: Mapping[str, str],
    *,
    check: bool = False,
    retired: Mapping[str, str] = MappingProxyType({}),
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a face whose names live in ``table`` (see `homes`).

    A name is imported from its home on first use and bound in ``namespace``, so later lookups
    skip ``__getattr__``; with ``check`` a function is bound in its checked form (see
    `thrift_fp._beartype.check_public`). An unknown name is the usual ``AttributeError``. A name
    in ``retired`` (name → what to do instead) has left the face: it still resolves from its home
    in ``table``, with a ``DeprecationWarning`` (see `retired_face`), and is not bound.

    >>> space = {"__name__": "face"}
    >>> get, names = lazy_face(space, homes({"math": ("tau",)}))
    >>> round(get("tau"), 2), "tau" in space, names()
    (6.28, True, ['__name__', 'tau'])
    >>> get("pi")
    Traceback (most recent call last):
    ...
    AttributeError: module 'face' has no attribute 'pi'
    """
    module = str(namespace["__name__"])
    if set(retired) - set(table):
        raise ValueError(f"retired names without a home: {sorted(set(retired) - set(table))}")

    def __getattr__(name: str) -> Any:
        home = table.get(name)
        if home is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        if name in retired:
            return _retired(module, name, home, retired[name])
        namespace[name] = getattr(importlib.import_module(home), name)
        if check:
            # Imported here: beartype's configuration is not free, and the command line's lazy
            # modules (which never check) must not pay for it at start.
            from thrift_fp._beartype import check_public  # noqa: PLC0415

            check_public(namespace, [name])
        return namespace[name]

    def __dir__() -> list[str]:
        return sorted({*namespace, *table} - set(retired))

    return __getattr__, __dir__
