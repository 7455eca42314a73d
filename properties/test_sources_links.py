"""Property: over generated trees of folders, files and symbolic links (into the root, out of
it, broken, looping), a selection reads exactly the real files reachable inside the root, each
once, and lists every link it did not follow."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from thrift_fp.sources import LinkNotFollowed, select_files
from thrift_fp.sources.documents import read_selected

# ".h" is hidden: the plain walk never enters it, only a link can lead there.
_INSIDE = ("", "a", "a/b", "c", ".h")
_OUTSIDE = ("../out", "../out/d")
_FOLDERS = _INSIDE + _OUTSIDE
_FILES = st.dictionaries(st.sampled_from(_FOLDERS), st.integers(0, 2))
# A link: the folder it sits in (inside the root), and its target: a folder, a file, or nothing.
_TARGETS = st.one_of(
    st.sampled_from(_FOLDERS),
    st.tuples(st.sampled_from(_FOLDERS), st.integers(0, 1)).map(lambda pair: f"{pair[0]}/f{pair[1]}.md"),
    st.just("missing"),
)
_LINKS = st.lists(st.tuples(st.sampled_from(_INSIDE), _TARGETS), max_size=6)


def _build(root: Path, files: dict[str, int], links: list[tuple[str, str]]) -> None:
    for folder in _FOLDERS:
        (root / folder).mkdir(parents=True, exist_ok=True)
    for folder, count in files.items():
        for n in range(count):
            (root / folder / f"f{n}.md").write_text(f"{folder} {n}")
    for n, (where, target) in enumerate(links):
        (root / where / f"l{n}.md").symlink_to(root / target)


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def _reachable(root: Path) -> tuple[set[Path], list[Path]]:
    """The oracle: real files reachable from the root through folders and through links that
    stay inside it, and every link met in the folders reached."""
    files: set[Path] = set()
    links: list[Path] = []
    folders, seen = [root], {root}
    while folders:
        for entry in sorted(folders.pop().iterdir()):
            if entry.name.startswith("."):
                continue
            target = Path(os.path.realpath(entry))
            if entry.is_symlink():
                links.append(entry)
                if not (target.exists() and _inside(target, root)):
                    continue
            if target.is_dir() and target not in seen:
                seen.add(target)
                folders.append(target)
            elif target.is_file():
                files.add(target)
    return files, links


@given(files=_FILES, links=_LINKS)
def test_a_selection_reads_the_reachable_files_inside_the_root_once(
    files: dict[str, int], links: list[tuple[str, str]]
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch).resolve() / "docs"
        _build(root, files, links)
        selection = select_files([root]).unwrap()
        taken = [found.path for found in selection.files]
        reachable, met = _reachable(root)
        assert len(taken) == len(set(taken)), "a file taken twice"
        assert set(taken) == reachable
        assert all(Path(os.path.realpath(path)) == path and _inside(path, root) for path in taken)
        skipped = {Path(item.path) for item in selection.skipped}
        for link in met:
            target = Path(os.path.realpath(link))
            if not (target.exists() and _inside(target, root)):
                assert link in skipped, f"{link} -> {target} passed over silently"
        for item in selection.skipped:
            if isinstance(item.error, LinkNotFollowed):
                assert not _inside(Path(item.error.target), root) or "already indexed" in item.message


@given(files=_FILES, links=_LINKS, swapped=st.sets(st.sampled_from(("a", "a/b", "c"))), outward=st.sampled_from(_OUTSIDE))
def test_a_folder_swapped_for_a_link_after_the_selection_is_never_read_through(
    files: dict[str, int], links: list[tuple[str, str]], swapped: set[str], outward: str
) -> None:
    # Between selection and reading, folders inside the root become links out of it (the attack
    # O_NOFOLLOW alone misses: it guards the last component only). Every selected file then reads
    # as what it was, or not at all; never a file outside the root.
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch).resolve() / "docs"
        _build(root, files, links)
        for n in range(2):
            (root / outward / f"f{n}.md").write_text(f"../out {n}")
        selection = select_files([root]).unwrap()
        for folder in sorted(swapped, key=len, reverse=True):
            if (root / folder).is_dir() and not (root / folder).is_symlink():
                (root / folder).rename(root / f"{folder}.moved")
                (root / folder).symlink_to(root / outward, target_is_directory=True)
        for found in selection.files:
            try:
                data = read_selected(found.path)
            except OSError:
                continue
            assert not data.startswith(b"../out"), (found.path, data)
