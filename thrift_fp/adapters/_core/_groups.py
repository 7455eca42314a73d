"""Which rows leave together: tool calls with their results, rows sharing a group key, turns.

`groups` links rows in one pass in input order (a union-find whose group id is its earliest
member) and checks the pairing rules on the way. An agent loop fits nearly the same rows again
and again, so `groups` can stop at a checkpoint to remember its state there (`GroupCarry`) and
the next call, when its rows up to that checkpoint are the very same objects, resumes from it
instead of walking the whole history again. The result is identical either way.
"""

from __future__ import annotations

from collections.abc import Sequence

from itertools import compress, count, repeat
from operator import is_not, ne, or_
from typing import Final, NamedTuple

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.adapters._core._errors import AdapterError, DuplicateToolCall, ToolCallWithoutResult, ToolResultWithoutCall


class Row(NamedTuple):
    """One message of the caller's list as the core fits it: what it costs *as sent*, the tool-call
    ids it issues and answers (each with the field holding it, for error values), whether it
    starts a turn, whether it is pinned, and its ``group`` key (rows with the same key leave
    together, as an adapter's own unit such as a turn says). A named tuple: an adapter builds one
    per message on its hot path, where a frozen dataclass costs several times more to construct.

    >>> Row(12, issues=(("tool_calls[0].id", "c1"),)).pinned, Row(3, group="turn@0").group
    (False, 'turn@0')
    """

    tokens: int
    issues: tuple[tuple[str, str], ...] = ()
    answers: tuple[tuple[str, str], ...] = ()
    starts_turn: bool = False
    pinned: bool = False
    role: str | None = None
    estimated: bool = False
    group: str | None = None


@value
class RowColumns:
    """The rows of one fit column by column (``tokens[i]``, ``issues[i]``, ... are row ``i``'s
    fields): what an adapter whose reader already holds its messages' fields in columns hands
    the core, so a long history costs no object per message on the way in. The core reads the
    rows of a `Row` sequence into these columns too (`of`); only `Row` objects carry a fit's
    state to the next (`CoreFit.carry`).

    >>> columns = RowColumns.of([Row(3, role="user", starts_turn=True), Row(5, role="assistant")])
    >>> columns.tokens, columns.role, len(columns)
    ((3, 5), ('user', 'assistant'), 2)
    """

    tokens: Sequence[int]
    issues: Sequence[tuple[tuple[str, str], ...]]
    answers: Sequence[tuple[tuple[str, str], ...]]
    starts_turn: Sequence[bool]
    pinned: Sequence[bool]
    role: Sequence[str | None]
    estimated: Sequence[bool]
    group: Sequence[str | None]

    @staticmethod
    def of(rows: Sequence[Row] | RowColumns) -> RowColumns:
        """``rows`` column by column (one C-level transposition; columns are returned as they are)."""
        if isinstance(rows, RowColumns):
            return rows
        if not rows:
            return RowColumns((), (), (), (), (), (), (), ())
        return RowColumns(*zip(*rows))

    def __len__(self) -> int:
        return len(self.tokens)


@value
class Pairing:
    """The API's pairing rules: ``answer_once`` (a second result for one call is an error),
    ``require_answers`` (a call with no later result is an error), ``whole_turns`` (a turn, from
    a row that starts one to the next, is kept or shed whole; pinned rows join no turn).

    >>> Pairing().require_answers, Pairing(whole_turns=True).whole_turns
    (True, True)
    """

    answer_once: bool = True
    require_answers: bool = True
    whole_turns: bool = False


@value
class GroupCarry:
    """What `groups` knew after its first ``at`` rows (``rows[:at]`` of the call that made it):
    the union-find parents, the calls issued and still open (each call id's row), and the group
    keys seen."""

    pairing: Pairing
    rows: tuple[Row, ...]
    at: int
    parent: list[int]
    issued: dict[str, int]
    open_calls: dict[str, int]
    keyed: dict[str, int]


