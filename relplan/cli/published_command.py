"""``relplan published``: relplan against published figures (the validation suite).

Thin: parse, call :func:`relplan.published.run_validation`, render a table of 80
columns, print JSON, or write the table as CSV, JSON and Markdown. Like the rest of
:mod:`relplan.cli`, no heavy library is imported at module level.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from relplan.cli.common import JsonOption, out_option

if TYPE_CHECKING:
    from rich.console import Console

COLUMNS = ("case", "published", "relplan", "tolerance", "verdict")
"""The terminal table's columns (the Markdown and CSV have every field)."""


def render_validation(data: dict[str, Any], cells: list[dict[str, str]],
                      console: Console | None = None) -> None:  # fmt: skip
    """Print the validation table (80 columns) and its tally.

    Parameters
    ----------
    data : dict
        The ``--json`` object (for the tally).
    cells : list of dict
        Each case's :meth:`~relplan.published.ValidationCase.cells`.
    console : rich.console.Console, optional
        Where to print (default: relplan's console).
    """
    from relplan.cli import render

    out = console if console is not None else render.console
    titles = {"prediction": "predictions from published inputs",
              "calibration": "calibrations (an input set from the figure)",
              "consistency": "consistency checks (the model against its own inputs)"}
    kinds = [kind for kind in titles if any(row.get("kind") == kind for row in cells)]
    for number, kind in enumerate(kinds):
        last = number == len(kinds) - 1
        table = render.compact_table(
            (f"relplan against published figures (seed {data['seed']})\n"
             if number == 0 else "") + titles[kind],
            caption=("tolerance: 4 SE of relplan + the published figure's own uncertainty;\n"
                     "sources, inputs and notes: relplan published --json, or --out DIR"
                     if last else None),
        )  # fmt: skip
        for index, column in enumerate(COLUMNS):
            header = "relplan [95% CI]" if column == "relplan" else column
            table.add_column(header, justify="left" if index in (0, 4) else "right")
        for row in cells:
            if row.get("kind") == kind:
                table.add_row(*(row[column] for column in COLUMNS))
        out.print(table)
    resting = [case for case in data.get("cases", []) if case.get("sensitivity")]
    if resting:
        out.print("resting on an assumed input, at other values of it:", highlight=False,
                  markup=False)  # fmt: skip
    for case in resting:
        unit = case["unit"] if case["unit"] == "%" else f" {case['unit']}"
        others = ", ".join(f"{item['relplan']:.4g}{unit} at {item['input']}"
                           for item in case["sensitivity"])  # fmt: skip
        out.print(f"  {case['case']}: {others}", highlight=False,
                  markup=False)  # fmt: skip
    out.print(
        f"{data['passed']} pass, {data['explained']} explained, {data['failed']} fail",
        highlight=False,
        markup=False,
    )


def published_command(
    as_json: JsonOption = False,
    out: Annotated[
        Path | None, out_option("validation.csv, validation.json and validation.md here")
    ] = None,
) -> None:
    """Check relplan against published figures: Daly, Meta, Llama 3, ByteRobust, HLAT.

    (Was "relplan validation", still accepted. relplan validate checks a config.)

    Each case shows the published figure, relplan's with its 95% CI, the tolerance and
    the verdict (pass, fail, or explained: a figure relplan is not meant to match, with
    the reason). Exits 1 if a case fails. Fixed seed; well under a minute.
    """
    from relplan.output.files import to_json
    from relplan.published import run_validation

    if out is not None:
        from relplan.output.files import check_output_dir

        check_output_dir(out)
    report = run_validation()
    data = report.to_dict()
    if out is not None:
        from relplan.cli.notes import write_outputs
        from relplan.output.published_files import write_validation_files

        # one run: the old files stay whole until the new ones replace them together
        write_outputs(out, lambda folder: write_validation_files(report, folder))
    if as_json:
        typer.echo(to_json(data))
    else:
        render_validation(data, [case.cells() for case in report.cases])
    if not report.ok:
        raise typer.Exit(code=1)
