"""The tutorial and the how-to pages show, under every ``$ relplan`` line, what the command
prints: each page's commands run (at 80 columns, without colour) and their output is
compared with the page's, only what must vary normalised (scripts/make_doc_outputs.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import REPO, doc_outputs

shown = doc_outputs()
HOWTOS = [page for page in shown.PAGES if page.parent.name == "howto" and page.stem != "index"]


@pytest.fixture(scope="module")
def runner():
    return shown.Runner()  # commands that write no file run once for every page


@pytest.mark.slow  # every command of the pages: about 25 s of CPU
@pytest.mark.parametrize("page", shown.PAGES, ids=lambda page: page.stem)
def test_every_command_of_the_page_prints_what_the_page_shows(page: Path, runner) -> None:
    differences = shown.differences(page, runner)
    assert not differences, "\n\n".join(
        [*differences, "python scripts/make_doc_outputs.py rewrites the outputs shown"])


@pytest.mark.parametrize("page", shown.PAGES, ids=lambda page: page.stem)
def test_every_command_shows_some_of_its_output(page: Path) -> None:
    for command in shown.shown_commands(page):
        real = [line for line in command.lines if line != shown.ELLIPSIS]
        assert real, f"{page.name}: $ relplan {command.command} shows no output"
        # an excerpt shows more than it leaves out: lines between its gaps
        assert len(real) > command.lines.count(shown.ELLIPSIS), command.command


def test_the_tutorial_and_every_howto_show_commands_steps_and_the_tutorial_a_figure() -> None:
    tutorial = REPO / "docs" / "tutorial.md"
    assert len(shown.shown_commands(tutorial)) >= 5
    assert re.search(r"^```\{figure\} \S+\.png$", tutorial.read_text(), flags=re.MULTILINE)
    assert len(HOWTOS) >= 6
    for page in HOWTOS:
        steps = re.findall(r"^## (\d+)\. ", page.read_text(), flags=re.MULTILINE)
        assert steps[:3] == ["1", "2", "3"], f"{page.name}: no numbered steps"
        assert shown.shown_commands(page), f"{page.name}: no command shown"


def test_the_comparison_sees_a_changed_number_and_ignores_what_varies(tmp_path: Path) -> None:
    printed = ("relplan: compiling the engine for first use (cached afterwards): done in 38 s\n"
               f"wrote 2 files to {tmp_path}/out/x: a.png, b.svg   \n"
               "goodput 0.9782\nlost hours 16.1\n\n")  # fmt: skip
    actual = shown.normalise(printed, tmp_path)
    assert actual == ["wrote 2 files to out/x: a.png, b.svg", "goodput 0.9782", "lost hours 16.1"]
    assert shown.matches(actual, actual)
    assert shown.matches(["wrote 2 files to out/x: ...", "...", "lost hours 16.1"], actual)
    assert not shown.matches([*actual[:2], "lost hours 16.2"], actual)  # a number changed
    assert not shown.matches(actual[:2], actual)  # a line missing at the end
    assert shown.excerpt_like(["wrote ...", "...", "old"], actual) == [
        actual[0], "...", "lost hours 16.1"]


def test_a_stale_page_is_rewritten_with_what_the_command_prints(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("Intro.\n\n```console\n$ relplan validate configs/small.toml\nok: stale\n"
                    "```\n\nAfter.\n")  # fmt: skip
    runner = shown.Runner()
    assert shown.regenerate(page, runner)
    text = page.read_text()
    assert "ok: stale" not in text and "ok: configs/small.toml is valid" in text
    assert text.startswith("Intro.\n\n```console\n$ relplan validate") and text.endswith(
        "```\n\nAfter.\n")
    assert not shown.regenerate(page, runner)  # current now: left as it is
