"""What every ``relplan`` command shares: its options, and one way to report bad input.

Light on purpose (typer and relplan's light modules only), like all of :mod:`relplan.cli`.
"""

from __future__ import annotations

import functools
import signal
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from relplan.errors import (
    BAD_INPUT_EXIT_CODE,
    INTERRUPTED_EXIT_CODE,
    ConfigError,
    InfeasibleJobError,
    RelplanWarning,
)

ConfigArgument = Annotated[
    Path,
    typer.Argument(help="TOML config file (see configs/).", show_default=False, metavar="CONFIG"),
]


def quiet_option(*flags: str, metavar: str, help: str, **more: Any) -> Any:
    """A ``typer.Option`` that shows no default: its ``help`` says what it falls back to.

    Parameters
    ----------
    *flags : str
        The option's names (``--trials``); none: typer names it after the parameter.
    metavar : str
        What its value is called in the help (``N``, ``DURATION``).
    help : str
        What it does, and its default when it has one.
    **more : Any
        Anything else ``typer.Option`` takes (``min``, ``parser``, ...).

    Returns
    -------
    typer.models.OptionInfo
        The option, for an ``Annotated`` parameter.
    """
    return typer.Option(*flags, metavar=metavar, help=help, show_default=False, **more)


SetOption = Annotated[list[str] | None, quiet_option(
    "--set", metavar="KEY=VALUE",
    help="Override a config key, e.g. --set job.checkpoint.interval=30min (repeatable).",
)]  # fmt: skip
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
FreshOption = Annotated[
    bool,
    typer.Option("--fresh", help="Ignore the finished points stored in the output folder."),
]
TRIALS, SEED, WORKERS, DIR = "N", "SEED", "N", "DIR"
"""Metavars of the options every command shares."""

TrialsOption = Annotated[int | None, quiet_option(
    "--trials", metavar=TRIALS, min=1,
    help="Monte Carlo trials (per interval, scenario or point) [default: from the config].",
)]  # fmt: skip
SeedOption = Annotated[int | None, quiet_option(
    "--seed", metavar=SEED, min=0,
    help="Seed of every random number, shared by every scenario [default: from the config].",
)]  # fmt: skip
WorkersOption = Annotated[int | None, quiet_option(
    "--workers", metavar=WORKERS, min=1,
    help="Threads running at once; changes no number [default: from the config].",
)]  # fmt: skip
HorizonOption = Annotated[str | None, quiet_option(
    "--horizon", metavar="DURATION",
    help="Run over a calendar window, e.g. 28d, instead of job.work (sets job.horizon).",
)]  # fmt: skip

PointWorkersOption = Annotated[int | None, quiet_option(
    "--workers", metavar=WORKERS, min=1,
    help="Points run at once, each in a local process (1: one at a time in this "
         "process, on every core); changes no number [default: the config's "
         "simulation.workers, else every core].",
)]  # fmt: skip
DaskOption = Annotated[str | None, quiet_option(
    "--dask", metavar="ADDRESS",
    help='Run the points on Dask: "local" (a cluster of --workers workers in this '
         "process) or a scheduler address (checked first).",
)]  # fmt: skip
IntervalOption = Annotated[str | None, quiet_option(
    "--interval", metavar="DURATION",
    help="Checkpoint interval, e.g. 45min (sets job.checkpoint.interval).",
)]  # fmt: skip


YesOption = Annotated[
    bool,
    typer.Option("--yes", help="Run even when the run has more than 100,000 points."),
]


def _folder(text: str) -> Path:
    """An ``--out`` value as a folder; an empty one is refused (it would be the current
    folder, by accident)."""
    if not text.strip():
        raise ValueError("is empty: name a folder (. for the current one)")
    return Path(text)


def out_option(what: str) -> Any:
    """The ``--out DIR`` option of a command that writes ``what`` there."""
    return quiet_option("--out", metavar=DIR, help=f"Write {what}.", parser=_folder)


def duration_override(option: str, key: str, value: str | None) -> list[str]:
    """The ``--set`` item of a duration option such as ``--interval`` (none without one).

    Raises
    ------
    ConfigError
        Naming the option when its value is not a positive duration.

    Examples
    --------
    >>> duration_override("--horizon", "job.horizon", "28d")
    ['job.horizon="28d"']
    """
    if value is None:
        return []
    from relplan.config.toml_text import toml_value
    from relplan.units import UnitError, parse_duration_hours

    try:
        hours = parse_duration_hours(value)
    except UnitError as error:
        raise ConfigError(option, str(error)) from None
    if hours <= 0:
        raise ConfigError(option, f"must be greater than 0 (got {value!r})")
    return [f"{key}={toml_value(value)}"]


