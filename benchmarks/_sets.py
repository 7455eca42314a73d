"""Working sets built from the generated data, and the encoder both sides of a comparison use."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from typing import Final

import tiktoken

from benchmarks._data import SEED, Passage, Turn, chat
from thrift_fp.thrift import Message, WorkingRetrievable, WorkingSet
from thrift_fp.tokens import TokenEncoding, get_encoding

SYSTEM_PROMPT: Final = "You answer from the retrieved passages only, and say which passage you used."
EPOCH: Final = datetime(2026, 1, 1, tzinfo=timezone.utc)


def encoding() -> TokenEncoding:
    """thrift_fp's cl100k_base encoding (offline, built once per process)."""
    return get_encoding("cl100k_base").unwrap()


def raw_tiktoken() -> tiktoken.Encoding:
    """The very ``tiktoken.Encoding`` inside thrift_fp's cl100k_base, so a comparison differs only
    in the work around the tokenizer, not in the tokenizer."""
    raw = encoding()._tiktoken
    if raw is None:
        raise RuntimeError("cl100k_base is not backed by tiktoken")
    return raw


class ThreadedTokenizer:
    """tiktoken on ``threads`` threads the way thrift_fp counts a batch (contiguous slices on a
    pool built once, outside any timing), so an n-thread row compares equal work."""

    def __init__(self, threads: int) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.threads = threads
        self._pool = ThreadPoolExecutor(threads)
        self._encode = raw_tiktoken().encode_ordinary

    def _slice(self, texts: Sequence[str]) -> list[int]:
        encode = self._encode
        return [len(encode(text)) for text in texts]

    def __call__(self, texts: Sequence[str]) -> list[int]:
        step = -(-len(texts) // self.threads)
        parts = [self._pool.submit(self._slice, texts[at : at + step]) for at in range(0, len(texts), step)]
        return [count for part in parts for count in part.result()]


@contextmanager
def library_threads(threads: int) -> Iterator[None]:
    """Cap thrift_fp's batch counter at ``threads`` threads inside this benchmark process, for
    code that takes no thread option (``fit_and_render`` counts its envelopes with the default)."""
    from thrift_fp.tokens import _encoding

    saved = _encoding._BATCH_THREADS
    _encoding._BATCH_THREADS = threads  # type: ignore[misc]  # benchmark-only swap of a Final
    try:
        yield
    finally:
        _encoding._BATCH_THREADS = saved  # type: ignore[misc]  # restored


def tokenize_once(texts: Sequence[str]) -> list[int]:
    """Every text counted once with tiktoken on the calling thread: the yardstick."""
    encode = raw_tiktoken().encode_ordinary
    return [len(encode(text)) for text in texts]


def messages(turns: Sequence[Turn]) -> tuple[Message, ...]:
    """thrift messages for generated turns, one second apart from ``EPOCH``."""
    return tuple(
        Message(turn.id, turn.text, EPOCH + timedelta(seconds=turn.second), role=turn.role) for turn in turns
    )


def retrievables(items: Sequence[Passage]) -> tuple[WorkingRetrievable, ...]:
    """thrift's plain retrievables for generated passages (content measured by thrift)."""
    return tuple(WorkingRetrievable(item.text, id=item.id, score=item.score) for item in items)


def rag_set(items: Sequence[Passage], turns: int = 40, seed: int = SEED) -> WorkingSet:
    """A system prompt, ``turns`` chat messages and the passages as retrievables."""
    return WorkingSet(
        system_prompt=SYSTEM_PROMPT, messages=messages(chat(turns, seed=seed)), retrievables=retrievables(items)
    )


def texts_of(ws: WorkingSet) -> list[str]:
    """Every text thrift measures in a set of system prompt, messages and plain retrievables."""
    return [ws.system_prompt, *(str(m.content) for m in ws.messages), *(str(r.content) for r in ws.retrievables)]
