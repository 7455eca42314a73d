"""The one beartype configuration the package is checked with."""

from __future__ import annotations

from typing import Final

from beartype import BeartypeConf, BeartypeDecorPlace

# FIRST puts @beartype innermost: returns' decorators (@safe, @curry, ...) then wrap
# an already-checked function. Outermost, beartype would check the wrapper's
# signature and break them. Decorator exceptions are already errors, not warnings.
CLAW_CONF: Final = BeartypeConf(
    claw_decor_place_func=BeartypeDecorPlace.FIRST,
    warning_cls_on_decorator_exception=None,
)
