"""Regenerate the command output shown on the tutorial and the how-to pages.

Under every ``$ relplan ...`` line of a ``console`` block of docs/tutorial.md and
docs/howto/*.md the page shows what the command prints: run in this process at 80
columns without colour, stdout and stderr as a terminal shows them, with only what must
vary normalised (see :func:`normalise`). ``tests/test_doc_outputs.py`` runs the same
commands and fails when a page shows anything else. After a change of numbers or tables:

    python scripts/make_doc_outputs.py                   # every page
    python scripts/make_doc_outputs.py docs/tutorial.md  # one page
    python scripts/make_doc_outputs.py --check           # exit 1 where a page is stale

A shown block may leave lines out with a line of ``...`` (any lines there), and a line
ending in ``...`` stands for any end of that line; a block that still matches is left as
it is, one that does not is rewritten with the same lines left out at its start and end.
Each page's commands run in order in one scratch folder, where ``configs/``,
``studies/`` and ``tests/`` are the repository's and ``out/`` starts empty (so a second
``sweep`` into the same folder reuses the first one's points, and a first one never finds
points of another run); a command that writes no file runs once for every page that
shows it.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "docs" / "tutorial.md", *sorted((REPO / "docs" / "howto").glob("*.md"))]
"""The pages whose commands show their output."""

WIDTH = 80
"""The terminal's columns the outputs are shown at."""

PROMPT = "$ relplan "
ELLIPSIS = "..."
SHARED = ("configs", "studies", "tests")
"""The repository's folders the commands read, as seen from the scratch folder they run
in (where ``out/`` starts empty for each page)."""

_BLOCK = re.compile(r"^```console\n(.*?)^```$", flags=re.MULTILINE | re.DOTALL)
_VARYING = [
    # the live notice while numba compiles the engine: only on a first use
    (re.compile(r"^relplan: compiling .*\n", flags=re.MULTILINE), ""),
    # timings
    (re.compile(r"\b(done|took|in) \d+(\.\d+)? ?(s|ms|min)\b"), r"\1 N s"),
]
"""What varies from run to run and is normalised before a comparison."""


@dataclass
class Shown:
    """One command a page shows, and the output shown under it.

    Attributes
    ----------
    page : Path
        The page.
    command : str
        The arguments after ``relplan``.
    lines : list of str
        The output shown under the command.
    start, end : int
        Where those lines are in the page's text (character offsets).
    """

    page: Path
    command: str
    lines: list[str]
    start: int
    end: int


def shown_commands(page: Path, text: str | None = None) -> list[Shown]:
    """Every ``$ relplan`` command of a page's console blocks, with its shown output."""
    text = page.read_text(encoding="utf-8") if text is None else text
    found: list[Shown] = []
    for block in _BLOCK.finditer(text):
        offset = block.start(1)
        current: Shown | None = None
        for line in block.group(1).splitlines(keepends=True):
            if line.startswith("$ "):
                if not line.startswith(PROMPT):
                    raise ValueError(f"{page.name}: a console block runs {line.strip()!r}")
                current = Shown(page, line[len(PROMPT):].strip(), [], offset + len(line),
                                offset + len(line))  # fmt: skip
                found.append(current)
            elif current is not None:
                current.lines.append(line.rstrip("\n"))
                current.end = offset + len(line)
            offset += len(line)
    return found


