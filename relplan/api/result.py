"""The one interface every result :mod:`relplan.api` returns.

Each command's result is a frozen dataclass of its own (:mod:`relplan.api.run_results`,
:mod:`relplan.api.config_results`, :mod:`relplan.api.calibration_results`) with typed,
documented attributes, and gives what it found back the same ways: :meth:`Result.summary`
(the command's ``--json`` object, the same keys and numbers), :meth:`Result.to_frame` (a
pandas DataFrame), :meth:`Result.plot` (a matplotlib figure, on ``ax=`` when given),
:meth:`Result.write` (files in a folder, as ``--out`` writes them), a short ``repr`` and
an HTML view for notebooks. A result holds data only (no callbacks), so it pickles: a
notebook can keep it, a process pool can send it back.
"""

from __future__ import annotations

import copy
import html
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from relplan.errors import ConfigError

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["REPR_LIMIT", "Estimate", "ReportResult", "Result", "relayed"]

REPR_LIMIT = 600
"""Characters at most of a result's ``repr``."""

HTML_ROWS = 20
"""Rows of the frame a notebook shows of a result."""


def relayed(
    path: str, returns: str, doc: str, then: Callable[[Any], Any] | None = None
) -> property:
    """A read-only attribute that gives a value the result holds in one of its records.

    Parameters
    ----------
    path : str
        Dotted: the record's field first, then an attribute or key at each step
        (``"optimum.young_hours"``, ``"report.baseline.step_time_s"``); a step into a
        mapping is a key, into anything else an attribute.
    returns : str
        The value's type, as an annotation (``"float | None"``).
    doc : str
        The attribute's documentation (its unit where it has one).
    then : callable, optional
        What the value read is given to (``Estimate.from_summary``); by default it is
        given back as it is.

    Returns
    -------
    property
        Typed (its getter's return annotation is ``returns``) and documented.

    Examples
    --------
    >>> class Held:
    ...     report = {"window": {"hours": 24.0}}
    ...     window_hours = relayed("report.window.hours", "float", "The window, hours.")
    >>> Held().window_hours, Held.window_hours.__doc__
    (24.0, 'The window, hours.')
    """
    steps = path.split(".")

    def read(self: object) -> Any:
        value: Any = self
        for step in steps:
            value = value[step] if isinstance(value, Mapping) else getattr(value, step)
        return value if then is None else then(value)

    read.__annotations__["return"] = returns
    return property(read, doc=doc)


@dataclass(frozen=True)
class Estimate:
    """A per-trial quantity summarized: its mean with the 95% confidence interval, its
    spread and its percentiles, in the quantity's unit.

    Attributes
    ----------
    mean : float
        The mean over trials.
    ci95 : tuple of float
        The mean's 95% confidence interval.
    std : float
        The standard deviation over trials.
    sem : float
        The mean's standard error.
    percentiles : dict of str to float
        ``p5``, ``p50``, ``p95``, ``p99`` (:data:`relplan.vocab.PERCENTILES`).

    Examples
    --------
    >>> goodput = Estimate.from_summary({"mean": 0.97, "ci95": [0.96, 0.98], "std": 0.01,
    ...                                  "sem": 0.005, "p5": 0.95, "p50": 0.97})
    >>> goodput.mean, goodput.ci95, goodput.percentiles["p5"]
    (0.97, (0.96, 0.98), 0.95)
    """

    mean: float
    ci95: tuple[float, float]
    std: float
    sem: float
    percentiles: Mapping[str, float]

    @classmethod
    def from_summary(cls, entry: Mapping[str, Any]) -> Estimate:
        """The estimate of one entry of a summary (``{"mean", "ci95", "std", "sem",
        "p5", ...}``)."""
        low, high = entry["ci95"]
        return cls(entry["mean"], (low, high), entry["std"], entry["sem"],
                   {key: value for key, value in entry.items()
                    if key[0] == "p" and key[1:].isdigit()})  # fmt: skip


