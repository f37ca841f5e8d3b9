"""The repository's shape: no leftover merge-conflict markers, no two modules of one file
name, and a file map on the development page that names every module of the package."""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import REPO

MARKER = re.compile(r"^(<<<<<<< |>>>>>>> |=======$)", flags=re.MULTILINE)
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".csv", ".json", ".cfg", ".ini", ".yml",
                 ".yaml", ".html"}  # fmt: skip
PACKAGE = REPO / "relplan"
FILE_MAP_PAGE = REPO / "docs" / "development.md"
ENTRY = re.compile(r"[\w.-]+/?")


def _tracked_text_files() -> list[str]:
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True,
                                text=True, check=True).stdout.split()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [name for name in listed if any(name.endswith(s) for s in TEXT_SUFFIXES)]


def test_no_file_holds_a_merge_conflict_marker() -> None:
    marked = [name for name in _tracked_text_files()
              if MARKER.search((REPO / name).read_text(encoding="utf-8", errors="replace"))]
    assert marked == []


def _modules() -> list[Path]:
    """Every module of the package, relative to the repository."""
    return sorted(path.relative_to(REPO) for path in PACKAGE.rglob("*.py")
                  if "__pycache__" not in path.parts)  # fmt: skip


def file_map(text: str) -> tuple[set[str], set[str]]:
    """The files and folders the development page's file map names, as repository paths.

    The map is the fenced block that starts with ``relplan/``: one entry a line, its name
    first, indented two spaces a level under its folder (a name ending in ``/``).
    """
    found = re.search(r"^```\n(relplan/\n.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)
    assert found, "no file map (a fenced block starting with relplan/)"
    files: set[str] = set()
    folders: set[str] = set()
    parents: list[str] = []
    for line in found.group(1).splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        name = line.split()[0]
        assert indent % 2 == 0 and ENTRY.fullmatch(name), f"not an entry: {line!r}"
        depth = indent // 2
        assert depth <= len(parents), f"one line each, under its folder: {line!r}"
        del parents[depth:]
        path = "/".join([*parents, name.rstrip("/")])
        if name.endswith("/"):
            folders.add(path)
            parents.append(name.rstrip("/"))
        else:
            files.add(path)
    return files, folders


def test_no_two_modules_share_a_file_name() -> None:
    """One name, one module: ``plan.py`` in three packages reads as one file in a
    traceback, a search or a review (a package's ``__init__.py`` aside)."""
    names = Counter(path.name for path in _modules() if path.name != "__init__.py")
    shared = {name: sorted(str(path) for path in _modules() if path.name == name)
              for name, count in names.items() if count > 1}  # fmt: skip
    assert shared == {}


def test_the_file_map_names_every_module_and_only_files_that_exist() -> None:
    files, folders = file_map(FILE_MAP_PAGE.read_text(encoding="utf-8"))
    missing = [str(path) for path in _modules()
               if str(path) not in files
               and not (path.name == "__init__.py" and str(path.parent) in folders
                        and path.parent != PACKAGE.relative_to(REPO))]  # fmt: skip
    assert missing == [], f"modules the file map of {FILE_MAP_PAGE.name} does not name"
    gone = sorted([name for name in files if not (REPO / name).is_file()]
                  + [name + "/" for name in folders if not (REPO / name).is_dir()])
    assert gone == [], f"entries of the file map of {FILE_MAP_PAGE.name} that do not exist"


def test_the_file_map_is_read_by_folder_and_refuses_a_wrapped_line() -> None:
    text = ("```\nrelplan/\n  a.py   what a is\n  sub/   a folder\n    b.py  what b is\n"
            "tests/   the tests\n```\n")
    assert file_map(text) == ({"relplan/a.py", "relplan/sub/b.py"},
                              {"relplan", "relplan/sub", "tests"})  # fmt: skip
    # a description that runs onto a second line is not an entry, at any indent
    for wrapped in ("         words than a line", "        words than a line"):
        with pytest.raises(AssertionError):
            file_map(f"```\nrelplan/\n  a.py   what a is, in more\n{wrapped}\n```\n")
