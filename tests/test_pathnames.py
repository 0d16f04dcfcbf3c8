"""tracer.files.pathnames names files as pathlib does: the importer's messages and traces quote
them, so a name must come out the same whether pathlib or these string functions made it."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from tracer.files.pathnames import join, listed, name, parent, pathname, stem

#: Spellings pathlib tidies: dots, doubled and trailing slashes, the two roots POSIX has,
#: names with no suffix, a leading dot, a trailing dot, several dots, ``..`` (kept).
NAMES = [
    "",
    ".",
    "./",
    "..",
    "/",
    "//",
    "///",
    "////x",
    "//x/y",
    "/x",
    "s.jsonl",
    "./s.jsonl",
    "a//b/./c.jsonl/",
    "a/../b.jsonl",
    ".hidden",
    "dir/.hidden.jsonl",
    "trailing.",
    "many.dots.trace.jsonl",
    "/abs/path/to/session.jsonl",
    "x/./.",
    "a b/会话.jsonl",
]


@pytest.mark.parametrize("text", NAMES)
def test_names_are_spelled_as_pathlib_spells_them(text: str) -> None:
    path = PurePosixPath(text)
    assert pathname(text) == str(path)
    assert parent(text) == str(path.parent)
    assert name(text) == path.name
    assert stem(text) == path.stem
    assert pathname(path) == str(path)  # a Path given works the same


@pytest.mark.parametrize("base", ["", ".", "/", "//", "a", "./a/", "/a//b"])
@pytest.mark.parametrize("more", [("x",), ("x", "subagents"), ("x/y", "z.jsonl"), ("/r", "q")])
def test_joins_are_spelled_as_pathlib_joins(base: str, more: tuple[str, ...]) -> None:
    assert join(base, *more) == str(PurePosixPath(base, *more))


def test_bytes_are_refused_as_pathlib_refuses_them() -> None:
    with pytest.raises(TypeError):
        PurePosixPath(b"x")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        pathname(b"x")  # type: ignore[arg-type]


def test_a_listing_is_the_sorted_glob(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for n in ["agent-b.jsonl", "agent-a.jsonl", "agent-.jsonl", "agent-c.meta.json", "x.jsonl"]:
        (tmp_path / n).write_text("{}\n")
    (tmp_path / "agent-dir.jsonl").mkdir()  # glob lists a folder of that name too
    (tmp_path / "agent-jsonl").write_text("")  # too short for both ends
    (tmp_path / "sub").mkdir()
    for folder in [tmp_path, str(tmp_path) + "//", tmp_path / "sub" / ".."]:
        found = listed(folder, "agent-", ".jsonl")
        assert found == [str(p) for p in sorted(Path(folder).glob("agent-*.jsonl"))]
        assert len(found) == 4
    monkeypatch.chdir(tmp_path)  # relative names stay relative, as glob gives them
    assert listed(".", "agent-", ".meta.json") == ["agent-c.meta.json"]
    assert [str(p) for p in sorted(Path(".").glob("agent-*.meta.json"))] == ["agent-c.meta.json"]


def test_a_folder_that_cannot_be_listed_lists_nothing(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    for folder in [tmp_path / "missing", tmp_path / "file"]:
        assert listed(folder, "agent-", ".jsonl") == []
        assert list(Path(folder).glob("agent-*.jsonl")) == []
