"""The OpenAI fit holds the garbage collector off while it runs (`paused_collector`) and puts
it back as it found it, however the fit ends."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from thrift_fp.adapters._core import PricingFailed
from thrift_fp.adapters.openai import fit_openai_messages

_IMAGE = {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}]}


@pytest.fixture
def collector_on() -> Iterator[None]:
    was_on = gc.isenabled()
    gc.enable()
    yield
    if was_on:
        gc.enable()
    else:
        gc.disable()


def test_the_collector_is_off_during_the_fit_and_on_after_it(collector_on: None) -> None:
    seen: list[bool] = []

    def price(part: Mapping[str, Any]) -> int:
        seen.append(gc.isenabled())
        return 85

    assert fit_openai_messages([_IMAGE], 1000, model="gpt-4o", image_tokens=price).unwrap().tokens.tokens > 85
    assert seen == [False]
    assert gc.isenabled()


def test_the_collector_is_back_on_after_an_error_value_or_an_exception(collector_on: None) -> None:
    def broken(part: Mapping[str, Any]) -> int:
        raise ValueError("no size")

    assert isinstance(fit_openai_messages([_IMAGE], 1000, model="gpt-4o", image_tokens=broken).failure(), PricingFailed)
    assert gc.isenabled()

    def interrupted(part: Mapping[str, Any]) -> int:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        fit_openai_messages([_IMAGE], 1000, model="gpt-4o", image_tokens=interrupted)
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off(collector_on: None) -> None:
    gc.disable()
    fit_openai_messages([{"role": "user", "content": "hi"}], 1000, model="gpt-4o").unwrap()
    assert not gc.isenabled()
