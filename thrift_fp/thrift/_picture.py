"""The picture of a fit: one self-contained HTML page drawn from a `ThriftTrace`.

The page shows the context window as one bar split into what was kept (per bucket), the free
budget and the output reserve, with the shed tokens drawn past the window's edge; then every shed
item with its bucket and reason, the kept passages (tier, source, heading path, score, tokens)
and the trace's numbers. It makes no network request: the CSS is inline, there is no script, no
font, no image, and a Content-Security-Policy forbids anything else, so the page stays inert even
if some text in it were not escaped. Every caller-supplied text (ids, sources, headings, notes,
reasons, the title) is escaped: retrieved content is hostile.

It lives in ``render`` (the presentation layer): ``thrift`` only holds the trace, and its
``Fitted._repr_html_`` imports this module when a notebook asks for the picture.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence

from typing import Final, Literal

from thrift_fp._shown import shown
from thrift_fp._value import value
from thrift_fp.thrift._trace import ThriftTrace

_PRINTABLE_BITS: Final = 200

SegmentKind = Literal["kept", "free", "reserve", "shed"]
"""What a segment of the window bar shows: kept tokens, free room, the output reserve, or shed tokens."""

# What the bar groups the passes into: a bucket and the passes that shed from it again.
_CATEGORY: Final[Mapping[str, str]] = {
    "retrievables-size-unknown": "retrievables",
    "retrievables": "retrievables",
    "memories": "memories",
    "messages": "messages",
    "thoughts": "thoughts",
    "thoughts-shed": "thoughts",
    "tools": "tools",
    "tools-shed": "tools",
    "image": "image",
    "tool-calls": "tool-calls",
}
# Bar order: the never-shed floor first, then the buckets from most to least commonly kept.
_CATEGORIES: Final = ("messages", "retrievables", "memories", "tool-calls", "tools", "thoughts", "image")
_FLOOR: Final = "protected"
_OTHER: Final = "other"
_COLOURS: Final[Mapping[str, str]] = {
    _FLOOR: "#2f4b7c",
    "messages": "#4e79a7",
    "retrievables": "#59a14f",
    "memories": "#d4a017",
    "tool-calls": "#b07aa1",
    "tools": "#3f9c98",
    "thoughts": "#e377c2",
    "image": "#9c755f",
    _OTHER: "#7f7f7f",
    "free": "#ececec",
    "reserve": "#bab0ac",
    "shed": "#e15759",
}


@value
class BarSegment:
    """One segment of the window bar: ``kind``, the bucket or role it stands for (``label``), its
    tokens, and whether it lies ``beyond`` the window's edge (shed tokens always do; kept tokens
    and reserve do when a refused fit's floor overruns the window).

    >>> BarSegment("free", "free", 120, False).tokens
    120
    """

    kind: SegmentKind
    label: str
    tokens: int | float
    beyond: bool


@value
class ReportPassage:
    """A kept passage as the report lists it; every field but ``id`` is optional.

    >>> ReportPassage("a.md#1", tier="first-party", heading_path=("fs", "readFile"), score=0.8).heading_path
    ('fs', 'readFile')
    """

    id: str
    tier: str | None = None
    source: str | None = None
    heading_path: tuple[str, ...] = ()
    score: float | None = None
    tokens: int | None = None
    note: str = ""


@value
class ReportShed:
    """A shed item: its id, the bucket it left, why, and its tokens when known.

    >>> ReportShed("m1", "messages", "oldest first").reason
    'oldest first'
    """

    id: str
    bucket: str
    reason: str
    tokens: int | None = None


def _category(bucket: str) -> str:
    return _CATEGORY.get(bucket, _OTHER)


def _kept_and_shed(trace: ThriftTrace) -> tuple[dict[str, int], dict[str, int]]:
    """Tokens kept and shed per category: a pass's ``before_tokens`` is its bucket's running
    total, so the last pass over a bucket holds what stayed; refill then re-admits some of it."""
    kept: dict[str, int] = {}
    shed: dict[str, int] = {}
    for step in trace.buckets:
        name = _category(step.bucket)
        kept[name] = step.after_tokens
        shed[name] = shed.get(name, 0) + max(0, step.before_tokens - step.after_tokens)
    for refill in trace.refilled:
        name = _category(refill.bucket)
        kept[name] = refill.after_tokens
        shed[name] = max(0, shed.get(name, 0) - max(0, refill.after_tokens - refill.before_tokens))
    return kept, shed


def _cut(segments: list[BarSegment], window: int | float) -> list[BarSegment]:
    """``segments`` laid from the window's start: the part of each past ``window`` is marked beyond."""
    laid: list[BarSegment] = []
    room: int | float = window
    for segment in segments:
        inside = min(segment.tokens, max(room, 0))
        outside = segment.tokens - inside
        if inside > 0:
            laid.append(BarSegment(segment.kind, segment.label, inside, False))
        if outside > 0:
            laid.append(BarSegment(segment.kind, segment.label, outside, True))
        room -= inside
    return laid


