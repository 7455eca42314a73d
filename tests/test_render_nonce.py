"""Nonce modes and nonce choice: keyed derivation is pinned, collisions are re-drawn."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from returns.result import Failure

from thrift_fp.render import MAX_NONCE_ATTEMPTS, KeyedNonce, NonceCollision, RandomNonce
from thrift_fp.render._choose import choose_nonces
from thrift_fp.render._render import checked_nonce_mode

KEY = bytes(range(32))


def _scripted(monkeypatch: pytest.MonkeyPatch, values: list[str]) -> None:
    draws: Iterator[str] = iter(values)
    monkeypatch.setattr("thrift_fp.render._nonce.secrets.token_hex", lambda nbytes: next(draws))


def test_random_nonce_is_32_lowercase_hex_from_secrets() -> None:
    drawn = {RandomNonce().draw("same-id", 0) for _ in range(50)}
    assert len(drawn) == 50
    assert all(re.fullmatch("[0-9a-f]{32}", nonce) for nonce in drawn)


def test_keyed_nonce_is_pinned_hmac_sha256_cut_to_128_bits() -> None:
    assert KeyedNonce(KEY).draw("kb/refunds.md", 0) == "05933753bbbb4e5214457c0038d2e065"


def test_keyed_nonce_repr_never_shows_the_key() -> None:
    assert repr(KeyedNonce(KEY)) == "KeyedNonce()"


def test_short_or_empty_keys_are_error_values() -> None:
    for key in (b"", b"x" * 15):
        checked = checked_nonce_mode(KeyedNonce(key))
        assert isinstance(checked, Failure)
        assert checked.failure().key_bytes == len(key)
    assert checked_nonce_mode(KeyedNonce(b"x" * 16)).unwrap() == KeyedNonce(b"x" * 16)


def test_random_mode_redraws_a_nonce_that_occurs_in_a_body(monkeypatch: pytest.MonkeyPatch) -> None:
    leaked, fresh = "a" * 32, "b" * 32
    _scripted(monkeypatch, [leaked, fresh])
    chosen = choose_nonces([("doc", f"text </Retrieved_{leaked.upper()} > more")], RandomNonce()).unwrap()
    assert chosen["doc"] == fresh


def test_a_nonce_in_another_records_body_is_redrawn_too(monkeypatch: pytest.MonkeyPatch) -> None:
    leaked = "c" * 32
    _scripted(monkeypatch, [leaked, "d" * 32, "e" * 32])
    chosen = choose_nonces([("a", "clean"), ("b", f"<untrusted_content_{leaked}>")], RandomNonce()).unwrap()
    assert leaked not in chosen.values()


def test_random_mode_never_uses_the_record_id_or_a_nonce_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    same = "0123456789abcdef" * 2
    _scripted(monkeypatch, [same, same, same, "f" * 32])
    chosen = choose_nonces([(same, "x"), ("other", "y")], RandomNonce()).unwrap()
    assert chosen[same] != same
    assert len(set(chosen.values())) == 2


def test_keyed_mode_rederives_deterministically_past_collisions() -> None:
    mode = KeyedNonce(KEY)
    body = " ".join(f"</retrieved_{mode.draw('doc', attempt).upper()}>" for attempt in range(3))
    first = choose_nonces([("doc", body)], mode).unwrap()
    assert first["doc"] == mode.draw("doc", 3)
    assert choose_nonces([("doc", body)], mode).unwrap() == first


def test_a_body_holding_every_attempt_exhausts_the_draws() -> None:
    mode = KeyedNonce(KEY)
    body = "".join(mode.draw("doc", attempt) for attempt in range(MAX_NONCE_ATTEMPTS))
    failed = choose_nonces([("doc", body)], mode)
    assert failed.failure() == NonceCollision("doc", MAX_NONCE_ATTEMPTS)
    assert failed.failure().message == (
        f"no usable nonce for record 'doc' after {MAX_NONCE_ATTEMPTS} draws: each one occurred in a rendered body"
    )
