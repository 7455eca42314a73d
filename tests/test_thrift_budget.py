"""resolve_budget: the DESIGN facts and every invalid input as an error value."""

from __future__ import annotations

import math

import pytest

from thrift_fp.thrift import Budget, InvalidBudget, resolve_budget


def test_design_facts() -> None:
    assert resolve_budget(4096, 1024).unwrap() == Budget(4096, 1024, 3072)
    assert resolve_budget(1_000_000).unwrap().budget == 650_000
    assert resolve_budget(100, 1000).unwrap().budget == 0


def test_negative_output_reserve_means_none() -> None:
    assert resolve_budget(100, -5).unwrap() == Budget(100, 0, 100)


def test_fractional_window_rounds_the_budget_down() -> None:
    assert resolve_budget(100.7, 10.2).unwrap() == Budget(100.7, 11, 89)


@pytest.mark.parametrize("window", [-1, -0.5, math.inf, -math.inf, math.nan])
def test_bad_window(window: float) -> None:
    error = resolve_budget(window).failure()
    assert isinstance(error, InvalidBudget)
    assert error.field == "context_window"
    assert "context_window" in error.message


@pytest.mark.parametrize("fraction", [-0.01, 1.01, math.nan, math.inf])
def test_bad_reserve_fraction(fraction: float) -> None:
    error = resolve_budget(100, reserve_fraction=fraction).failure()
    assert isinstance(error, InvalidBudget)
    assert error.field == "reserve_fraction"


@pytest.mark.parametrize("reserve", [math.nan, math.inf])
def test_bad_output_reserve(reserve: float) -> None:
    error = resolve_budget(100, reserve).failure()
    assert isinstance(error, InvalidBudget)
    assert error.field == "output_reserve"


@pytest.mark.parametrize("fraction", [0.0, 1.0])
def test_fraction_edges_are_allowed(fraction: float) -> None:
    assert resolve_budget(100, reserve_fraction=fraction).unwrap().budget == round(100 * (1 - fraction))


def test_int_window_beyond_float_range_is_an_error_value() -> None:
    # Regression: math.isfinite(10**400) raised OverflowError out of resolve_budget.
    error = resolve_budget(10**400).failure()
    assert isinstance(error, InvalidBudget)
    assert error.field == "context_window"
    assert "context_window" in error.message
    assert isinstance(resolve_budget(10**400, 5).failure(), InvalidBudget)
    assert isinstance(resolve_budget(10**5000).failure().message, str)  # no int-to-str limit error


def test_int_output_reserve_beyond_float_range_is_exact() -> None:
    # A huge int reserve is still a reserve: it leaves no budget (like resolve_budget(100, 1000)).
    assert resolve_budget(100, 10**400).unwrap() == Budget(100, 100, 0)
    assert resolve_budget(100, -(10**400)).unwrap() == Budget(100, 0, 100)
