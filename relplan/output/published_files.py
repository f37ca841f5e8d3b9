"""The validation suite's files: ``validation.csv``, ``validation.json``, ``validation.md``.

Each is written atomically (:func:`relplan.output.files.write_atomic`).
"""

from __future__ import annotations

import csv
from pathlib import Path

from relplan.output.files import to_json, write_atomic, write_text_atomic
from relplan.published import ValidationReport


def write_validation_files(report: ValidationReport, directory: Path) -> list[Path]:
    """Write the validation table as CSV, JSON and Markdown, each atomically.

    Parameters
    ----------
    report : ValidationReport
        The suite's cases.
    directory : Path
        Output folder (created if missing).

    Returns
    -------
    list of Path
        The files written.

    Examples
    --------
    >>> import tempfile
    >>> from relplan.published import run_validation
    >>> folder = Path(tempfile.mkdtemp())
    >>> [p.name for p in write_validation_files(run_validation(("meta",)), folder)]
    ['validation.csv', 'validation.json', 'validation.md']
    """
    csv_path = directory / "validation.csv"
    json_path = directory / "validation.json"
    markdown_path = directory / "validation.md"
    rows = report.rows()

    def write_csv(temporary: Path) -> None:
        with temporary.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)

    write_atomic(csv_path, write_csv)
    write_text_atomic(json_path, to_json(report.to_dict()) + "\n")
    write_text_atomic(markdown_path, report.to_markdown())
    return [csv_path, json_path, markdown_path]
