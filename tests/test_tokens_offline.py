"""Counting works with every socket blocked, and equals tiktoken's own encoders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests._offline_vocab import NETWORK_REFUSED, seed_tiktoken_cache

# Runs in a fresh interpreter so no encoder is prebuilt: every socket call raises
# before thrift_fp is even imported.
_SCRIPT = NETWORK_REFUSED + textwrap.dedent(
    """
    import tiktoken
    import thrift_fp

    big = ("The quick brown fox, 12345 — jumps! <|endoftext|>\\n" * 20000)[: 1 << 20]
    out = {}
    for name in ("cl100k_base", "o200k_base"):
        reference = tiktoken.get_encoding(name)  # from the seeded cache, hash-checked
        for label, text in (("hello", "hello world"), ("big", big)):
            ours = thrift_fp.count_tokens(text, name).unwrap()
            out[f"{name}/{label}"] = [ours.tokens, len(reference.encode_ordinary(text)), ours.exact]
    print(json.dumps(out))
    """
)


def test_counts_offline_equal_tiktoken(tmp_path: Path) -> None:
    cache = seed_tiktoken_cache(tmp_path / "tiktoken-cache")
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert set(results) == {
        "cl100k_base/hello",
        "cl100k_base/big",
        "o200k_base/hello",
        "o200k_base/big",
    }
    for key, (ours, reference, exact) in results.items():
        assert ours == reference, key
        assert exact is True
    assert results["cl100k_base/hello"][0] == 2
    assert results["o200k_base/hello"][0] == 2


_UNCACHED_PROBE = textwrap.dedent(
    """
    import sys

    # Installed before thrift_fp's guard, so this hook sees every socket event (a hook that
    # raises, as the guard does, hides the event from the hooks installed after it).
    events = []
    sys.addaudithook(lambda event, args: events.append(event) if event.startswith("socket.") else None)
    from thrift_fp.tokens import EncodingUnavailable, get_encoding

    error = get_encoding("p50k_base").failure()
    assert isinstance(error, EncodingUnavailable), error
    assert error.name == "p50k_base"
    assert "never downloads" in error.message, error.message
    print(events)
    """
)


def test_uncached_encoding_is_an_error_without_network(tmp_path: Path) -> None:
    # No pre-check reads tiktoken's bytecode constants (that broke on other tiktoken versions):
    # the guard refuses the first resolver call, before any packet leaves.
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(tmp_path / "empty-cache")}
    done = subprocess.run([sys.executable, "-c", _UNCACHED_PROBE], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    events = done.stdout.strip()
    # The first resolver call was refused and was the last socket event: nothing resolved, nothing
    # connected (urllib3's import binds a probe socket on ::1 to detect IPv6; it stays local).
    assert events.endswith("'socket.getaddrinfo']") and events.count("getaddrinfo") == 1, events
    assert "socket.connect" not in events and "gethostbyname" not in events, events
