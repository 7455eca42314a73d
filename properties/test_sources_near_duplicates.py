"""Near-duplicates collapse (issue 34): two passages are one only when they carry the same words.

- **Copies collapse**: the same words under another rendering (case, spacing, punctuation and
  markup characters; for passages of `CONTAINED_WORDS` words or more, a rendering's own words
  added too, such as a title or a footer) are one passage, named by the one kept.
- **Distinct texts never merge**: short texts with other words, and templated texts whose key
  word differs (a word the other text does not hold, in the same place), stay apart.
- **The kept one is the best-scored**: a copy joins the first (best) hit it matches, nothing
  before the last kept hit is lost, and the answer keeps the ranking's order.
- **Renderings of one page cut elsewhere collapse** (`siblings`: one folder, one file name, two
  rendering suffixes, one trust tier): the shorter's words at the edges of the shared text may
  differ (up to `EDGE`), and a short chunk lying whole inside the other is one with it; nothing
  else differs. The same pair under the names of two pages — another
  folder, another case or letter, one more dot, another tier, a JSONL record — keeps the rule
  for distinct pages, so a hostile name never buys the looser rule; a templated page stays
  apart; and whether two passages are one never depends on which is given first.
- **The budget and de-duplication count copies as sent**: `thrift-fp serve` sends one passage
  of a set of copies, names the rest, and never sends a copy in a later answer.
"""

from __future__ import annotations

import math
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType

from hypothesis import given, settings
from hypothesis import strategies as st

from properties.hostile_strategies import examples
from thrift_fp.sources import Hit, index_paths
from thrift_fp.sources.contract import collapsed_hits
from thrift_fp.sources.ranking._duplicates import (
    CONTAINED_WORDS, EDGE, RENDERINGS, SLACK, alike, fingerprint, page_of, siblings,
)

_VOCABULARY = ("shed", "budget", "score", "window", "tier", "nonce", "quota", "commit", "rebase", "log", "the", "a")
_KEYS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta")  # never in _VOCABULARY: a template's key words
_MARKUP_WORDS = ("linkgit", "verse", "manual", "page", "last", "updated", "utc")  # a rendering's own words
# A chunk's own words at a cut (a heading, a list number, the next section's title), one set per
# side so that the two sides' edges never align with each other.
_EDGE_WORDS = (("approach", "steps", "heading", "ssh"), ("1", "2", "echo", "transport"))
_SEPARATORS = (" ", "  ", "\n", "\n  ", ", ", ". ", " - ", " * ", " `", "` ", " |\t")

_words = st.sampled_from(_VOCABULARY)
# Short and long pages alike (Hypothesis favours short lists: the long ones are drawn on purpose).
_pages = st.lists(_words, min_size=1, max_size=CONTAINED_WORDS + 2) | st.lists(
    _words, min_size=CONTAINED_WORDS, max_size=3 * CONTAINED_WORDS
)


@st.composite
def _rendered(draw: st.DrawFn, words: list[str]) -> str:
    """``words`` as another rendering shows them: other case, spacing, punctuation, markup."""
    cases = draw(st.lists(st.sampled_from([str.lower, str.upper, str.title]), min_size=len(words), max_size=len(words)))
    gaps = draw(st.lists(st.sampled_from(_SEPARATORS), min_size=len(words) + 1, max_size=len(words) + 1))
    return gaps[0].strip() + "".join(case(word) + gap for word, case, gap in zip(words, cases, gaps[1:], strict=True))


@st.composite
def _with_markup_words(draw: st.DrawFn, words: list[str]) -> list[str]:
    """``words`` with a rendering's own words inserted anywhere (a title, a footer, ``linkgit``)."""
    out = list(words)
    for _ in range(draw(st.integers(1, 12))):
        out.insert(draw(st.integers(0, len(out))), draw(st.sampled_from(_MARKUP_WORDS)))
    return out


def _hit(n: int, text: str, path: str | None = None, tier: str = "first-party") -> Hit:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    return Hit(f"p{n}#1", f"p{n}", path or f"/p{n}", "text", tier, at, at, f"h{n}", 9, text, 1.0, 1.0 - n / 100,
               MappingProxyType({}))


@st.composite
def _cut_apart(draw: st.DrawFn) -> tuple[list[str], list[str], int]:
    """Two chunks of one page's text cut at other places: a shared run of words, each side with
    its own words before and after it; and how many of the shorter's words lie at its edges."""
    # Numbered words: prose, whose long runs do not repeat (``difflib`` aligns a run of one word
    # repeated greedily, and may then miss a copy: safe, but no rule to test).
    shared = [f"{word}{n}" for n, word in enumerate(draw(
        st.lists(_words, min_size=1, max_size=CONTAINED_WORDS + 2)
        | st.lists(_words, min_size=CONTAINED_WORDS, max_size=3 * CONTAINED_WORDS)))]
    sides = []
    for own in _EDGE_WORDS:
        head, tail = (draw(st.lists(st.sampled_from(own), max_size=4)) for _ in range(2))
        sides.append((head + shared + tail, len(head) + len(tail)))
    (first, first_own), (second, second_own) = sides
    shorter_own = first_own if (len(first), first) <= (len(second), second) else second_own
    return first, second, shorter_own