def interval_override(interval: str | None) -> list[str]:
    """The ``--set`` item of an ``--interval`` option (none without one).

    Raises
    ------
    ConfigError
        Naming ``--interval`` when it is not a positive duration.

    Examples
    --------
    >>> interval_override("45min")
    ['job.checkpoint.interval="45min"']
    """
    return duration_override("--interval", "job.checkpoint.interval", interval)


def horizon_override(horizon: str | None) -> list[str]:
    """The ``--set`` item of a ``--horizon`` option: a calendar window instead of the
    config's ``job.work`` (none without one).

    Examples
    --------
    >>> horizon_override("28d")
    ['job.horizon="28d"']
    """
    return duration_override("--horizon", "job.horizon", horizon)


def parse_jointly(text: str) -> tuple[str, list[str]]:
    """``--jointly KEY=V1,V2,...``: the key and its values.

    Raises
    ------
    ConfigError
        Naming ``--jointly`` when there is no ``=``, no key or fewer than two values.

    Examples
    --------
    >>> parse_jointly("health.probe.every=6h, 12h,24h")
    ('health.probe.every', ['6h', '12h', '24h'])
    """
    key, equals, listed = text.partition("=")
    values = [value.strip() for value in listed.split(",") if value.strip()]
    if not equals or not key.strip() or len(values) < 2:
        raise ConfigError("--jointly", f"expected KEY=V1,V2,... with two values or more "
                                       f"(got {text!r})")  # fmt: skip
    return key.strip(), values


def command_overrides(overrides: list[str] | None, interval: str | None = None,
                      horizon: str | None = None) -> list[str]:  # fmt: skip
    """A command's ``--set`` items followed by those of ``--interval`` and ``--horizon``.

    Raises
    ------
    ConfigError
        Naming the key when ``--set`` sets it too (one of the two would be lost), or the
        option when its value is not a positive duration.

    Examples
    --------
    >>> command_overrides(["job.spares=2"], interval="45min")
    ['job.spares=2', 'job.checkpoint.interval="45min"']
    >>> command_overrides(["job.checkpoint.interval=1h"], interval="45min")
    Traceback (most recent call last):
    ...
    relplan.errors.ConfigError: job.checkpoint.interval: given by --set and by --interval: ...
    """
    items = list(overrides or [])
    keys = {item.partition("=")[0].strip() for item in items}
    for option, extra in (("--interval", interval_override(interval)),
                          ("--horizon", horizon_override(horizon))):  # fmt: skip
        for item in extra:
            key = item.partition("=")[0]
            if key in keys:
                raise ConfigError(key, f"given by --set and by {option}: give one of them")
        items += extra
    return items


def print_warnings(items: Iterable[object], where: str = "") -> None:
    """Print each warning as one ``warning: KEY: message`` line on stderr.

    Parameters
    ----------
    items : iterable
        Objects whose ``str`` is ``KEY: message`` (such as
        :class:`~relplan.errors.RelplanWarning`).
    where : str
        Appended to each line, e.g. `` (scenario dual-ToR)``.
    """
    from rich.markup import escape

    from relplan.cli.render import error_console

    for warning in items:
        error_console.print(f"[bold yellow]warning:[/] {escape(str(warning))}{escape(where)}",
                            highlight=False, soft_wrap=True)  # fmt: skip

PROGRESS_LABEL_WIDTH = 12
"""Characters of a progress bar's label (longer labels are cut with an ellipsis)."""


def _counted(done: int, total: int | None) -> str:
    return f"{done:,}/{total:,}" if total is not None else f"{done:,}"


