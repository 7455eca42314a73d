"""Properties of the tokens layer: counting, memoisation, batches, the registry."""

from __future__ import annotations

import tiktoken
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from thrift_fp.tokens import (
    EstimatorNameTaken,
    Tokenizable,
    UnknownEncoding,
    builtin_encoding_names,
    count_tokens,
    count_tokens_batch,
    get_encoding,
    register_token_estimator,
    unregister_token_estimator,
)

ENCODINGS = st.sampled_from(["cl100k_base", "o200k_base"])
SPECIALS = st.sampled_from(["<|endoftext|>", "<|endofprompt|>", "<|fim_prefix|>", "<|im_start|>"])
# Text rich in what tokenizers care about: whitespace runs, newlines, digits, specials.
TEXT = st.lists(
    st.one_of(st.text(max_size=40), SPECIALS, st.sampled_from([" ", "\n", "\r\n", "  \n", "123456"])),
    max_size=12,
).map("".join)


def _reference(name: str) -> tiktoken.Encoding:
    encoding = get_encoding(name).unwrap()._tiktoken
    assert encoding is not None
    return encoding


@given(TEXT, ENCODINGS)
def test_count_equals_encode_ordinary(text: str, name: str) -> None:
    counted = count_tokens(text, name).unwrap()
    assert counted.tokens == len(_reference(name).encode_ordinary(text))
    assert counted.tokens >= 0
    assert counted.exact and counted.encoding == name


@given(ENCODINGS)
def test_empty_string_counts_zero(name: str) -> None:
    assert count_tokens("", name).unwrap().tokens == 0


# Both paths: short batches are counted inline, long ones on tiktoken's threads.
BATCHES = st.one_of(st.lists(TEXT, max_size=10), st.lists(TEXT, min_size=64, max_size=120))


@given(BATCHES, ENCODINGS)
def test_batch_counts_equal_single_counts(texts: list[str], name: str) -> None:
    batch = count_tokens_batch(texts, name).unwrap()
    assert batch == tuple(count_tokens(text, name).unwrap().tokens for text in texts)


@given(TEXT, ENCODINGS)
def test_memoised_count_equals_fresh_count(text: str, name: str) -> None:
    value = Tokenizable(text)
    first = value.estimate_tokens(name).unwrap()
    again = value.estimate_tokens(name).unwrap()
    fresh = Tokenizable(text).estimate_tokens(name).unwrap()
    assert first == again == fresh == count_tokens(text, name).unwrap()


@given(TEXT, st.integers(min_value=0, max_value=3))
def test_dynamic_memo_is_per_context(text: str, contexts: int) -> None:
    value = Tokenizable(lambda ctx: text * ctx)
    for ctx in range(contexts + 1):
        assert value.estimate_tokens("cl100k_base", ctx).unwrap() == count_tokens(text * ctx).unwrap()


NAMES = st.sampled_from(["words", "chars", "cl100k_base", "o200k_base", "gpt2", "p50k_base"])


class RegistryMachine(RuleBasedStateMachine):
    """The estimator registry against a dict model."""

    def __init__(self) -> None:
        super().__init__()
        self.model: dict[str, int] = {}

    @rule(name=NAMES, fixed=st.integers(min_value=0, max_value=50))
    def register(self, name: str, fixed: int) -> None:
        result = register_token_estimator(name, lambda text: fixed)
        if name in builtin_encoding_names():
            assert result.failure() == EstimatorNameTaken(name)
        else:
            assert result.unwrap().name == name
            self.model[name] = fixed

    @rule(name=NAMES)
    def unregister(self, name: str) -> None:
        assert unregister_token_estimator(name) == (self.model.pop(name, None) is not None)

    @invariant()
    def counts_follow_the_model(self) -> None:
        for name in ("words", "chars"):
            counted = count_tokens("some text", name)
            if name in self.model:
                assert counted.unwrap().tokens == self.model[name]
                assert counted.unwrap().precision == "estimated"
            else:
                assert isinstance(counted.failure(), UnknownEncoding)
        assert count_tokens("hello world", "cl100k_base").unwrap().tokens == 2

    def teardown(self) -> None:
        for name in self.model:
            unregister_token_estimator(name)


TestRegistry = RegistryMachine.TestCase