def _alike_texts(first: str, second: str, first_path: str, second_path: str, tier: str = "first-party") -> bool:
    """Whether ``collapsed_hits`` makes one passage of the two texts read from these files."""
    kept = collapsed_hits([_hit(0, first, first_path), _hit(1, second, second_path, tier)], 2)
    return len(kept) == 1


# Two files that are not one page's renderings, whatever their names share (page.html stands first).
_NOT_SIBLINGS = (
    ("/docs/page.html", "/docs/page.html"),            # one file: two chunks of one rendering
    ("/docs/page.html", "/docs/page.HTML"),            # the same rendering, spelled otherwise
    ("/docs/page.html", "/evil/page.txt"),             # another folder
    ("/docs/page.html", "/docs/sub/page.txt"),         # a folder below
    ("/docs/page.html", "/docs/Page.txt"),             # another case
    ("/docs/page.html", "/docs/pаge.txt"),             # a Cyrillic a
    ("/docs/page.html", "/docs/page.html.txt"),        # one more dot: another stem
    ("/docs/page.html", "/docs/page .txt"),            # a trailing space
    ("/docs/page.html", "/docs/page.jsonl"),           # JSONL records are no rendering
    ("/docs/page.html", "/docs/page.py"),              # nor is code
    ("/docs/page.html", "/docs/page"),                 # nor a file without a suffix
)


@given(st.data(), _cut_apart())
def test_renderings_of_one_page_cut_elsewhere_are_one_passage(
    data: st.DataObject, cut: tuple[list[str], list[str], int]
) -> None:
    first, second, shorter_own = cut
    # The longer may also hold a rendering's own words anywhere (a title, ``linkgit``).
    marked = data.draw(st.booleans())
    if marked:
        if (len(first), first) <= (len(second), second):
            second = data.draw(_with_markup_words(second))
        else:
            first = data.draw(_with_markup_words(first))
    one, other = data.draw(_rendered(first)), data.draw(_rendered(second))
    suffixes = data.draw(st.lists(st.sampled_from(sorted(RENDERINGS)), min_size=2, max_size=2, unique=True))
    merged = _alike_texts(one, other, f"/usr/share/doc/git-doc/git-log{suffixes[0]}",
                          f"/usr/share/doc/git-doc/git-log{suffixes[1]}")
    shorter = min(len(first), len(second))
    if shorter >= CONTAINED_WORDS and shorter_own <= math.floor(EDGE * shorter):
        assert merged
    if shorter < CONTAINED_WORDS and shorter_own == 0 and not marked:
        assert merged  # a short chunk lying whole, in one run, in the other rendering's chunk


@given(st.data(), st.lists(_words, min_size=1, max_size=CONTAINED_WORDS - 1),
       st.lists(st.sampled_from(_EDGE_WORDS[1]), max_size=6), st.lists(st.sampled_from(_EDGE_WORDS[1]), min_size=1, max_size=6))
def test_a_short_chunk_whole_inside_its_other_renderings_chunk_is_one_with_it(
    data: st.DataObject, line: list[str], before: list[str], after: list[str]
) -> None:
    # A synopsis line one rendering cut alone, the other with its neighbours: one passage for
    # the page's renderings, two for different pages (a short text says nothing about the rest).
    short, cut = data.draw(_rendered(line)), data.draw(_rendered(before + line + after))
    assert _alike_texts(cut, short, "/docs/git-stash.txt", "/docs/git-stash.html")
    assert not _alike_texts(cut, short, *data.draw(st.sampled_from(_NOT_SIBLINGS)))


@given(st.data(), _cut_apart(), st.sampled_from(_NOT_SIBLINGS))
def test_the_looser_rule_never_reaches_two_pages_whatever_their_names(
    data: st.DataObject, cut: tuple[list[str], list[str], int], paths: tuple[str, str]
) -> None:
    first, second, _ = cut
    one, other = data.draw(_rendered(first)), data.draw(_rendered(second))
    strict = alike(fingerprint(one), fingerprint(other))
    assert _alike_texts(one, other, *paths) == strict
    # Renderings' names, but another trust tier: an untrusted file never stands for a trusted page.
    assert _alike_texts(one, other, "/docs/page.html", "/docs/page.txt", "third-party-public") == strict


