"""Example tests for the tokens layer."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import tiktoken

from tests._offline_vocab import seed_tiktoken_cache
from tests._support import run_together
from thrift_fp.tokens import (
    EncodingUnavailable,
    EstimatorFailed,
    EstimatorNameTaken,
    EvaluatorFailed,
    InvalidEstimatorName,
    TokenCount,
    Tokenizable,
    UnknownEncoding,
    VocabularyCorrupt,
    count_tokens,
    count_tokens_batch,
    get_encoding,
    known_encoding_names,
    register_token_estimator,
    unregister_token_estimator,
)
from thrift_fp.tokens._vocabulary import BUNDLED, bundled_vocabulary_bytes, verify_vocabulary


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_encoding_equals_tiktokens_own_constructor(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(seed_tiktoken_cache(tmp_path)))
    tiktoken.registry.list_encoding_names()  # populates the constructor table
    official = tiktoken.registry.ENCODING_CONSTRUCTORS
    assert official is not None
    spec = official[name]()
    ours = get_encoding(name).unwrap()._tiktoken
    assert ours is not None
    assert ours._pat_str == spec["pat_str"]
    assert ours._special_tokens == spec["special_tokens"]
    assert ours._mergeable_ranks == spec["mergeable_ranks"]


def test_tampered_vocabulary_is_refused() -> None:
    data = bundled_vocabulary_bytes("cl100k_base").unwrap()
    error = verify_vocabulary("cl100k_base", data + b"\n").failure()
    assert isinstance(error, VocabularyCorrupt)
    assert error.expected_sha256 == BUNDLED["cl100k_base"].sha256
    assert error.actual_sha256 != error.expected_sha256
    assert "failed verification" in error.message
    assert isinstance(verify_vocabulary("cl100k_base", data).unwrap(), bytes)


def test_other_encoding_works_from_tiktokens_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # o200k_harmony is built by tiktoken from the o200k_base file in its cache.
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(seed_tiktoken_cache(tmp_path)))
    harmony = get_encoding("o200k_harmony").unwrap()
    assert harmony.precision == "exact"
    assert harmony.count("hello world").unwrap() == count_tokens("hello world", "o200k_base").unwrap().tokens


def test_corrupt_cache_file_is_an_error_not_a_download(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = seed_tiktoken_cache(tmp_path)
    for file in cache.iterdir():
        file.write_bytes(b"garbage")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    from thrift_fp.tokens import _encoding

    # Forget encoders built by earlier tests, ours and tiktoken's own.
    monkeypatch.setattr(_encoding, "_built", {})
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    error = get_encoding("o200k_harmony").failure()
    assert isinstance(error, EncodingUnavailable)
    assert "never downloads" in error.message


def test_unknown_encoding_lists_known_names() -> None:
    error = count_tokens("x", "cl100k").failure()
    assert isinstance(error, UnknownEncoding)
    assert error.name == "cl100k"
    assert error.known == known_encoding_names()
    assert "cl100k_base" in error.message and "o200k_base" in error.message


def test_unknown_encoding_is_never_cached_as_success() -> None:
    assert isinstance(get_encoding("later").failure(), UnknownEncoding)
    register_token_estimator("later", len).unwrap()
    try:
        assert count_tokens("abc", "later").unwrap() == TokenCount(3, "later", "estimated")
    finally:
        unregister_token_estimator("later")
    assert isinstance(get_encoding("later").failure(), UnknownEncoding)


def test_special_token_text_is_ordinary_text() -> None:
    for name in ("cl100k_base", "o200k_base"):
        reference = get_encoding(name).unwrap()._tiktoken
        assert reference is not None
        counted = count_tokens("<|endoftext|>", name).unwrap().tokens
        assert counted == len(reference.encode_ordinary("<|endoftext|>")) > 1


def test_registry_refuses_builtin_names_and_replaces_custom() -> None:
    for name in ("cl100k_base", "p50k_base", "gpt2"):
        error = register_token_estimator(name, len).failure()
        assert error == EstimatorNameTaken(name)
    assert register_token_estimator(" padded", len).failure() == InvalidEstimatorName(" padded")
    register_token_estimator("custom", len).unwrap()
    register_token_estimator("custom", lambda text: 7, precision="exact").unwrap()
    try:
        assert count_tokens("abc", "custom").unwrap() == TokenCount(7, "custom", "exact")
    finally:
        assert unregister_token_estimator("custom")
    assert not unregister_token_estimator("custom")


def test_failing_custom_estimator_is_an_error_value() -> None:
    boom = ValueError("boom")

    def raises(text: str) -> int:
        raise boom

    register_token_estimator("raises", raises).unwrap()
    register_token_estimator("negative", lambda text: -1).unwrap()
    try:
        error = count_tokens("abc", "raises").failure()
        assert isinstance(error, EstimatorFailed) and error.cause is boom
        assert "ValueError: boom" in error.message
        negative = count_tokens_batch(["a", "b"], "negative").failure()
        assert isinstance(negative, EstimatorFailed) and "-1" in negative.message
    finally:
        unregister_token_estimator("raises")
        unregister_token_estimator("negative")


def test_encoder_is_built_once_and_shared_across_threads() -> None:
    seen: list[object] = []
    counts: list[int] = []
    lock = threading.Lock()

    def work() -> None:
        encoding = get_encoding("o200k_base").unwrap()
        total = sum(encoding.count(f"thread text {i}").unwrap() for i in range(200))
        with lock:
            seen.append(encoding)
            counts.append(total)

    run_together(lambda _: work(), 8)
    assert len(seen) == 8 and all(encoding is seen[0] for encoding in seen)
    assert len(set(counts)) == 1


def test_batch_uses_threads_and_matches_single_counts() -> None:
    texts = [f"passage {i} " * (i % 17) for i in range(500)]
    batch = count_tokens_batch(texts, "cl100k_base").unwrap()
    assert batch == tuple(count_tokens(text).unwrap().tokens for text in texts)


def test_tokenizable_memoises_per_encoding_and_per_context() -> None:
    calls: list[object] = []

    def evaluate(ctx: object) -> str:
        calls.append(ctx)
        return f"value for {ctx}"

    value = Tokenizable(evaluate)
    first, second = {"k": 1}, {"k": 1}
    a = value.estimate_tokens("cl100k_base", first).unwrap()
    assert value.estimate_tokens("cl100k_base", first).unwrap() == a
    assert len(calls) == 1
    value.estimate_tokens("cl100k_base", second).unwrap()
    value.estimate_tokens("o200k_base", first).unwrap()
    assert len(calls) == 3
    static = Tokenizable("hello world")
    assert static.estimate_tokens("o200k_base").unwrap().tokens == 2
    assert str(static) == "hello world" and not static.is_dynamic


def test_tokenizable_evaluator_errors_are_values() -> None:
    boom = RuntimeError("no")

    def raises(ctx: object) -> str:
        raise boom

    error = Tokenizable(raises).estimate_tokens().failure()
    assert isinstance(error, EvaluatorFailed) and error.cause is boom
    def returns_bytes(ctx: object) -> Any:  # Any: a badly typed user callback
        return b"bytes"

    not_text = Tokenizable(returns_bytes).render(None).failure()
    assert not_text == EvaluatorFailed("evaluator returned bytes, not str")