def fit_report_bar(trace: ThriftTrace) -> tuple[BarSegment, ...]:
    """The window bar: kept tokens per bucket (the protected floor — system prompt, instructions —
    first), the free budget and the output reserve, cut at the window's edge; then the shed tokens
    per bucket, beyond it. The segments not ``beyond`` add up to the context window.

    >>> from thrift_fp.thrift import BucketTrace
    >>> trace = ThriftTrace(1000, 350, 650, 900, 600, True, False, (
    ...     BucketTrace("retrievables", 700, 400, 7, 4, "lowest score first", ("a", "b", "c")),))
    >>> [(s.kind, s.label, s.tokens) for s in fit_report_bar(trace)]
    [('kept', 'protected', 200), ('kept', 'retrievables', 400), ('free', 'free', 50), ('reserve', 'reserve', 350), ('shed', 'retrievables', 300)]
    >>> sum(s.tokens for s in fit_report_bar(trace) if not s.beyond)
    1000
    """
    kept, shed = _kept_and_shed(trace)
    window = trace.context_window
    floor = max(0, trace.total_after - sum(kept.values()))
    order = [_FLOOR, *_CATEGORIES, _OTHER]
    kept[_FLOOR] = floor
    held = sum(kept.values())
    inside: list[BarSegment] = [BarSegment("kept", name, kept[name], False) for name in order if kept.get(name)]
    inside.append(BarSegment("free", "free", max(0, window - trace.reserve - held), False))
    inside.append(BarSegment("reserve", "reserve", trace.reserve, False))
    shed_beyond = [BarSegment("shed", name, shed[name], True) for name in order if shed.get(name)]
    return (*_cut(inside, window), *shed_beyond)


def report_shed(trace: ThriftTrace, costs: Mapping[str, int] | None = None) -> tuple[ReportShed, ...]:
    """Every item the fit removed, in pass order, with its bucket and the pass's note as the
    reason, less what refill brought back; ``costs`` gives the tokens of those it knows.

    >>> from thrift_fp.thrift import BucketTrace
    >>> trace = ThriftTrace(100, 35, 65, 90, 60, True, False, (
    ...     BucketTrace("messages", 90, 60, 3, 2, "oldest first", ("m1",)),))
    >>> report_shed(trace, {"m1": 30})
    (ReportShed(id='m1', bucket='messages', reason='oldest first', tokens=30),)
    """
    back = {(_category(step.bucket), key) for step in trace.refilled for key in step.ids}
    known = costs or {}
    return tuple(
        ReportShed(key, step.bucket, step.note, known.get(key))
        for step in trace.buckets
        for key in step.ids
        if (_category(step.bucket), key) not in back
    )


