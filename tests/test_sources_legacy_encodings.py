"""Western European single-byte text is read right, or listed with the encodings guessed.

The files in ``tests/legacy_text/`` are real prose (Proust, Hugo, Kafka, Cervantes) saved in
Latin-1 and in Windows-1252 (the cp1252 files hold characters Latin-1 lacks: œ, ’, „ “, —).
charset-normalizer alone read two of them as Windows-1250 ("crčme brűlée").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from thrift_fp.cli import run
from thrift_fp.sources import UndecodableText, index_paths, search_index
from thrift_fp.sources.documents import decode_text

LEGACY = Path(__file__).parent / "legacy_text"
FILES = sorted(LEGACY.glob("*.txt"))
# A phrase from each file, as it reads in the right encoding, and a word to search for it.
PHRASES = {
    "fr.latin-1.txt": ("à peine ma bougie éteinte", "bougie"),
    "fr.cp1252.txt": ("Il avait le cœur bon", "évêque"),
    "de.latin-1.txt": ("aus unruhigen Träumen erwachte", "Ungeziefer"),
    "de.cp1252.txt": ("„Was ist mit mir geschehen?“", "Musterkollektion"),
    "es.latin-1.txt": ("algún palomino de añadidura", "palomino"),
    "es.cp1252.txt": ("—¿Qué gigantes? —dijo Sancho Panza.", "molinos"),
}


def test_every_language_is_there_in_both_encodings() -> None:
    assert [path.name for path in FILES] == sorted(PHRASES)


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_each_file_decodes_to_the_text_it_was_written_in(path: Path) -> None:
    data = path.read_bytes()
    written = "cp1252" if ".cp1252." in path.name else "latin-1"
    decoded = decode_text(data, path.name).unwrap()
    assert decoded.text == data.decode(written)
    assert PHRASES[path.name][0] in decoded.text
    assert decoded.encoding in {"cp1252", "latin-1", "iso8859-15"}


def test_an_index_of_the_folder_finds_each_file_by_an_accented_word(tmp_path: Path) -> None:
    report = index_paths(tmp_path / "index.db", [LEGACY]).unwrap()
    assert report.skipped == () and len(report.chunked) == len(FILES)
    for name, (phrase, word) in PHRASES.items():
        (hit, *_) = search_index(tmp_path / "index.db", word).unwrap()
        assert hit.source.endswith(name) and phrase in hit.text


def test_too_little_text_to_tell_is_listed_with_both_readings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two accented letters: cp1252 reads "café crème", and a Greek or Central European code
    # page reads other letters just as cleanly; neither guess is taken.
    error = decode_text("café crème".encode("latin-1"), "menu.txt").failure()
    assert isinstance(error, UndecodableText)
    assert error.message.startswith("cannot decode menu.txt: byte 0xe9 at offset 3 is not UTF-8; it reads as cp1252")
    assert "statistics cannot tell which: save it as UTF-8" in error.message
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "menu.txt").write_bytes("café crème".encode("latin-1"))
    assert run(["index", str(docs), "--db", str(tmp_path / "index.db")]) == 0
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("thrift-fp: skipped") and "menu.txt" in line and "reads as cp1252" in line


def test_central_european_text_is_listed_with_its_guess_never_read_as_western() -> None:
    czech = ("Rozpočet okna je velikost kontextu mínus rezerva odpovědi. "
             "Nejslabší pasáže se zahazují jako první, podle skóre.")
    error = decode_text(czech.encode("cp1250"), "cs.txt").failure()
    assert isinstance(error, UndecodableText)
    assert "reads as cp1252 (Western European) and as cp1250 (chardet's guess, cs)" in error.message


def test_text_whose_western_reading_is_no_prose_is_read_when_the_detectors_agree() -> None:
    russian = "Если окно модели меньше бюджета, то лишние отрывки отбрасываются по порядку оценки."
    greek = "Ο προϋπολογισμός του παραθύρου είναι το μέγεθος του πλαισίου μείον την κράτηση της απάντησης."
    for text, encoding in ((russian, "cp1251"), (russian, "koi8-r"), (greek, "cp1253")):
        decoded = decode_text(text.encode(encoding), "note.txt").unwrap()
        assert decoded.text == text and decoded.encoding == encoding


def test_western_text_neither_detector_reads_is_listed_with_cp1252_named() -> None:
    # Three short Spanish questions: chardet guesses Greek, charset-normalizer reads nothing.
    # The file used to come back as "no other encoding reads it", its Western reading unnamed.
    error = decode_text("—¿Qué —¿Qué —¿Qué".encode("cp1252"), "q.txt").failure()
    assert isinstance(error, UndecodableText)
    assert "it reads as cp1252 (Western European) and as cp1253 (chardet's guess, el)" in error.message


def test_western_text_no_detector_confirms_is_still_listed_as_cp1252(monkeypatch: pytest.MonkeyPatch) -> None:
    import chardet
    import charset_normalizer

    class NoMatches(list[object]):
        def best(self) -> None:
            return None

    monkeypatch.setattr(chardet, "detect", lambda *_, **__: {"encoding": None, "language": None})
    monkeypatch.setattr(charset_normalizer, "from_bytes", lambda *_, **__: NoMatches())
    error = decode_text("Größe".encode("latin-1"), "g.txt").failure()
    assert isinstance(error, UndecodableText)
    assert error.message.endswith("it reads as cp1252 (Western European), which neither detector confirms: save it as UTF-8")
