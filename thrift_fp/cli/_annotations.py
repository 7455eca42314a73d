"""Names the commands' annotations use, bound on first use (PEP 562).

A command module imports the library inside its functions, so that ``--help`` loads only typer
(docs/surface.md, "Cold start"). Its annotations still name library types; beartype (under the
test suite) resolves such a string annotation by ``getattr`` on the module, which reaches the
module's ``__getattr__``: `lazy_names` makes one from a table of homes.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_names(module: str, homes: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` that imports each of ``homes``' names (name → module) on use.

    >>> get = lazy_names("example", {"tau": "math"})
    >>> round(get("tau"), 2)
    6.28
    >>> get("pi")
    Traceback (most recent call last):
    ...
    AttributeError: module 'example' has no attribute 'pi'
    """

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        return getattr(importlib.import_module(home), name)

    return __getattr__