def normalise(output: str, scratch: Path | None = None) -> list[str]:
    """The lines of a command's output, with what varies made the same every run: paths
    in the scratch folder relative to it, the compile notice dropped, timings as ``N s``,
    and trailing spaces cut."""
    if scratch is not None:
        for folder in {str(scratch), str(scratch.resolve())}:
            output = output.replace(f"{folder}/", "")
    for pattern, replacement in _VARYING:
        output = pattern.sub(replacement, output)
    lines = [line.rstrip() for line in output.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def matches(shown: list[str], actual: list[str]) -> bool:
    """Whether the shown lines are the actual ones, a line of ``...`` standing for any
    lines and a line ending in ``...`` for any end of that line.

    Examples
    --------
    >>> matches(["a", "...", "z"], ["a", "b", "c", "z"]), matches(["ab..."], ["abc"])
    (True, True)
    >>> matches(["a", "z"], ["a", "b", "z"])
    False
    """
    if not shown:
        return not actual
    head, rest = shown[0], shown[1:]
    if head == ELLIPSIS:
        return any(matches(rest, actual[i:]) for i in range(len(actual) + 1))
    if not actual:
        return False
    same = (actual[0].startswith(head[: -len(ELLIPSIS)]) if head.endswith(ELLIPSIS)
            else actual[0] == head)  # fmt: skip
    return same and matches(rest, actual[1:])


def excerpt_like(shown: list[str], actual: list[str]) -> list[str]:
    """The actual lines, leaving out what the shown lines leave out: the lines between
    as many at the start and at the end as the shown block keeps around its ``...``."""
    if ELLIPSIS not in shown:
        return actual
    head = shown.index(ELLIPSIS)
    tail = len(shown) - 1 - max(i for i, line in enumerate(shown) if line == ELLIPSIS)
    if head + tail >= len(actual):
        return actual
    return [*actual[:head], ELLIPSIS, *(actual[len(actual) - tail:] if tail else [])]


@dataclass
class Runner:
    """Runs the shown commands as the terminal would show them, once each where it can."""

    cache: dict[str, list[str]] = field(default_factory=dict)

    def run(self, command: str, scratch: Path) -> list[str]:
        """The normalised output of ``relplan COMMAND`` run in ``scratch`` (a folder where
        ``configs/``, ``studies/`` and ``tests/`` are the repository's)."""
        if command in self.cache:
            return self.cache[command]
        before = set(scratch.rglob("*"))
        with _terminal(), _inside(scratch):
            from typer.testing import CliRunner

            from relplan.cli.app import app

            result = CliRunner().invoke(app, shlex.split(command),
                                        env={"COLUMNS": str(WIDTH), "NO_COLOR": "1"})  # fmt: skip
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        lines = normalise(result.output, scratch)
        if result.exit_code != 0:
            lines.append(f"[exit {result.exit_code}]")
        if set(scratch.rglob("*")) == before:  # it wrote nothing: the same on every page
            self.cache[command] = lines
        return lines

    def page_outputs(self, page: Path) -> list[tuple[Shown, list[str]]]:
        """Each command of a page with its actual output, run in order in one scratch
        folder (so that ``out/`` is new for each page)."""
        with tempfile.TemporaryDirectory(prefix="relplan-docs-") as folder:
            scratch = Path(folder)
            for name in SHARED:
                (scratch / name).symlink_to(REPO / name, target_is_directory=True)
            return [(shown, self.run(shown.command, scratch)) for shown in shown_commands(page)]


@contextmanager
def _inside(folder: Path) -> Iterator[None]:
    """This process in ``folder`` for a moment."""
    saved = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(saved)


@contextmanager
def _terminal() -> Iterator[None]:
    """The CLI's consoles as an 80-column terminal without colour, for a moment."""
    from rich.console import Console

    import relplan.cli.render as render

    saved = render.console, render.error_console
    render.console = Console(width=WIDTH, color_system=None, force_terminal=False,
                             soft_wrap=False)  # fmt: skip
    render.error_console = Console(stderr=True, width=WIDTH, color_system=None,
                                   force_terminal=False)  # fmt: skip
    try:
        yield
    finally:
        render.console, render.error_console = saved


def differences(page: Path, runner: Runner) -> list[str]:
    """What a page shows that its commands do not print: one unified diff per block."""
    diffs = []
    for shown, actual in runner.page_outputs(page):
        if not matches(shown.lines, actual):
            diffs.append("\n".join(difflib.unified_diff(
                shown.lines, excerpt_like(shown.lines, actual),
                f"{page.relative_to(REPO)}: $ relplan {shown.command}", "printed", lineterm="")))
    return diffs


def regenerate(page: Path, runner: Runner) -> bool:
    """Rewrite the outputs a page shows that its commands no longer print; whether it
    changed."""
    text = page.read_text(encoding="utf-8")
    pieces, last = [], 0
    for shown, actual in runner.page_outputs(page):
        if matches(shown.lines, actual):
            continue
        lines = excerpt_like(shown.lines, actual)
        pieces += [text[last:shown.start], "".join(f"{line}\n" for line in lines)]
        last = shown.end
    if not pieces:
        return False
    updated = "".join(pieces) + text[last:]
    from relplan.output.files import write_atomic

    write_atomic(page, lambda path: path.write_text(updated, encoding="utf-8"))
    return True


def main(argv: list[str] | None = None) -> int:
    """Regenerate (or, with ``--check``, compare) the pages' shown outputs."""
    sys.path.insert(0, str(REPO))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", type=Path, help="pages (default: every page)")
    parser.add_argument("--check", action="store_true",
                        help="print what differs and exit 1; change nothing")
    args = parser.parse_args(argv)
    pages = [path.resolve() for path in args.pages] or PAGES
    runner = Runner()
    stale = 0
    for page in pages:
        if args.check:
            for diff in differences(page, runner):
                print(diff)
                stale += 1
        elif regenerate(page, runner):
            print(f"wrote {page.relative_to(REPO)}")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
