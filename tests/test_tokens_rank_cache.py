"""The parsed-vocabulary cache (issue 35): pinned to the verified vocabulary, used only where the
application names a folder (the command line does), and a faster start where it is."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from returns.result import Failure

from thrift_fp.tokens import _vocabulary
from thrift_fp.tokens._rank_cache import ranks_bytes, store_ranks, use_rank_cache
from thrift_fp.tokens._vocabulary import BUNDLED, bundled_vocabulary_bytes, parse_ranks, verified_ranks


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_the_pinned_ranks_digest_is_that_of_the_verified_vocabulary(name: str) -> None:
    # The chain a cache file is trusted by: tiktoken's pinned SHA-256 of the vocabulary, its
    # parsed ranks, their cache form, the digest pinned beside it.
    data = bundled_vocabulary_bytes(name).unwrap()
    assert hashlib.sha256(data).hexdigest() == BUNDLED[name].sha256
    form = ranks_bytes(parse_ranks(name, data).unwrap())
    assert form is not None and hashlib.sha256(form).hexdigest() == BUNDLED[name].ranks_sha256


def test_the_library_alone_keeps_no_cache(tmp_path: Path) -> None:
    use_rank_cache(None)
    assert verified_ranks("cl100k_base").unwrap()
    assert not store_ranks("cl100k_base", BUNDLED["cl100k_base"].ranks_sha256, {b"a": 0})


def test_a_named_folder_is_written_once_then_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_rank_cache(lambda: tmp_path)
    try:
        first = verified_ranks("cl100k_base").unwrap()
        (written,) = (tmp_path / "vocabularies").iterdir()
        assert hashlib.sha256(written.read_bytes()).hexdigest() == BUNDLED["cl100k_base"].ranks_sha256

        def unreachable(name: str) -> Failure[object]:
            raise AssertionError("the vocabulary was read although the cache holds it")

        monkeypatch.setattr(_vocabulary, "bundled_vocabulary_bytes", unreachable)
        assert verified_ranks("cl100k_base").unwrap() == first
    finally:
        use_rank_cache(None)


def test_a_cache_folder_that_cannot_be_written_is_only_slower(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    use_rank_cache(lambda: blocked)
    try:
        assert len(verified_ranks("o200k_base").unwrap()) == 199998
    finally:
        use_rank_cache(None)


def test_the_command_keeps_the_ranks_in_its_cache_folder(tmp_path: Path) -> None:
    note = tmp_path / "note.txt"
    note.write_text("three tokens here")
    env = {**os.environ, "THRIFT_FP_CACHE_DIR": str(tmp_path / "cache")}
    for _ in range(2):  # the second run reads what the first wrote
        done = subprocess.run([sys.executable, "-m", "thrift_fp", "count", str(note)],
                              capture_output=True, text=True, env=env, check=True)
        assert done.stdout.strip() == "3"
    assert [path.name for path in (tmp_path / "cache" / "vocabularies").iterdir()] == [
        f"cl100k_base-{BUNDLED['cl100k_base'].ranks_sha256[:16]}.ranks"
    ]