class _Groups:
    """Union of linked rows; a group's id is its earliest member.

    A parent is never later than its child (a link hangs the later root under the earlier)."""

    __slots__ = ("_parent",)

    def __init__(self, parent: list[int]) -> None:
        self._parent = parent

    def link(self, first: int, second: int) -> None:
        parent = self._parent
        while parent[first] != first:
            parent[first] = first = parent[parent[first]]
        while parent[second] != second:
            parent[second] = second = parent[parent[second]]
        if first < second:
            parent[second] = first
        elif second < first:
            parent[first] = second

    def ids(self) -> tuple[str | None, ...]:
        # Every row's root by pointer jumping (each step a C-level pass; the trees are shallow:
        # `link` compresses paths), then a name for each root some other row hangs under.
        roots = self._parent
        while (up := list(map(roots.__getitem__, roots))) != roots:
            roots = up
        linked = set(compress(roots, map(ne, roots, count())))
        made = _group_names(max(linked, default=-1) + 1)
        if len(made) <= max(linked, default=-1):
            names = {root: f"group@{root}" for root in linked}
            return tuple(map(names.get, roots))
        # Each row's name by its root's place (the rows alone: None), a list read per row.
        named: list[str | None] = [None] * len(roots)
        for root in linked:
            named[root] = made[root]
        return tuple(map(named.__getitem__, roots))


class _Names:
    """The group names made so far (replaced whole when it grows: a racing thread builds an equal tuple)."""

    made: tuple[str, ...] = ()


# Group names made once and kept (most fits name the same first rows), up to this many.
_CACHED_NAMES: Final = 1 << 16


def _group_names(end: int) -> tuple[str, ...]:
    """``group@0`` ... at least up to ``group@{end - 1}`` while under the cap (shorter past it).

    >>> _group_names(3)[:3]
    ('group@0', 'group@1', 'group@2')
    """
    made = _Names.made
    if end > len(made) and len(made) < _CACHED_NAMES:
        made = _Names.made = tuple(map("group@{}".format, range(min(max(end, 2 * len(made)), _CACHED_NAMES))))
    return made


def _saved(
    pairing: Pairing, rows: Sequence[Row], at: int, linked: _Groups, issued: dict[str, int],
    open_calls: dict[str, int], keyed: dict[str, int],
) -> GroupCarry:
    return GroupCarry(pairing, tuple(rows[:at]), at, linked._parent[:at], dict(issued), dict(open_calls), dict(keyed))


def newest_turn(rows: Sequence[Row] | RowColumns) -> int:
    """The position of the row that opens the newest turn (``len(rows)`` when none does).

    >>> newest_turn([Row(1, starts_turn=True), Row(1), Row(1, starts_turn=True), Row(1)])
    2
    """
    columns = RowColumns.of(rows)
    starts, pinned = columns.starts_turn, columns.pinned
    # Scanned back from the end: the newest turn is near it, whatever the history's length.
    for index in range(len(starts) - 1, -1, -1):
        if starts[index] and not pinned[index]:
            return index
    return len(starts)


def _resumable(rows: Sequence[Row] | None, pairing: Pairing, carry: GroupCarry | None) -> GroupCarry | None:
    # Only `Row` objects can be recognised as the very rows a checkpoint was made from.
    if rows is None or carry is None or carry.pairing != pairing or pairing.whole_turns or carry.at > len(rows):
        return None
    at = carry.at
    # The checkpoint holds while every row before it is the very object it was made from.
    differs = next(compress(count(), map(is_not, rows[:at], carry.rows[:at])), at)
    return carry if differs == at else None


def groups(
    rows: Sequence[Row] | RowColumns, pairing: Pairing, carry: GroupCarry | None = None, checkpoint: int | None = None
) -> Result[tuple[tuple[str | None, ...], GroupCarry | None], AdapterError]:
    """Each row's group id (``None``: it leaves alone), or the first pairing problem; with a
    ``checkpoint``, also this call's state after that many rows, for the next call's ``carry``
    (rows given as `RowColumns` neither resume from a carry nor save one).

    >>> rows = [Row(1, issues=(("calls[0]", "a"), ("calls[1]", "b"))), Row(1, answers=(("id", "a"),)),
    ...         Row(1, answers=(("id", "b"),)), Row(1), Row(1, group="k"), Row(1, group="k")]
    >>> groups(rows, Pairing()).unwrap()[0]
    ('group@0', 'group@0', 'group@0', None, 'group@4', 'group@4')
    >>> groups(RowColumns.of(rows), Pairing()).unwrap()[0]
    ('group@0', 'group@0', 'group@0', None, 'group@4', 'group@4')
    >>> groups([Row(1, answers=(("tool_call_id", "z"),))], Pairing()).failure().message
    "messages[0].tool_call_id: no earlier unanswered tool call has id 'z'"
    """
    return grouped(RowColumns.of(rows), None if isinstance(rows, RowColumns) else rows, pairing, carry, checkpoint)