@contextmanager
def points_progress(label: str, points: int | None, trials_per_point: int,
                    show: bool) -> Iterator[Callable[[int, int], None] | None]:  # fmt: skip
    """A progress bar on stderr counting finished points and trials (None when not shown).

    One line of at most 80 columns: ``LABEL  [bar]  points 3/12  trials 1,500/6,000
    0:00:04``; the bar follows the trials. Points that run in this process report their
    trials block by block (10,000 trials), points that run elsewhere all at once when
    they finish.

    Parameters
    ----------
    label : str
        What runs (cut to :data:`PROGRESS_LABEL_WIDTH` characters).
    points : int, optional
        The points to finish; None when not known beforehand (a plan's local search).
    trials_per_point : int
        Trials of each point.
    show : bool
        Whether to show it (False yields None).

    Yields
    ------
    callable or None
        ``advance(trials, points)``: count trials and points newly finished (see
        :data:`relplan.runs.executor.Progress`).
    """
    if not show:
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from relplan.cli.render import error_console

    if len(label) > PROGRESS_LABEL_WIDTH:
        label = label[: PROGRESS_LABEL_WIDTH - 1] + "\u2026"
    total = None if points is None else points * trials_per_point
    done = {"points": 0, "trials": 0}

    def counts() -> str:
        return (f"points {_counted(done['points'], points)}  trials "
                f"{_counted(done['trials'], total)}")  # fmt: skip

    with Progress(TextColumn(f"{label:<{PROGRESS_LABEL_WIDTH}}"), BarColumn(bar_width=12),
                  TextColumn("{task.fields[counts]}"), TimeElapsedColumn(),
                  console=error_console, transient=True) as bar:  # fmt: skip
        task = bar.add_task(label, total=total, counts=counts())

        def advance(trials: int, finished: int) -> None:
            done["trials"] += trials
            done["points"] += finished
            bar.update(task, completed=done["trials"], counts=counts())

        yield advance


Command = TypeVar("Command", bound=Callable[..., Any])


def _fail(key: str, message: str) -> typer.Exit:
    from rich.markup import escape

    from relplan.cli.render import error_console

    error_console.print(f"[bold red]error:[/] {escape(key)}: {escape(message)}", highlight=False,
                        soft_wrap=True)  # fmt: skip
    return typer.Exit(code=BAD_INPUT_EXIT_CODE)


@contextmanager
def printed_warnings() -> Iterator[None]:
    """Print each :class:`~relplan.errors.RelplanWarning` the library gives, once, as a
    ``warning: KEY: message`` line on stderr, the moment it is given; other warnings are
    shown as Python shows them."""
    printed: set[str] = set()
    with warnings.catch_warnings():
        warnings.simplefilter("always", RelplanWarning)
        show_other = warnings.showwarning

        def show(message: Warning | str, category: type[Warning], *args: Any,
                 **kwargs: Any) -> None:  # fmt: skip
            if not issubclass(category, RelplanWarning):
                show_other(message, category, *args, **kwargs)
            elif str(message) not in printed:
                printed.add(str(message))
                print_warnings([message])

        warnings.showwarning = show
        yield


@contextmanager
def noting_interrupts() -> Iterator[list[bool]]:
    """While the body runs, note each Ctrl-C (SIGINT) before it raises KeyboardInterrupt.

    Some compiled libraries turn a KeyboardInterrupt raised inside them into another
    exception (matplotlib's C++ transforms give a ``TypeError``), so a Ctrl-C while a
    plot is drawn would end in that exception's traceback. The note lets the caller tell
    that the exception is the interrupt. Only Python's own handler is wrapped, in the
    main thread: SIGINT ignored (``nohup``) or handled by someone else stays so.

    Yields
    ------
    list of bool
        Empty until a SIGINT arrives, then ``[True]``.

    Examples
    --------
    >>> with noting_interrupts() as noted:
    ...     pass
    >>> noted
    []
    """
    noted: list[bool] = []
    ours = threading.current_thread() is threading.main_thread() and (
        signal.getsignal(signal.SIGINT) is signal.default_int_handler)

    def note(signum: int, frame: Any) -> None:
        noted.append(True)
        signal.default_int_handler(signum, frame)

    if ours:
        signal.signal(signal.SIGINT, note)
    try:
        yield noted
    finally:
        if ours:
            signal.signal(signal.SIGINT, signal.default_int_handler)


def _interrupted() -> typer.Exit:
    """Say ``interrupted`` on stderr; the exit of an interrupted command (code 130)."""
    from relplan.cli.render import error_console

    error_console.print("interrupted", highlight=False)
    return typer.Exit(code=INTERRUPTED_EXIT_CODE)


def reports_errors(command: Command) -> Command:
    """Turn the library's input errors into one message and exit code 2; print its
    warnings once (:func:`printed_warnings`); end a command that Ctrl-C interrupted with
    one line and exit code 130, whatever exception the interrupt surfaced as
    (:func:`noting_interrupts`)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with noting_interrupts() as noted:
            try:
                with printed_warnings():
                    return command(*args, **kwargs)
            except ConfigError as error:
                raise _fail(error.key, error.message) from None
            except InfeasibleJobError as error:
                raise _fail("job", str(error)) from None
            except KeyboardInterrupt:
                raise _interrupted() from None
            except Exception:
                if noted:  # the interrupt, turned into another exception on its way
                    raise _interrupted() from None
                raise

    return wrapper  # type: ignore[return-value]