def report_passages(
    records: Iterable[object],
    costs: Mapping[str, int] | None = None,
    heading_paths: Mapping[str, tuple[str, ...]] | None = None,
    refilled: Iterable[str] = (),
) -> tuple[ReportPassage, ...]:
    """Report rows for kept records of any shape: ``id``, ``trust_tier``, ``source`` and ``score``
    are read when the record has them (an anonymous one is named by position), its tokens from
    ``costs``, its heading path from ``heading_paths``; ids in ``refilled`` are noted as such.

    >>> from types import SimpleNamespace
    >>> rows = report_passages([SimpleNamespace(id="a", score=0.5, trust_tier="first-party"), "plain"],
    ...                        costs={"a": 12}, heading_paths={"a": ("Guide",)})
    >>> [(row.id, row.tier, row.score, row.tokens, row.heading_path) for row in rows]
    [('a', 'first-party', 0.5, 12, ('Guide',)), ('#1', None, None, None, ())]
    """
    known = costs or {}
    paths = heading_paths or {}
    back = frozenset(refilled)
    rows: list[ReportPassage] = []
    for position, record in enumerate(records):
        key = getattr(record, "id", None)
        name = key if isinstance(key, str) else f"#{position}"
        score = getattr(record, "score", None)
        tier = getattr(record, "trust_tier", None)
        source = getattr(record, "source", None)
        rows.append(ReportPassage(
            name,
            tier=tier if isinstance(tier, str) else None,
            source=source if isinstance(source, str) else None,
            heading_path=paths.get(name, ()),
            score=float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None,
            tokens=known.get(name),
            note="refilled" if name in back else "",
        ))
    return tuple(rows)


def _text(value: object) -> str:
    # A lone surrogate cannot be written as UTF-8 (a file, a notebook's JSON): shown as "?".
    return html.escape(str(value).encode("utf-8", "replace").decode("utf-8"), quote=True)


def _number(value: int | float | None) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        return f"{value:,.2f}" if not value.is_integer() else f"{int(value):,}"
    # An int past Python's digit limit cannot be printed; it is described instead.
    return f"{value:,}" if value.bit_length() <= _PRINTABLE_BITS else shown(value)


def _raw(value: int | float) -> str:
    """A number for a data attribute, as a test or a script would read it back."""
    return repr(value) if isinstance(value, float) or value.bit_length() <= _PRINTABLE_BITS else "NaN"


def _score(value: float | None) -> str:
    return "–" if value is None or not math.isfinite(value) else f"{value:.3f}"


def _colour(segment: BarSegment) -> str:
    if segment.kind == "kept":
        return _COLOURS.get(segment.label, _COLOURS[_OTHER])
    return _COLOURS[segment.kind]


_CSS: Final = """
.tfp-report{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d1d1f;
background:#fff;max-width:1100px;margin:0 auto;padding:16px 20px}
.tfp-report h1{font-size:20px;margin:0 0 4px}
.tfp-report h2{font-size:16px;margin:22px 0 8px}
.tfp-report .tfp-headline{margin:0 0 14px;color:#444}
.tfp-report .tfp-refused{color:#b00020;font-weight:600}
.tfp-report .tfp-bar{display:flex;height:44px;border:1px solid #888;border-radius:4px;overflow:hidden}
.tfp-report .tfp-seg{height:100%;min-width:0;box-sizing:border-box}
.tfp-report .tfp-seg.tfp-beyond{background-image:repeating-linear-gradient(45deg,rgba(255,255,255,.55) 0 5px,transparent 5px 10px)}
.tfp-report .tfp-seg.tfp-edge{border-left:3px solid #111}
.tfp-report .tfp-scale{position:relative;height:34px;font-size:12px;color:#555;margin-top:3px}
.tfp-report .tfp-scale span{position:absolute;white-space:nowrap}
.tfp-report .tfp-caption{font-size:12px;color:#666;margin:0}
.tfp-report td.tfp-nowrap{white-space:nowrap}
.tfp-report .tfp-stats{display:flex;flex-wrap:wrap;gap:8px;margin:0;padding:0}
.tfp-report .tfp-stats div{border:1px solid #e3e3e3;border-radius:4px;padding:4px 10px;min-width:90px}
.tfp-report .tfp-stats dt{font-size:11px;color:#666}
.tfp-report .tfp-stats dd{margin:0;font-weight:600;font-variant-numeric:tabular-nums}
.tfp-report .tfp-legend{display:flex;flex-wrap:wrap;gap:6px 16px;margin:10px 0 0;padding:0;list-style:none}
.tfp-report .tfp-swatch{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.tfp-report table{border-collapse:collapse;width:100%;font-size:13px}
.tfp-report th,.tfp-report td{border-bottom:1px solid #e3e3e3;padding:4px 8px;text-align:left;vertical-align:top}
.tfp-report td.tfp-num,.tfp-report th.tfp-num{text-align:right;font-variant-numeric:tabular-nums}
.tfp-report td.tfp-id{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-all}
.tfp-report .tfp-empty{color:#666;font-style:italic}
"""