@given(st.data(), st.lists(_words, min_size=CONTAINED_WORDS, max_size=3 * CONTAINED_WORDS),
       st.lists(st.sampled_from(_KEYS), min_size=2, max_size=2, unique=True), st.sampled_from(_NOT_SIBLINGS))
def test_templated_pages_stay_apart_and_one_pages_sections_differing_inside_too(
    data: st.DataObject, page: list[str], keys: list[str], paths: tuple[str, str]
) -> None:
    # One template filled with two key words inside the text (not at its edges).
    slot = data.draw(st.integers(1, len(page) - 1))
    first, second = (page[:slot] + [key] + page[slot:] for key in keys)
    one, other = data.draw(_rendered(first)), data.draw(_rendered(second))
    assert not _alike_texts(one, other, *paths)  # two pages
    assert not _alike_texts(one, other, "/docs/page.html", "/docs/page.txt")  # two sections of one page


@given(st.data(), _cut_apart(), st.sampled_from((*_NOT_SIBLINGS, ("/docs/page.html", "/docs/page.txt"))))
def test_whether_two_passages_are_one_never_depends_on_their_order(
    data: st.DataObject, cut: tuple[list[str], list[str], int], paths: tuple[str, str]
) -> None:
    first, second, _ = cut
    one, other = data.draw(_rendered(first)), data.draw(_rendered(data.draw(_with_markup_words(second))))
    pages = [page_of(path, "first-party") for path in paths]
    assert siblings(*pages) == siblings(*reversed(pages))
    for renderings in (False, True):
        assert alike(fingerprint(one), fingerprint(other), renderings=renderings) == alike(
            fingerprint(other), fingerprint(one), renderings=renderings)
    assert _alike_texts(one, other, *paths) == _alike_texts(other, one, *reversed(paths))
    # The same ranked list collapses the same way each time (nothing hangs on hashing or state).
    hits = [_hit(0, one, paths[0]), _hit(1, other, paths[1]), _hit(2, one, paths[1])]
    assert collapsed_hits(hits, 3) == collapsed_hits(list(hits), 3)


@given(st.data(), _pages)
def test_the_same_words_rendered_otherwise_are_one_passage(data: st.DataObject, page: list[str]) -> None:
    first, second = data.draw(_rendered(page)), data.draw(_rendered(page))
    assert alike(fingerprint(first), fingerprint(second))
    if len(page) >= CONTAINED_WORDS:
        # A longer passage is still the same text with a rendering's own words added to one side.
        more = data.draw(_rendered(data.draw(_with_markup_words(page))))
        assert alike(fingerprint(first), fingerprint(more)) and alike(fingerprint(more), fingerprint(first))


@given(st.data(), _pages, st.lists(st.sampled_from(_VOCABULARY), min_size=1, max_size=CONTAINED_WORDS - 1))
def test_short_texts_with_other_words_never_merge(data: st.DataObject, page: list[str], other: list[str]) -> None:
    # Under CONTAINED_WORDS words, a text is another's copy only with the very same words.
    if other != page:
        assert not alike(fingerprint(data.draw(_rendered(other))), fingerprint(data.draw(_rendered(page))))


@given(st.data(), _pages, st.lists(st.sampled_from(_KEYS), min_size=2, max_size=2, unique=True))
def test_a_template_whose_key_word_differs_never_merges(data: st.DataObject, page: list[str], keys: list[str]) -> None:
    # One template, filled once with each key word (once, or at every slot), even with a
    # rendering's own words added to one side: different words in the same place.
    slots = sorted(data.draw(st.sets(st.integers(0, len(page)), min_size=1, max_size=3)))
    def filled(key: str) -> list[str]:
        out = list(page)
        for slot in reversed(slots):
            out.insert(slot, key)
        return out
    first, second = filled(keys[0]), filled(keys[1])
    if data.draw(st.booleans()):
        second = data.draw(_with_markup_words(second))
    assert not alike(fingerprint(data.draw(_rendered(first))), fingerprint(data.draw(_rendered(second))))


@given(st.data(), st.lists(_words, min_size=CONTAINED_WORDS, max_size=2 * CONTAINED_WORDS),
       st.lists(st.sampled_from(_KEYS), min_size=6, max_size=14))
