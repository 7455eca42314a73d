"""onnxruntime with its telemetry off: nothing written outside the index, nothing queued for upload.

onnxruntime (1.32, Linux) creates a telemetry store the first time a process uses it: a
``deviceid`` file and an ``onnxruntime.db`` of queued events ("ProcessInfo" and the like) in
``Microsoft/DeveloperTools/.onnxruntime`` under the user's cache folder (``$XDG_CACHE_HOME`` or
``~/.cache``), and with a read-only cache it prints "Failed to persist telemetry device ID".
Its ``ORT_DISABLE_TELEMETRY`` switch turns all of that off, but only when it is set before
onnxruntime is imported: `private_onnxruntime` sets it, then imports. When the caller's own code
imported onnxruntime first, the events are still turned off (``disable_telemetry_events``), but
the store may already exist: that part is the caller's (docs/dense.md, "Privacy").
"""

from __future__ import annotations

import os
import sys
from types import ModuleType
from typing import Final

TELEMETRY_SWITCH: Final = "ORT_DISABLE_TELEMETRY"


def private_onnxruntime() -> ModuleType:
    """onnxruntime, imported with its telemetry turned off (see the module docstring).

    >>> private_onnxruntime().__name__
    'onnxruntime'
    """
    if "onnxruntime" not in sys.modules:
        # Read once, when the library loads: afterwards setting it changes nothing.
        os.environ[TELEMETRY_SWITCH] = "1"
    import onnxruntime

    onnxruntime.disable_telemetry_events()
    module: ModuleType = onnxruntime  # untyped: the extra ships no stubs
    return module