def _bar(segments: tuple[BarSegment, ...], window: int | float) -> str:
    scale = sum(segment.tokens for segment in segments)
    parts: list[str] = []
    edge_drawn = False
    for segment in segments:
        width = 100 * segment.tokens / scale if scale else 0
        classes = "tfp-seg"
        if segment.beyond:
            classes += " tfp-beyond"
            if not edge_drawn:
                classes += " tfp-edge"
                edge_drawn = True
        where = "beyond the window" if segment.beyond else "in the window"
        label = f"{segment.label}: {_number(segment.tokens)} tokens {where}"
        parts.append(
            f'<div class="{classes}" data-kind="{segment.kind}" data-label="{_text(segment.label)}"'
            f' data-tokens="{_raw(segment.tokens)}" data-beyond="{str(segment.beyond).lower()}"'
            f' title="{_text(label)}" style="width:{width:.4f}%;background-color:{_colour(segment)}"></div>'
        )
    beyond = scale - window
    edge = 100 * window / scale if scale else 100
    # The window's edge is labelled where it falls (the label ends at the edge when the edge is
    # past the middle); what lies beyond is labelled after it, on a second line when there is no room:
    # under 15% of the bar left, or an edge left of the middle, whose own label starts there.
    anchor = f"right:{100 - edge:.4f}%" if edge > 50 else f"left:{edge:.4f}%"
    room = edge > 50 and 100 - edge >= 15
    place = f"left:{edge:.4f}%;padding-left:6px" if room else "right:0;top:16px"
    tail = f'<span class="tfp-tail" style="{place}">+{_number(beyond)} beyond</span>' if beyond > 0 else ""
    return (
        f'<div class="tfp-bar" role="img" aria-label="the context window" data-window="{_raw(window)}">'
        + "".join(parts)
        + f'</div><div class="tfp-scale"><span>0</span><span class="tfp-edge-label" style="{anchor}">'
        + f"window {_number(window)}</span>{tail}</div>"
    )


def _legend(segments: tuple[BarSegment, ...]) -> str:
    items = []
    for segment in segments:
        where = " (beyond the window)" if segment.beyond and segment.kind != "shed" else ""
        kind = "" if segment.kind == segment.label else f"{segment.kind} "
        items.append(
            f'<li><span class="tfp-swatch" style="background-color:{_colour(segment)}"></span>'
            f"{_text(kind + segment.label)}{where}: {_number(segment.tokens)}</li>"
        )
    return '<ul class="tfp-legend">' + "".join(items) + "</ul>"


def _table(
    head: tuple[str, ...], numeric: frozenset[int], rows: Sequence[tuple[str, ...]], empty: str, name: str,
    tight: frozenset[int] = frozenset(),
) -> str:
    if not rows:
        return f'<p class="tfp-empty" data-table="{name}">{_text(empty)}</p>'
    num = ' class="tfp-num"'
    cells = "".join(f"<th{num if i in numeric else ''}>{_text(h)}</th>" for i, h in enumerate(head))
    body = []
    for row in rows:
        tds = []
        for i, cell in enumerate(row):
            cls = num if i in numeric else ' class="tfp-id"' if i == 0 else ' class="tfp-nowrap"' if i in tight else ""
            tds.append(f"<td{cls}>{cell}</td>")
        body.append("<tr>" + "".join(tds) + "</tr>")
    return f'<table data-table="{name}"><thead><tr>{cells}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _headline(trace: ThriftTrace) -> str:
    numbers = (
        f"{_number(trace.total_after)} of a {_number(trace.budget)}-token budget "
        f"(window {_number(trace.context_window)}, reserve {_number(trace.reserve)}); "
        f"{_number(trace.total_before)} tokens were offered"
    )
    if trace.refused:
        return (
            f'<p class="tfp-headline tfp-refused">Refused: the protected floor alone exceeds the budget. '
            f"{numbers}.</p>"
        )
    verdict = "Fits" if trace.fits else "Does not fit"
    return f'<p class="tfp-headline">{verdict}: {numbers}.</p>'