def test_a_passage_missing_more_than_the_slack_of_the_others_words_is_not_its_copy(
    data: st.DataObject, page: list[str], novel: list[str]
) -> None:
    # Each side holds words of its own (another sentence, not a rendering's markup): when the
    # shorter's own words are more than SLACK of it, the two are different texts.
    first, second = list(page), list(page)
    for n, word in enumerate(novel):
        side = first if n % 2 else second
        side.insert(data.draw(st.integers(0, len(side))), word + ("x" if n % 2 else "y"))
    shorter = min(len(first), len(second))
    own = min(len(novel) // 2, len(novel) - len(novel) // 2)
    if own > SLACK * shorter:
        assert not alike(fingerprint(data.draw(_rendered(first))), fingerprint(data.draw(_rendered(second))))


@given(st.data(), st.lists(_pages, min_size=1, max_size=5), st.lists(st.integers(0, 4), min_size=1, max_size=12),
       st.integers(1, 10))
def test_an_answer_keeps_the_best_of_each_set_of_copies_and_names_the_rest(
    data: st.DataObject, pages: list[list[str]], picks: list[int], limit: int
) -> None:
    texts = [data.draw(_rendered(pages[pick % len(pages)])) for pick in picks]
    hits = [_hit(n, text) for n, text in enumerate(texts)]  # best first: the ranking's order
    kept = collapsed_hits(hits, limit)
    ids = [hit.passage_id for hit in kept]
    assert len(kept) <= limit and ids == [hit.passage_id for hit in hits if hit.passage_id in ids]
    for a, b in ((a, b) for a in range(len(kept)) for b in range(a + 1, len(kept))):
        assert not alike(fingerprint(kept[a].text), fingerprint(kept[b].text))
    # Every hit up to the last kept one is kept or named, once, by the best hit before it that it copies.
    last = max(n for n, hit in enumerate(hits) if hit.passage_id in ids)
    named = {copy.passage_id: hit for hit in kept for copy in hit.copies}
    assert len(named) == sum(len(hit.copies) for hit in kept)
    for n, hit in enumerate(hits[: last + 1]):
        assert (hit.passage_id in ids) != (hit.passage_id in named)
        if hit.passage_id in named:
            keeper = named[hit.passage_id]
            assert keeper.score > hit.score and alike(fingerprint(hit.text), fingerprint(keeper.text))
            first = next(k for k in kept if alike(fingerprint(hit.text), fingerprint(k.text)))
            assert first.passage_id == keeper.passage_id
    # One passage per page's words: renderings of one page never both reach the answer.
    assert len({tuple(fingerprint(hit.text).words) for hit in kept}) == len(kept)


@settings(max_examples=examples(8), deadline=None)
@given(st.data(), st.lists(st.lists(_words, min_size=CONTAINED_WORDS, max_size=40), min_size=2, max_size=4,
                           unique_by=tuple), st.integers(60, 400))
def test_serve_sends_one_of_a_set_of_copies_and_never_a_copy_later(
    data: st.DataObject, pages: list[list[str]], budget: int
) -> None:
    from thrift_fp.serve import SqliteBackend, serve_settings  # noqa: PLC0415 - the mcp extra
    from thrift_fp.serve._arguments import SearchRequest  # noqa: PLC0415
    from thrift_fp.serve._ledger import SessionLedger  # noqa: PLC0415
    from thrift_fp.serve._search import answer_search  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        docs = root / "docs"
        docs.mkdir()
        # Each page twice: as Markdown, and as text with a rendering's own words (so that a question
        # naming them ranks the text first, and the other question the Markdown).
        for n, page in enumerate(pages):
            words = ["budget", *page]
            (docs / f"page{n}.md").write_text(data.draw(_rendered(words)), encoding="utf-8")
            (docs / f"page{n}.txt").write_text(data.draw(_rendered(data.draw(_with_markup_words(words)))), encoding="utf-8")
        index_paths(root / "i.db", [docs], dense=False).unwrap()
        backend, config = SqliteBackend(root / "i.db", dense=False), serve_settings().unwrap()
        ledger = SessionLedger()
        sent: list[str] = []
        for question in ("budget", "budget linkgit verse manual page updated"):
            ledger, answered = answer_search(ledger, SearchRequest(question, budget, config.tiers), backend, config)
            if not answered.map(bool).value_or(False):
                continue  # a budget too small for one passage sends nothing
            rows = answered.unwrap().structured["passages"]
            assert isinstance(rows, list)
            texts = {row["id"]: (docs / Path(str(row["source"])).name).read_text(encoding="utf-8") for row in rows}
            for row in rows:
                # The copies a row names are the other rendering of its page, never in the answer.
                assert all(copy not in texts for copy in row["copies"])
                assert all(copy.split("#")[0].rsplit(".", 1)[0] == str(row["id"]).split("#")[0].rsplit(".", 1)[0]
                           for copy in row["copies"])
            for a, b in ((a, b) for a in texts for b in texts if a < b):
                assert not alike(fingerprint(texts[a]), fingerprint(texts[b]))
            # Nothing sent before, nor a copy of it, is sent again.
            now = [str(row["id"]) for row in rows if row["kept"]]
            assert not any(alike(fingerprint(texts[passage]), fingerprint((docs / Path(old.split("#")[0]).name)
                                                                              .read_text(encoding="utf-8")))
                           for passage in now for old in sent)
            sent += now
            sent += [str(copy) for row in rows if row["kept"] for copy in row["copies"]]
