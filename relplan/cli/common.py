"""What every ``relplan`` command shares: its options, and one way to report bad input.

Light on purpose (typer and relplan's light modules only), like all of :mod:`relplan.cli`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from relplan.errors import ConfigError, InfeasibleJobError

ConfigArgument = Annotated[
    Path,
    typer.Argument(help="TOML config file (see configs/).", show_default=False, metavar="CONFIG"),
]
SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="KEY=VALUE",
        help="Override a config key, e.g. --set job.checkpoint.interval=30min (repeatable).",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
TRIALS, SEED, WORKERS, DIR = "N", "SEED", "N", "DIR"
"""Metavars of the options every command shares."""

Command = TypeVar("Command", bound=Callable[..., Any])


def _fail(key: str, message: str) -> typer.Exit:
    from relplan.cli.render import error_console

    error_console.print(f"[bold red]error:[/] {key}: {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code=2)


def reports_errors(command: Command) -> Command:
    """Turn the library's input errors into one message and exit code 2."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except ConfigError as error:
            raise _fail(error.key, error.message) from None
        except InfeasibleJobError as error:
            raise _fail("job", str(error)) from None
        except KeyboardInterrupt:
            from relplan.cli.render import error_console

            error_console.print("interrupted", highlight=False)
            raise typer.Exit(code=130) from None

    return wrapper  # type: ignore[return-value]