@dataclass(frozen=True, repr=False, eq=False)
class Result:
    """What one relplan command found: the interface every result class shares.

    A subclass names its ``command`` and ``figures`` and defines its headline
    (``_headline``), the summary (``_summary``), :meth:`to_frame`, the drawing of each
    figure (``_draw``) and, when its command has an ``--out``, the files it writes
    (``_write_files``). It holds data only: methods, never stored callables, so that it
    pickles.

    Attributes
    ----------
    command : str
        The command (``simulate``, ``optimize``, ``compare``, ...); a class attribute.
    figures : tuple of str
        The figures :meth:`plot` draws, the default first; a class attribute (see
        :attr:`plot_kinds`).
    """

    command: ClassVar[str] = ""
    figures: ClassVar[tuple[str, ...]] = ()

    @property
    def headline(self) -> str:
        """One line saying what was found (the start of the ``repr``)."""
        return self._headline()

    def _headline(self) -> str:
        raise NotImplementedError

    def summary(self) -> dict[str, Any]:
        """The ``--json`` object of the command (a new copy each call): the same keys and
        the same numbers, for the same inputs, trials and seed."""
        return copy.deepcopy(self._summary())

    def _summary(self) -> dict[str, Any]:
        raise NotImplementedError

    def to_frame(self) -> pd.DataFrame:
        """The result as a pandas DataFrame (what a row is depends on the command: a
        trial, an interval, a scenario, a point, a failure mode, ...)."""
        raise NotImplementedError

    @property
    def plot_kinds(self) -> list[str]:
        """The figures :meth:`plot` draws, the default first."""
        return list(self.figures)

    def plot(self, kind: str | None = None, ax: Axes | None = None) -> Figure:
        """Draw the result.

        Parameters
        ----------
        kind : str, optional
            Which figure (one of :attr:`plot_kinds`); by default the first.
        ax : matplotlib.axes.Axes, optional
            Draw on these axes (in the caller's figure) instead of a new figure.

        Returns
        -------
        matplotlib.figure.Figure
            The figure drawn on (``ax``'s when given).

        Raises
        ------
        ConfigError
            Naming ``kind`` when it is not one of :attr:`plot_kinds`.
        """
        kinds = self.plot_kinds
        chosen = kinds[0] if kind is None else kind
        if chosen not in kinds:
            raise ConfigError("kind", f"{chosen!r} is not a figure of {self.command} (one of "
                                      f"{', '.join(kinds)})")  # fmt: skip
        return self._draw(chosen, ax)

    def _draw(self, kind: str, ax: Axes | None) -> Figure:
        raise NotImplementedError

    def write(self, directory: str | Path) -> list[Path]:
        """Write the result's files into ``directory`` (created if needed), each
        atomically, as one run as ``--out`` does: the previous run's files are replaced
        together (see :func:`relplan.output.files.write_run`).

        A command with an ``--out`` writes what it writes; the others write
        ``<command>.json`` (the summary), ``<command>.csv`` (the frame) and each figure
        as ``<command>-<kind>.png`` and ``.svg``.

        Returns
        -------
        list of Path
            The files written.

        Raises
        ------
        ConfigError
            Naming ``directory`` when it is a file, or cannot be written.
        """
        from relplan.output.files import check_output_dir, write_run

        folder = Path(directory)
        check_output_dir(folder, "directory")
        return write_run(folder, lambda staging: self._write_files(staging, folder),
                         "directory")  # fmt: skip

    def _write_files(self, folder: Path, final: Path) -> list[Path]:
        """Write the files into ``folder`` (a staging folder, renamed to ``final``
        afterwards); by default the summary, the frame and the figures (a command without
        ``--out``)."""
        import pandas as pd

        from relplan.output.files import to_json, write_text_atomic
        from relplan.output.plots import save_figure

        json_path, csv_path = folder / f"{self.command}.json", folder / f"{self.command}.csv"
        write_text_atomic(json_path, to_json(self._summary()) + "\n")
        frame = self.to_frame()
        write_text_atomic(csv_path, frame.to_csv(index=not isinstance(frame.index,
                                                                     pd.RangeIndex)))
        written = [json_path, csv_path]
        for kind in self.plot_kinds:
            written += save_figure(self.plot(kind), folder / f"{self.command}-{kind}")
        return written

    def __repr__(self) -> str:
        text = f"<relplan {self.command}: {self.headline}>"
        if len(text) > REPR_LIMIT:
            text = text[: REPR_LIMIT - 5] + "...>"
        return text

    def _repr_html_(self) -> str:
        frame = self.to_frame()
        rows = frame.head(HTML_ROWS)
        more = (f"<p>{len(frame) - len(rows)} more rows: <code>.to_frame()</code></p>"
                if len(frame) > len(rows) else "")  # fmt: skip
        return (f"<div><strong>relplan {html.escape(self.command)}</strong>: "
                f"{html.escape(self.headline)}{rows.to_html(max_cols=12)}{more}</div>")


class ReportResult(Result):
    """A result that holds its command's ``--json`` object as it is: its ``report`` field
    (a dict each subclass declares) is its summary."""

    report: dict[str, Any]  # not a field here (no @dataclass): each subclass's own

    def _summary(self) -> dict[str, Any]:
        return self.report
