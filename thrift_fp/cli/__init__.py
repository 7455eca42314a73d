"""The ``thrift-fp`` command line (needs the ``cli`` extra: typer, rich, platformdirs).

Only this package imports those libraries; the library core never does.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from thrift_fp.cli._app import app

__all__ = ["app", "main", "run"]


def run(argv: Sequence[str]) -> int:
    """Run the command with ``argv`` (without the program name) and return its exit status.

    >>> import tempfile, pathlib
    >>> note = pathlib.Path(tempfile.mkdtemp()) / "note.txt"
    >>> _ = note.write_text("hello world")
    >>> run(["count", str(note)])
    2
    0
    """
    try:
        app(args=list(argv), prog_name="thrift-fp")
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except Exception as exc:  # noqa: BLE001 - last line of defence: one line, never a traceback
        print(f"thrift-fp: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 70
    return 0


def main() -> None:
    """The console-script entry point: ``thrift-fp ...`` (also ``python -m thrift_fp``).

    >>> import sys, tempfile, pathlib
    >>> note = pathlib.Path(tempfile.mkdtemp()) / "note.txt"
    >>> _ = note.write_text("three tokens here")
    >>> sys.argv = ["thrift-fp", "count", str(note)]
    >>> try:
    ...     main()
    ... except SystemExit as exit_:
    ...     print("exit", exit_.code)
    3
    exit 0
    """
    sys.exit(run(sys.argv[1:]))