def grouped(
    columns: RowColumns, own: Sequence[Row] | None, pairing: Pairing, carry: GroupCarry | None, checkpoint: int | None
) -> Result[tuple[tuple[str | None, ...], GroupCarry | None], AdapterError]:
    """`groups` of rows already in columns; ``own`` the `Row` objects themselves when there are
    any (only they resume from a carry or save one)."""
    resumed = _resumable(own, pairing, carry)
    total = len(columns)
    issues, answers, group = columns.issues, columns.answers, columns.group
    # Each call id's row (no object per call: its field is looked up only for an error value).
    issued: dict[str, int]
    open_calls: dict[str, int]
    keyed: dict[str, int]
    if resumed is None:
        start, issued, open_calls, keyed = 0, {}, {}, {}
        linked = _Groups(list(range(total)))
    else:
        start = resumed.at
        issued, open_calls, keyed = dict(resumed.issued), dict(resumed.open_calls), dict(resumed.keyed)
        linked = _Groups([*resumed.parent, *range(start, total)])
    parent = linked._parent
    if pairing.whole_turns:
        _link_turns(columns, parent)
    # A resumed call that was asked to stop at the same checkpoint hands that checkpoint on.
    saved = resumed if resumed is not None and resumed.at == checkpoint else None
    wanted = own is not None and checkpoint is not None and start <= checkpoint <= total and saved is None
    # Only rows that link something are walked (C-level pass to find them); the state at the
    # checkpoint is the state before the first such row at or after it.
    # (Without group keys, the usual case, the links are the non-empty id tuples: two C-level
    # passes of ``len``, with no tuple per row.)
    keyless = not any(map(is_not, group[start:], repeat(None)))
    linking = compress(range(start, total), map(or_, map(len, issues[start:]), map(len, answers[start:])) if keyless
                       else map(any, zip(issues[start:], answers[start:], group[start:])))
    for index in linking:
        if wanted and own is not None and checkpoint is not None and index >= checkpoint:
            saved, wanted = _saved(pairing, own, checkpoint, linked, issued, open_calls, keyed), False
        key = group[index]
        if key is not None:
            linked.link(keyed.setdefault(key, index), index)
        for field, call_id in answers[index]:
            call = open_calls.pop(call_id, None) if pairing.answer_once else issued.get(call_id)
            if call is None:
                return Failure(ToolResultWithoutCall(index, field, call_id))
            # A shared parent is a shared group already (a result in its call's turn, as whole
            # turns hang them): linking again would change nothing, so the call is skipped.
            if parent[call] != parent[index]:
                linked.link(call, index)
        for field, call_id in issues[index]:
            if call_id in issued:
                return Failure(DuplicateToolCall(index, field, call_id))
            issued[call_id] = open_calls[call_id] = index
    if wanted and own is not None and checkpoint is not None:
        saved = _saved(pairing, own, checkpoint, linked, issued, open_calls, keyed)
    if pairing.require_answers and pairing.answer_once and open_calls:
        call_id, index = next(iter(open_calls.items()))
        return Failure(ToolCallWithoutResult(index, _field(issues[index], call_id), call_id))
    if pairing.require_answers and not pairing.answer_once:
        answered = {call_id for links in answers for _, call_id in links}
        for call_id, index in issued.items():
            if call_id not in answered:
                return Failure(ToolCallWithoutResult(index, _field(issues[index], call_id), call_id))
    return Success((linked.ids(), saved))


def _field(links: tuple[tuple[str, str], ...], call_id: str) -> str:
    """The field holding ``call_id`` among a row's ``links`` (its first, as the walk issued it)."""
    return next(field for field, ident in links if ident == call_id)


def _link_turns(columns: RowColumns, parent: list[int]) -> None:
    """Hang every row of each turn before the newest under the turn's opening row."""
    # The newest turn is not one group: when it alone is too big its oldest tool rounds go
    # (whole pairs), while its opening row stays (`fit_rows` pins it).
    newest = newest_turn(columns)
    starts, pinned = columns.starts_turn, columns.pinned
    # No row opens a turn (no question at all): the history is one turn with no question, kept
    # whole (or the fit is `OverBudget`): any cut would open on a tool call or an answer.
    # A question only in pinned rows is always kept: the rows after it shed freely.
    newest = 0 if newest == len(columns) and any(starts) else newest
    turn = -1  # the open turn's opening row (-1: none is open)
    for index in range(newest):
        if pinned[index]:
            # A pinned row that starts a turn still ends the one before it.
            turn = -1 if starts[index] else turn
        elif starts[index] or turn < 0:
            turn = index
        else:
            # Nothing is linked yet (a whole-turns call never resumes): the turn's opening
            # row is a root, earlier than its member, so hanging the member under it is a link.
            parent[index] = turn
