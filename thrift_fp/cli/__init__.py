"""The ``thrift-fp`` command line (needs the ``cli`` extra: typer, rich, platformdirs).

Only this package imports those libraries; the library core never does.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from thrift_fp.cli._app import app, app_for

__all__ = ["app", "entry", "main", "run"]


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
        # The command named first is the only one typer builds (`app_for`).
        app_for(argv)(args=list(argv), prog_name="thrift-fp")
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except Exception as exc:  # noqa: BLE001 - last line of defence: one line, never a traceback
        print(_internal_error_line(exc, argv), file=sys.stderr)
        return 70
    return 0


def _internal_error_line(error: Exception, argv: Sequence[str]) -> str:
    """The operator's one line for a bug: the exception's type and text, without the password of
    any database URL the command was given (argument or environment) nor any URL's password.

    >>> _internal_error_line(KeyError("postgresql://ann:pw1@db/x"), ["ask", "--db", "host=db password=pw1"])
    "thrift-fp: internal error: KeyError: 'postgresql://ann:***@db/x'"
    >>> _internal_error_line(ValueError("bad: host=db password='a b' dbname=x"), ["--db", "host=db password='a b' dbname=x"])
    'thrift-fp: internal error: ValueError: bad: host=db password=*** dbname=x'

    """
    import os  # noqa: PLC0415 - only a crash needs these

    from thrift_fp._scrub import scrubbed  # noqa: PLC0415
    from thrift_fp.sources.postgres import is_database_url, redact  # noqa: PLC0415

    try:
        text = str(error)
    except Exception:  # noqa: BLE001 - an exception's __str__ may raise
        text = ""
    # A database the command was given, shown whole in the text, is shown redacted.
    for value in (*argv, os.environ.get("THRIFT_FP_DATABASE_URL", "")):
        if value and is_database_url(value):
            text = text.replace(value, redact(value))
    return scrubbed(f"thrift-fp: internal error: {type(error).__name__}: {text}")


def main() -> None:
    """Run the command ``sys.argv`` names and exit with its status, by ``SystemExit``: for a caller
    that goes on in its own process (the ``thrift-fp`` script and ``python -m thrift_fp`` use
    `entry`, which also skips the interpreter's teardown).

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
    sys.exit(_status(sys.argv[1:]))


def entry() -> None:
    """The process's entry point: the ``thrift-fp`` script and ``python -m thrift_fp`` (`main`
    is for a caller in a process of its own). Once the command is done, the process leaves
    without the interpreter's teardown, which frees every module and object one by one: ~70-90 ms
    of a one-question ``thrift-fp ask`` (BENCHMARKS.md §21, seventh pass). It leaves as the
    interpreter would otherwise: after its threads are done and the exit handlers registered
    since have run (`_leave`, registered first, runs last), logging shut down and the output
    flushed, with the command's exit status (120 when the output cannot be flushed, as Python
    does). ``serve``, a process that loaded psycopg (a PostgreSQL database) or coverage, and one
    being traced or profiled, exit the usual way: their transports, connections and measurements
    are closed and saved by their own objects and exit handlers.

    >>> import pathlib, subprocess, sys, tempfile
    >>> note = pathlib.Path(tempfile.mkdtemp()) / "note.txt"
    >>> _ = note.write_text("three tokens here")
    >>> done = subprocess.run([sys.executable, "-m", "thrift_fp", "count", str(note)], capture_output=True, text=True)
    >>> done.returncode, done.stdout
    (0, '3\\n')
    """
    import atexit  # noqa: PLC0415 - only the process entry needs it

    done: list[int] = []
    if sys.argv[1:2] != ["serve"]:
        # A server's exit waits on no one; its transports flush as their own objects close.
        atexit.register(_leave, done)
    status = _status(sys.argv[1:])
    done.append(status)
    sys.exit(status)


def _status(argv: Sequence[str]) -> int:
    """`run` ``argv``, with numpy's OpenBLAS on one thread unless the user chose."""
    if "numpy" not in sys.modules:
        # The command multiplies small matrices at most (one question against the index's vectors):
        # OpenBLAS's thread per core, started as numpy loads, would only spin beside the work
        # (~100 ms of CPU a hybrid `ask` needs on its other core; BENCHMARKS.md §21). The user's
        # own setting wins.
        import os  # noqa: PLC0415 - only the console entry needs it

        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    return run(argv)


# Modules whose presence leaves the process to the interpreter's own exit (`_leave`).
_USUAL_EXIT = frozenset({"psycopg", "coverage"})


def _leave(done: Sequence[int]) -> None:
    """The last exit handler of `entry`'s process: end it at once with the command's status.

    Nothing when the command did not return (an exception escaped: the interpreter reports it),
    psycopg or coverage is loaded, or a tracer or profiler is set; logging was set up before
    `entry` registered this, so its shutdown (which flushes its handlers) is called here.
    """
    import logging  # noqa: PLC0415 - loaded already (thrift_fp adds its NullHandler)
    import os  # noqa: PLC0415

    # psycopg's connections close on their own teardown; a coverage or profiling tool saves what
    # it measured in an exit handler of its own, registered before this one.
    if not done or _USUAL_EXIT.intersection(sys.modules) or sys.gettrace() is not None or sys.getprofile() is not None:
        return
    logging.shutdown()
    status = done[0]
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        status = 120  # Python's own status when standard output cannot be flushed at exit
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(status)
