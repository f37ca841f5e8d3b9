"""``relplan warmup``: compile the engine ahead of the first run, and say what it compiled.

Light on purpose, like all of :mod:`relplan.cli`: the library is imported when the command
runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from relplan.cli.common import JsonOption, SetOption
from relplan.vocab import COMPILED_KINDS

LISTED_CONFIGS = 2
"""Config labels a row names before it counts the others."""


def configs_text(labels: list[str], listed: int = LISTED_CONFIGS) -> str:
    """The configs a function serves, for a table cell: a study's points as one entry
    (``study (3 points)``), the first few entries, then a count of the others.

    Examples
    --------
    >>> configs_text(["small"])
    'small'
    >>> configs_text(["small", "fleet: lemons", "fleet: maintenance", "x", "y"])
    'small, fleet (2 points) and 2 more'
    """
    entries: dict[str, int] = {}
    for label in labels:
        study, _, point = label.partition(": ")
        entries[study if point else label] = entries.get(study if point else label, 0) + (
            1 if point else 0)
    texts = [name if not points else name + (f" ({points} points)" if points > 1
                                             else f": {_point(labels, name)}")
             for name, points in entries.items()]  # fmt: skip
    if len(texts) <= listed:
        return ", ".join(texts)
    return f"{', '.join(texts[:listed])} and {len(texts) - listed} more"


def _point(labels: list[str], study: str) -> str:
    return next(label for label in labels if label.startswith(f"{study}: ")).partition(": ")[2]


def _seconds_text(functions: list[dict[str, Any]]) -> str:
    """What compiling some functions took (their seconds added), or ``cached``."""
    from relplan.units import format_seconds

    compiled = [function["seconds"] for function in functions if function["compiled_now"]]
    return format_seconds(sum(compiled)) if compiled else "cached"


def render_warmup(data: dict[str, Any]) -> None:
    """Print what :func:`relplan.runs.compile_ahead.warm_up` compiled: one row per feature set
    of the walk (the configs that use it, the seconds of its walk and of its traced walk,
    or ``cached``), a line for the other functions, and a line that says how long it took
    or that nothing needed compiling; fits 80 columns."""
    from rich.markup import escape

    from relplan.cli.render import compact_table, console
    from relplan.units import format_seconds

    walk, traced = COMPILED_KINDS[:2]
    configs = len(data["configs"])
    walks: dict[tuple[str, ...], dict[str, list[dict[str, Any]]]] = {}
    others = []
    for function in data["functions"]:
        if function["kind"] in (walk, traced):
            kinds = walks.setdefault(tuple(function["features"]), {walk: [], traced: []})
            kinds[function["kind"]].append(function)
        else:
            others.append(function)
    console.print(f"The walk per feature set, for {configs} config{'s' * (configs != 1)}:",
                  highlight=False)  # fmt: skip
    table = compact_table("")
    table.add_column("features")
    table.add_column("configs")
    table.add_column("walk", justify="right", no_wrap=True)
    table.add_column("traced", justify="right", no_wrap=True)
    for features, kinds in walks.items():
        users = (kinds[walk] or kinds[traced])[0]["configs"]
        table.add_row(escape(", ".join(features) or "none"), escape(configs_text(users)),
                      _seconds_text(kinds[walk]), _seconds_text(kinds[traced]))  # fmt: skip
    console.print(table)
    if others:
        names = ", ".join(dict.fromkeys(function["kind"] for function in others))
        console.print(f"Other compiled functions ({names}): {_seconds_text(others)}",
                      highlight=False)  # fmt: skip
    functions = len(data["functions"])
    if data["compiled_now"] == 0:
        console.print(f"Everything is already compiled ({functions} functions; checked in "
                      f"{format_seconds(data['seconds'])}): nothing to do.",
                      highlight=False)  # fmt: skip
        return
    console.print(f"Compiled {data['compiled_now']} of {functions} functions in "
                  f"{format_seconds(data['seconds'])} (into numba's cache on disk): these "
                  "configs' first runs start without compiling.",
                  highlight=False)  # fmt: skip


def warmup_command(
    config_paths: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="CONFIG", show_default=False,
            help="TOML configs, or studies (their points), to compile for [default: the "
                 "shipped configs and every point of the shipped studies].",
        ),
    ] = None,
    overrides: SetOption = None,
    as_json: JsonOption = False,
) -> None:
    """Compile the engine ahead, so a config's first run starts at once.

    The engine is compiled on first use, once per set of features a config uses (a
    calendar window, maintenance, fail-slow units...), and cached on disk: the first
    run of a config with new features pauses to compile (about 15 s on 2 cores). This
    compiles, without running a trial, the walk of each config's features with and
    without the trace the reports draw, and the other compiled functions a run calls,
    each once; what is already compiled is listed as cached. A second warmup has
    nothing to do.
    """
    from relplan.output.files import to_json
    from relplan.runs.compile_ahead import configs_of, shipped_configs, warm_up

    if config_paths:
        configs = [item for path in config_paths for item in configs_of(path, overrides)]
    else:
        if overrides:
            from relplan.errors import ConfigError

            raise ConfigError("--set", "give the CONFIG files it applies to (without them "
                                       "the shipped configs are warmed as they are)")
        configs = shipped_configs()
    data = warm_up(configs)
    if as_json:
        typer.echo(to_json(data))
        return
    render_warmup(data)
