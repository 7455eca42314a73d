"""Workload 1, counting overhead: a whole fit against tokenizing the same texts once.

Fit 5,000 retrievables of 50-400 words plus 40 messages into a 16k window, and compare with
tokenizing exactly the texts the fit measures once with tiktoken on one thread (target <= 1.1x).
Also reported: tiktoken's threaded batch encoder on the same texts, thrift_fp's own batch
counter alone (so the time the fit spends outside counting is visible), and the same fit with the
passages as real `thrift_fp.records.Retrievable` records, which thrift measures through each
record's own ``estimate_tokens``.

    python -m benchmarks.counting [--profile] [--what-if]

``--what-if`` also times the fit with ``TokenEncoding.count_many`` swapped, inside this process
only, for counting on one thread and for the implementation it replaced (see _whatif.py).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace

from benchmarks._data import SEED, passages
from benchmarks._harness import Report, best_of, run_and_print, seconds
from benchmarks._sets import EPOCH, encoding, rag_set, raw_tiktoken, texts_of
from benchmarks._whatif import per_text_futures_count_many, serial_count_many, with_count_many
from thrift_fp.records import Retrievable
from thrift_fp.thrift import WorkingSet, subtract_to_fit

ITEMS = 5_000
TURNS = 40
WINDOW = 16_000
THREADS = 4  # what thrift_fp's batch counter uses
REPEATS = 9
RECORD_REPEATS = 3
TARGET = 1.1


def _fit(ws: WorkingSet) -> int:
    return subtract_to_fit(ws, WINDOW).unwrap().trace.total_after


def as_records(ws: WorkingSet) -> WorkingSet:
    """The same set with every passage as a first-party `Retrievable` (same id, text and score)."""
    records = tuple(
        Retrievable(str(getattr(item, "id")), str(item.content), "first-party", EPOCH, EPOCH,
                    score=getattr(item, "score"))
        for item in ws.retrievables
    )
    return replace(ws, retrievables=records)


def run(repeats: int = REPEATS) -> Report:
    """Time the fit against single-threaded and batch tokenization of the same texts."""
    ws = rag_set(passages(ITEMS), turns=TURNS)
    texts = texts_of(ws)
    tokenizer = raw_tiktoken()
    counter = encoding()
    encode = tokenizer.encode_ordinary
    tokens = sum(len(encode(text)) for text in texts)
    fitted = subtract_to_fit(ws, WINDOW).unwrap()
    best = best_of(
        {
            "thrift fit": lambda: _fit(ws),
            "tiktoken single": lambda: [len(encode(text)) for text in texts],
            "tiktoken batch": lambda: tokenizer.encode_ordinary_batch(texts, num_threads=THREADS),
            "thrift count_many": lambda: counter.count_many(texts).unwrap(),
        },
        repeats,
    )
    fit, single, batch, count_many = (
        best["thrift fit"], best["tiktoken single"], best["tiktoken batch"], best["thrift count_many"]
    )
    records = as_records(ws)
    if _fit(records) != fitted.trace.total_after:
        raise AssertionError("records and plain passages fit differently")
    with_records = best_of(
        {"records fit": lambda: _fit(records), "tiktoken single": lambda: [len(encode(text)) for text in texts]},
        RECORD_REPEATS,
    )
    ratio = fit / single
    return Report(
        workload="workload 1: counting overhead",
        headline="fit time / tiktoken single-threaded time",
        value=ratio,
        target=f"<= {TARGET}x",
        met=ratio <= TARGET,
        inputs=(
            ("retrievables", f"{ITEMS:,} passages of 50-400 words (seed {SEED})"),
            ("messages", f"{TURNS} chat turns of 5-120 words + system prompt"),
            ("texts measured", f"{len(texts):,} texts, {tokens:,} cl100k_base tokens"),
            ("window", f"{WINDOW:,} (budget {fitted.trace.budget:,}, kept "
                       f"{len(fitted.working_set.retrievables)} retrievables, {fitted.trace.total_after:,} tokens)"),
            ("repeats", f"best of {repeats}, interleaved"),
        ),
        figures=(
            ("thrift fit", seconds(fit)),
            ("tiktoken single-threaded", seconds(single)),
            (f"tiktoken encode_ordinary_batch ({THREADS} threads)", seconds(batch)),
            ("thrift count_many alone (the fit's counting step)", seconds(count_many)),
            ("fit outside counting (fit - count_many)", seconds(max(0.0, fit - count_many))),
            ("batch-threaded / single", f"{batch / single:.2f}x"),
            ("fit / batch-threaded", f"{fit / batch:.2f}x"),
            ("tokenizer throughput (single)", f"{tokens / single / 1e6:.2f} M tokens/s"),
            ("same fit, passages as records.Retrievable (best of "
             f"{RECORD_REPEATS})", f"{seconds(with_records['records fit'])} = "
             f"{with_records['records fit'] / with_records['tiktoken single']:.2f}x tiktoken single"),
        ),
    )


def profile(ws: WorkingSet, rounds: int = 3) -> str:
    """pyinstrument's call trees of ``rounds`` fits of the plain set, then of the records set."""
    from pyinstrument import Profiler

    trees = []
    for name, subject in (("plain passages", ws), ("records.Retrievable", as_records(ws))):
        profiler = Profiler(interval=0.0005)
        profiler.start()
        for _ in range(rounds):
            _fit(subject)
        profiler.stop()
        trees.append(f"-- {name} x{rounds} --\n" + profiler.output_text(unicode=False, color=False))
    return "\n".join(trees)


def what_if(repeats: int = REPEATS) -> str:
    """Fit time with other ``count_many`` implementations, against tokenizing once."""
    ws = rag_set(passages(ITEMS), turns=TURNS)
    texts = texts_of(ws)
    encode = raw_tiktoken().encode_ordinary
    expected = _fit(ws)
    for candidate in (serial_count_many, per_text_futures_count_many):
        if with_count_many(candidate, lambda: _fit(ws))() != expected:
            raise AssertionError(f"{candidate.__name__} changes the fit")
    best = best_of(
        {
            "tiktoken single": lambda: [len(encode(text)) for text in texts],
            "fit as built": lambda: _fit(ws),
            "fit, count_many on one thread": with_count_many(serial_count_many, lambda: _fit(ws)),
            "fit, count_many as before f6d1b90 (a future per text)": with_count_many(
                per_text_futures_count_many, lambda: _fit(ws)
            ),
        },
        repeats,
    )
    single = best["tiktoken single"]
    return "\n".join(
        ["== what-if (count_many swapped in this process only) =="]
        + [f"  {name}: {seconds(value)} = {value / single:.2f}x tiktoken single" for name, value in best.items()]
    )


def main(argv: Sequence[str]) -> int:
    """Run the workload (``--profile``: where a fit spends its time; ``--what-if``: projections)."""
    report = run_and_print(run)
    if "--profile" in argv:
        print(profile(rag_set(passages(ITEMS), turns=TURNS)))
    if "--what-if" in argv:
        print(what_if())
    return 0 if report.met else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