def fit_report_html(
    trace: ThriftTrace,
    kept: Iterable[ReportPassage] = (),
    shed: Iterable[ReportShed] | None = None,
    *,
    title: str = "What the model sees",
) -> str:
    """One self-contained HTML page picturing a fit: the window bar (`fit_report_bar`), the shed
    items (``shed``; by default `report_shed` of the trace), the ``kept`` passages and the trace's
    numbers. No script, font or image; inline CSS only; every text escaped.

    >>> from thrift_fp.thrift import BucketTrace
    >>> trace = ThriftTrace(1000, 350, 650, 900, 600, True, False, (
    ...     BucketTrace("retrievables", 700, 400, 7, 4, "lowest score first", ("<b>x</b>",)),))
    >>> page = fit_report_html(trace, [ReportPassage("kb-1", tier="first-party", score=0.9)])
    >>> page.startswith("<!DOCTYPE html>"), "&lt;b&gt;x&lt;/b&gt;" in page, "<b>x</b>" in page
    (True, True, False)
    """
    segments = fit_report_bar(trace)
    gone = report_shed(trace) if shed is None else tuple(shed)
    passages = tuple(kept)
    shed_rows = [
        (_text(item.id), _text(item.bucket), _text(item.reason), _number(item.tokens)) for item in gone
    ]
    kept_rows = [
        (
            _text(row.id), _text(row.tier or "–"), _text(row.source or "–"),
            _text(" › ".join(row.heading_path) or "–"), _score(row.score), _number(row.tokens), _text(row.note),
        )
        for row in passages
    ]
    pass_rows = [
        (
            _text(step.bucket), _number(step.before_tokens), _number(step.after_tokens),
            f"{_number(step.before_count)} → {_number(step.after_count)}", _number(len(step.ids)), _text(step.note),
        )
        for step in trace.buckets
    ] + [
        (
            _text(f"{step.bucket} (refill)"), _number(step.before_tokens), _number(step.after_tokens),
            f"{_number(step.before_count)} → {_number(step.after_count)}", f"+{len(step.ids)}", "shed items brought back",
        )
        for step in trace.refilled
    ]
    numbers = [
        ("context window", _number(trace.context_window)), ("output reserve", _number(trace.reserve)),
        ("budget", _number(trace.budget)), ("tokens offered", _number(trace.total_before)),
        ("tokens kept", _number(trace.total_after)), ("fits", str(trace.fits).lower()),
        ("refused", str(trace.refused).lower()), ("shed order", _text(trace.shed_order)),
    ]
    return "".join((
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        # Nothing may load: no script, no font, no image, no frame; only the inline style.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>{_text(title)}</title><style>{_CSS}</style></head>",
        f'<body><div class="tfp-report"><h1>{_text(title)}</h1>',
        _headline(trace),
        _bar(segments, trace.context_window),
        '<p class="tfp-caption">The bar is the context window: what was kept, per bucket, the free budget',
        " and the output reserve. Hatched, past the window's edge: what was shed (and, when a fit is refused,",
        " what the protected floor overruns).</p>",
        _legend(segments),
        f"<h2>Shed ({len(gone)})</h2>",
        _table(("id", "bucket", "reason", "tokens"), frozenset({3}), shed_rows, "Nothing was shed.", "shed",
               frozenset({1})),
        f"<h2>Kept passages ({len(passages)})</h2>",
        _table(("id", "tier", "source", "heading path", "score", "tokens", "note"), frozenset({4, 5}), kept_rows,
               "No passages were kept.", "kept", frozenset({1})),
        "<h2>Trace</h2>",
        '<dl class="tfp-stats" data-table="numbers">',
        "".join(f"<div><dt>{_text(k)}</dt><dd>{v}</dd></div>" for k, v in numbers),
        "</dl>",
        "<h2>Passes</h2>",
        _table(("bucket", "tokens before", "tokens after", "items", "removed", "note"), frozenset({1, 2, 4}),
               pass_rows, "No passes ran.", "passes"),
        "</div></body></html>\n",
    ))
