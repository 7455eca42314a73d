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


_WINDOW = "must be a finite number >= 0"
_RANGE = "must be within float range"
_FRACTION = "must be within [0, 1]"
_RESERVE = "must be a finite number"
_NAN = math.nan

_INVALID: list[tuple[str, tuple[object, object, object], InvalidBudget]] = [
    ("window-negative", (-1, None, 0.35), InvalidBudget("context_window", -1, _WINDOW)),
    ("window-negative-float", (-0.5, None, 0.35), InvalidBudget("context_window", -0.5, _WINDOW)),
    ("window-inf", (math.inf, None, 0.35), InvalidBudget("context_window", math.inf, _WINDOW)),
    ("window-nan", (_NAN, None, 0.35), InvalidBudget("context_window", _NAN, _WINDOW)),
    ("window-bool", (True, None, 0.35), InvalidBudget("context_window", True, _WINDOW)),
    ("window-huge", (10**400, None, 0.35), InvalidBudget("context_window", 10**400, _RANGE)),
    ("window-huge-negative", (-(10**400), None, 0.35), InvalidBudget("context_window", -(10**400), _RANGE)),
    ("window-before-fraction", (-1, None, 2.0), InvalidBudget("context_window", -1, _WINDOW)),
    ("fraction-above", (100, None, 1.5), InvalidBudget("reserve_fraction", 1.5, _FRACTION)),
    ("fraction-below", (100, None, -0.01), InvalidBudget("reserve_fraction", -0.01, _FRACTION)),
    ("fraction-nan", (100, None, _NAN), InvalidBudget("reserve_fraction", _NAN, _FRACTION)),
    ("fraction-before-reserve", (100, math.inf, 1.5), InvalidBudget("reserve_fraction", 1.5, _FRACTION)),
    ("reserve-nan", (100, _NAN, 0.35), InvalidBudget("output_reserve", _NAN, _RESERVE)),
    ("reserve-inf", (100, math.inf, 0.35), InvalidBudget("output_reserve", math.inf, _RESERVE)),
    ("reserve-minus-inf", (100, -math.inf, 0.35), InvalidBudget("output_reserve", -math.inf, _RESERVE)),
    ("reserve-bool", (100, True, 0.35), InvalidBudget("output_reserve", True, _RESERVE)),
]


@pytest.mark.parametrize(("arguments", "expected"), [case[1:] for case in _INVALID], ids=[case[0] for case in _INVALID])
def test_each_invalid_budget_input_is_the_whole_error_value(
    arguments: tuple[object, object, object], expected: InvalidBudget
) -> None:
    window, reserve, fraction = arguments
    assert resolve_budget(window, reserve, fraction).failure() == expected  # type: ignore[arg-type]  # misuse on purpose


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ((0, None, 0.35), Budget(0, 0, 0)),
        ((10, None, 0.35), Budget(10, 4, 6)),  # ceil(3.5) reserved, the rest is the budget
        ((10, 0, 0.35), Budget(10, 0, 10)),
        ((10, 3.2, 0.35), Budget(10, 4, 6)),  # a fractional reserve rounds up
        ((10.9, None, 0.0), Budget(10.9, 0, 10)),
        ((10.2, 20, 0.35), Budget(10.2, 11, 0)),  # a reserve beyond the window takes all of it
        ((7, None, 1.0), Budget(7, 7, 0)),
    ],
)
def test_the_reserve_rounds_up_and_the_budget_down(arguments: tuple[float, float | None, float], expected: Budget) -> None:
    window, reserve, fraction = arguments
    assert resolve_budget(window, reserve, fraction).unwrap() == expected


def test_a_bool_reserve_fraction_is_refused_where_no_type_check_runs() -> None:
    # beartype refuses a bool for the float parameter under the test suite; production has no such
    # check, so resolve_budget refuses it itself (True would otherwise be a fraction of 1).
    import inspect

    unchecked = inspect.unwrap(resolve_budget)
    assert unchecked is not resolve_budget
    assert unchecked(100, None, True).failure() == InvalidBudget("reserve_fraction", True, _FRACTION)
    assert unchecked(100, None, False).failure() == InvalidBudget("reserve_fraction", False, _FRACTION)
