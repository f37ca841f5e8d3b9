"""The repository's text files hold no leftover merge-conflict markers."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.conftest import REPO

MARKER = re.compile(r"^(<<<<<<< |>>>>>>> |=======$)", flags=re.MULTILINE)
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".csv", ".json", ".cfg", ".ini", ".yml",
                 ".yaml", ".html"}  # fmt: skip


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
