"""Seed 003's ``artifactConstructor``: the caller's resolver that builds a record's spooled artifact.

A resolver is any callable ``(reader, byte_length_hint, line_count_hint) -> SpooledArtifact``;
``SpooledArtifact`` itself and every subclass of it qualify, so a subclass (a PDF artifact with
its own views, say) is passed as is. ``spool_retrievable`` calls it when it auto-spools a
record, and ``from_snapshot`` calls the same resolver (passed by the caller: a snapshot holds data,
never code) to rebuild the artifact, so the type survives a round trip. The resolver is user code:
a raise, or a result that is not a valid ``SpooledArtifact``, is an ``ArtifactConstructorFailed``.
"""

from __future__ import annotations

from collections.abc import Callable

from returns.result import Failure, Result, Success

from thrift_fp._shown import shown, shown_exception
from thrift_fp.records._artifact import SpooledArtifact
from thrift_fp.records._errors import ArtifactConstructorFailed
from thrift_fp.records._reader import SpoolReader

ArtifactConstructor = Callable[[SpoolReader, int | None, int | None], SpooledArtifact]
"""Builds the artifact for a stored body from its reader and size hints."""

# Size hints are byte and line counts of a stored body: no store holds 2**63 bytes.
MAX_HINT = 2**63 - 1


def hint_problem(name: str, hint: object) -> str | None:
    """Why ``hint`` is not a valid size hint (``None`` when it is: absent, or an int in range).

    >>> hint_problem("byte_length_hint", 7), hint_problem("byte_length_hint", 2**1024)
    (None, 'byte_length_hint must be an int in [0, 2**63 - 1] or None, got an int of 1025 bits (too long to print)')
    """
    if hint is None or (type(hint) is int and 0 <= hint <= MAX_HINT):
        return None
    return f"{name} must be an int in [0, 2**63 - 1] or None, got {shown(hint)}"


def constructor_name(constructor: ArtifactConstructor) -> str:
    """The resolver's qualified name, as written in snapshots (informative only: never imported).

    >>> constructor_name(SpooledArtifact)
    'thrift_fp.records._artifact.SpooledArtifact'
    """
    module = getattr(constructor, "__module__", None)
    name = getattr(constructor, "__qualname__", None) or type(constructor).__qualname__
    return f"{module}.{name}" if isinstance(module, str) and isinstance(name, str) else str(type(constructor).__qualname__)


def build_artifact(
    record_id: str,
    constructor: ArtifactConstructor,
    reader: SpoolReader,
    byte_length_hint: int | None,
    line_count_hint: int | None,
) -> Result[SpooledArtifact, ArtifactConstructorFailed]:
    """``constructor(reader, byte_length_hint, line_count_hint)``, checked.

    >>> from thrift_fp.records import MemoryStore
    >>> class Pdf(SpooledArtifact):
    ...     pass
    >>> reader = MemoryStore().write("doc", "x").unwrap()
    >>> type(build_artifact("doc", Pdf, reader, 1, 1).unwrap()).__name__
    'Pdf'
    >>> build_artifact("doc", lambda r, b, n: "text", reader, 1, 1).failure().message
    "artifact constructor for retrievable 'doc' failed: returned str, not a SpooledArtifact"
    """
    try:
        built: object = constructor(reader, byte_length_hint, line_count_hint)
    except Exception as exc:  # noqa: BLE001 - the resolver is a user callback; keep the cause
        return Failure(ArtifactConstructorFailed(record_id, f"raised {shown_exception(exc)}", exc))
    if not isinstance(built, SpooledArtifact):
        return Failure(ArtifactConstructorFailed(record_id, f"returned {type(built).__qualname__}, not a SpooledArtifact"))
    for name, hint in (("byte_length_hint", built.byte_length_hint), ("line_count_hint", built.line_count_hint)):
        problem = hint_problem(name, hint)
        if problem is not None:
            return Failure(ArtifactConstructorFailed(record_id, f"returned an artifact whose {problem}"))
    return Success(built)
