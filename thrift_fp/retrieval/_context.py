"""The context one operation runs in: the application value and its signal."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import field
from types import MappingProxyType
from typing import Generic, TypeVar

from thrift_fp._value import value
from thrift_fp.retrieval._signal import CancellationSignal

_App_co = TypeVar("_App_co", covariant=True)


@value
class OperationContext(Generic[_App_co]):
    """What every callback of a retrieval sees: ``app``, the cancellation ``signal``,
    an optional ``logger`` and optional read-only ``diagnostics``.

    >>> context = OperationContext({"can_read": True})
    >>> context.signal.aborted, context.logger, context.diagnostics
    (False, None, None)
    >>> dict(OperationContext(None, diagnostics={"trace": "t-1"}).diagnostics or {})
    {'trace': 't-1'}
    """

    app: _App_co
    signal: CancellationSignal = field(default_factory=CancellationSignal)
    logger: logging.Logger | None = None
    diagnostics: Mapping[str, object] | None = None

    def __post_init__(self) -> None:
        if self.diagnostics is not None and not isinstance(self.diagnostics, MappingProxyType):
            # A private copy: the caller's dict cannot change what callbacks see.
            object.__setattr__(self, "diagnostics", MappingProxyType(dict(self.diagnostics)))
