"""The default model prepared once for processes that embed one question (issue 35).

The shipped int8 model costs a one-question ``thrift-fp ask`` ~110 ms of CPU before its vector:
either onnxruntime optimises the graph (~200 ms to build, ~4 per run: it folds every weight's
dequantisation into float32 constants and packs them), or it skips that and dequantises every
weight on each run (~55 ms to build, ~55 per run). onnxruntime can save the graph it optimised,
with its weights in a separate file; loaded from there without optimising again, the session
maps the weights instead of computing them: ~60 ms to build, ~4 per run, and the hidden states
are the optimised session's own, bit for bit (BENCHMARKS.md §21).

So an application that names a cache folder (`use_model_cache`; the command line gives its own)
keeps one such copy per model, onnxruntime version and machine, in ``models/``: made by the first
process that needs it, from the model file verified against its pinned SHA-256, and about 90 MB
(float32 weights). A copy is used only when its folder and files are this user's and writable by
no one else, its manifest names the same model, onnxruntime and machine, and the session built
from it answers a fixed probe with the exact hidden state recorded when the copy was made; else
it is made again. The library alone writes no file.

What the manifest pins is each file's identity as it was checked (inode, size, and the change
time, which every write or permission change moves and no tool sets back), not a digest of 90 MB:
hashing the weights would cost most of what the copy saves, and the probe reads every weight of
every layer but only a few rows of the vocabulary's table. So a copy changed in place or replaced
is made again; damage beneath the file system (a failing disk) is not looked for, as it is not for
the index itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

# The scheme of a prepared copy; a manifest of another scheme is not read.
RULE: Final = "thrift-fp prepared model 1"
GRAPH: Final = "model.onnx"
WEIGHTS: Final = "weights.bin"
MANIFEST: Final = "prepared.json"
# Word piece ids of "[CLS] shedding drops the lowest score [SEP]" in the shipped vocabulary's
# range: a fixed input whose hidden state identifies the weights that answer it.
PROBE: Final = (101, 15015, 9010, 1996, 7290, 3556, 102)
# A copy for another onnxruntime or machine is removed once it is this old (seconds: a week).
STALE_AFTER: Final = 7 * 24 * 3600
# A copy half made this long ago (seconds) was left by a killed process: making one takes seconds.
ABANDONED_AFTER: Final = 600

# Where the application keeps its cache (a function, called only when a copy is looked for);
# empty: no cache, no file written. One slot, replaced by `use_model_cache`.
_folder: list[Callable[[], Path]] = []


def use_model_cache(folder: Callable[[], Path] | None) -> None:
    """Keep prepared copies of the shipped model under ``folder()`` (in ``models/``) from now on,
    for processes that embed one question and exit (``None``: stop). ``folder`` is called only
    when such a process loads the model.

    >>> import tempfile, pathlib
    >>> use_model_cache(lambda: pathlib.Path(tempfile.mkdtemp()))
    >>> model_cache_folder() is not None
    True
    >>> use_model_cache(None)
    >>> model_cache_folder() is None
    True
    """
    _folder.clear()
    if folder is not None:
        _folder.append(folder)


def model_cache_folder() -> Path | None:
    """The folder `use_model_cache` named (``models`` inside it), or ``None``."""
    return _folder[0]() / "models" if _folder else None


def entry_name(sha256: str, runtime_version: str, machine: str) -> str:
    """The folder of one prepared copy: the model, the onnxruntime that optimised it, the machine.

    >>> entry_name("ab" * 32, "1.20.1", "x86_64")
    'abababababababab-onnxruntime-1.20.1-x86_64'
    """
    return f"{sha256[:16]}-onnxruntime-{runtime_version}-{machine}"


def prepared_session(
    onnxruntime: Any, source: Path, sha256: str, options: Callable[[bool], Any], folder: Path | None
) -> Any | None:
    """A session for one question of the model at ``source`` (which must hash to ``sha256``),
    whose hidden states are the optimised session's own: from its prepared copy in ``folder``, or,
    when there is none or it is not trusted, optimised from ``source`` while a new copy is saved
    there (nothing saved without a ``folder``). ``options(optimize)`` makes the session options.
    ``None`` when the model cannot be read, verified or loaded (the caller loads it its own way
    and reports what it meets).

    >>> import pathlib
    >>> prepared_session(None, pathlib.Path("/nonexistent.onnx"), "0" * 64, lambda optimize: None, None) is None
    True
    """
    version = str(getattr(onnxruntime, "__version__", ""))
    entry = None if folder is None else folder / entry_name(sha256, version, platform.machine())
    manifest = _manifest(sha256, version)
    if entry is not None:
        _sweep(entry.parent)
        session = _load(onnxruntime, entry, manifest, options)
        if session is not None:
            return session
    try:
        data = source.read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != sha256:
        return None
    return _prepare(onnxruntime, data, entry, manifest, options)


def _manifest(sha256: str, runtime_version: str) -> dict[str, object]:
    return {"rule": RULE, "source_sha256": sha256, "onnxruntime": runtime_version, "machine": platform.machine()}


def _load(onnxruntime: Any, entry: Path, manifest: dict[str, object], options: Callable[[bool], Any]) -> Any | None:
    """The session of the prepared copy in ``entry``, or ``None`` when it is missing or untrusted."""
    if not all(_private(path, directory) for path, directory in (
        (entry, True), (entry / GRAPH, False), (entry / WEIGHTS, False), (entry / MANIFEST, False),
    )):
        return None
    try:
        recorded = json.loads((entry / MANIFEST).read_text(encoding="utf-8"))
        probe, files = str(recorded.pop("probe_sha256")), recorded.pop("files")
        if recorded != manifest or files != _identities(entry):
            return None
        # The weights are mapped, not read: the graph names them by their file, beside it.
        session = onnxruntime.InferenceSession(str(entry / GRAPH), options(False), providers=["CPUExecutionProvider"])
        return session if _probe(session) == probe else None
    except Exception:  # noqa: BLE001 - a damaged copy (bad JSON, a graph onnxruntime refuses) is made again
        return None


def _prepare(
    onnxruntime: Any, data: bytes, entry: Path | None, manifest: dict[str, object], options: Callable[[bool], Any]
) -> Any | None:
    """The session optimised from ``data``, saving its graph and weights as a new copy in ``entry``
    (kept only when a session loaded from the copy answers the probe exactly as this one)."""
    work: Path | None = None
    if entry is not None:
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            work = Path(tempfile.mkdtemp(prefix=".prepare-", dir=entry.parent))  # this user's alone (0700)
        except OSError:
            work = None
    chosen = options(True)
    # Not ORT_ENABLE_ALL: its layout transformations may suit only the CPU that made them.
    chosen.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    if work is not None:
        chosen.optimized_model_filepath = str(work / GRAPH)
        chosen.add_session_config_entry("session.optimized_model_external_initializers_file_name", WEIGHTS)
        chosen.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    try:
        session = onnxruntime.InferenceSession(data, chosen, providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001 - the caller loads the model its own way and reports what it meets
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
        return None
    if work is not None and entry is not None:
        _keep(onnxruntime, session, work, entry, manifest, options)
    return session


def _keep(
    onnxruntime: Any, session: Any, work: Path, entry: Path, manifest: dict[str, object], options: Callable[[bool], Any]
) -> None:
    # A cache that cannot be written, or a copy that does not answer as the session that saved
    # it, is only a slower next start: nothing is raised, nothing half-made is left.
    try:
        probe = _probe(session)
        copy = onnxruntime.InferenceSession(str(work / GRAPH), options(False), providers=["CPUExecutionProvider"])
        if _probe(copy) != probe:
            raise ValueError("the saved copy answers the probe differently")
        del copy  # onnxruntime maps the weights file: released before the folder moves
        shown = manifest | {"probe_sha256": probe, "files": _identities(work)}
        (work / MANIFEST).write_text(json.dumps(shown), encoding="utf-8")
        if entry.exists() or entry.is_symlink():
            _remove(entry)  # a copy that was not trusted (or another version's leftovers)
        os.rename(work, entry)  # the whole copy appears at once; another process's rename may win
    except Exception:  # noqa: BLE001 - see above
        shutil.rmtree(work, ignore_errors=True)
        return
    _prune(entry)


def _prune(entry: Path) -> None:
    """Remove the copies of this model for another onnxruntime or machine made over `STALE_AFTER`
    seconds ago (~90 MB each): left by an upgrade. A younger one may belong to another installation
    sharing the cache folder, in use: removing it would make the two remake each other's copies
    on every run; so each is made again at most once in that time."""
    now = time.time()
    for other in _listed(entry.parent):
        if other.name == entry.name or not other.name.startswith(entry.name[:17]) or other.name.startswith("."):
            continue
        try:
            made = (other / MANIFEST).lstat().st_mtime if (other / MANIFEST).exists() else other.lstat().st_mtime
        except OSError:
            continue
        if now - made > STALE_AFTER:
            _remove(other)


def _sweep(folder: Path) -> None:
    """Remove what a process killed while making a copy left (a ``.prepare-`` folder, up to ~90 MB)
    once no process can still be writing it (`ABANDONED_AFTER`)."""
    now = time.time()
    for other in _listed(folder):
        try:
            if other.name.startswith(".prepare-") and now - other.lstat().st_mtime > ABANDONED_AFTER:
                _remove(other)
        except OSError:
            continue


def _listed(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []  # no folder yet, or one this process may not read: nothing to tidy


def _remove(path: Path) -> None:
    # Tidying never fails a search: what cannot be removed now is left for a later run.
    try:
        if path.is_symlink() or not path.is_dir():
            path.unlink(missing_ok=True)
        else:
            shutil.rmtree(path, ignore_errors=True)
    except OSError:
        pass


def _identities(entry: Path) -> dict[str, list[int]]:
    """Each file of a copy as the file system knows it: any write, replacement or chmod changes it."""
    shown: dict[str, list[int]] = {}
    for name in (GRAPH, WEIGHTS):
        status = (entry / name).lstat()
        shown[name] = [status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns]
    return shown


def _probe(session: Any) -> str:
    """The SHA-256 of the session's hidden state for `PROBE`: equal only for equal weights and graph."""
    import numpy as np  # noqa: PLC0415 - the extra's, loaded with onnxruntime

    ids = np.array([PROBE], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    if "token_type_ids" in {node.name for node in session.get_inputs()}:
        feeds["token_type_ids"] = np.zeros_like(ids)
    (hidden,) = session.run(["last_hidden_state"], feeds)
    return hashlib.sha256(np.ascontiguousarray(hidden, dtype="<f4").tobytes()).hexdigest()


def _private(path: Path, directory: bool) -> bool:
    """Whether ``path`` is a real folder (or file) of this user's that no one else may write."""
    try:
        status = path.lstat()
    except OSError:
        return False
    kind = stat.S_ISDIR(status.st_mode) if directory else stat.S_ISREG(status.st_mode)
    mine = not hasattr(os, "getuid") or status.st_uid == os.getuid()
    return kind and mine and not status.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
