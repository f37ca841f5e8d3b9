"""The one interface of every result :mod:`relplan.api` returns.

Each result holds what the command line prints with ``--json`` and gives it back the same
ways: :meth:`Result.summary` (that JSON object, the same keys), :meth:`Result.to_frame`
(a pandas DataFrame), :meth:`Result.plot` (a matplotlib figure, on ``ax=`` when given),
:meth:`Result.write` (files in a folder, as ``--out`` writes them), a short ``repr`` and
an HTML view for notebooks. Attributes of the library object behind a result (such as a
simulation's ``model`` or an optimum's ``young_hours``) are reached through it.
"""

from __future__ import annotations

import copy
import html
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relplan.errors import ConfigError

REPR_LIMIT = 600
"""Characters at most of a result's ``repr``."""

FrameMaker = Callable[[], Any]
Plotter = Callable[[Any], Any]
Writer = Callable[[Path], list[Path]]


@dataclass(frozen=True, repr=False, eq=False)
class Result:
    """What one relplan command found.

    Attributes
    ----------
    command : str
        The command (``simulate``, ``optimize``, ``compare``, ...).
    headline : str
        One line saying what was found (the start of the ``repr``).
    data : dict
        The ``--json`` object of the command.
    value : object, optional
        The library object behind the result (a
        :class:`~relplan.analysis.results.SimulationResult`, an
        :class:`~relplan.analysis.optimize.IntervalOptimum`, ...); its attributes are
        reached through the result.

    Examples
    --------
    >>> result = Result("catalog", "2 entries", {"entries": [{"class": "gpu"}, {"class": "nic"}]},
    ...                 frame=lambda: __import__("pandas").DataFrame([{"class": "gpu"}]))
    >>> result
    <relplan catalog: 2 entries>
    >>> result.summary()["entries"][0]
    {'class': 'gpu'}
    """

    command: str
    headline: str
    data: dict[str, Any]
    value: Any = None
    frame: FrameMaker | None = None
    plots: Mapping[str, Plotter] = field(default_factory=dict)
    writer: Writer | None = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("value", "data"):
            raise AttributeError(name)
        value = self.__dict__.get("value")
        if value is not None and hasattr(value, name):
            return getattr(value, name)
        raise AttributeError(f"{type(self).__name__} of {self.command!r} has no {name!r}")

    def summary(self) -> dict[str, Any]:
        """The ``--json`` object of the command (a copy): the same keys, the same numbers
        for the same inputs, trials and seed."""
        return copy.deepcopy(self.data)

    def to_frame(self) -> Any:
        """The result as a pandas DataFrame (what each row is depends on the command: a
        trial, an interval, a scenario, a point, a component class, ...)."""
        if self.frame is None:
            import pandas as pd

            return pd.json_normalize(self.data)
        return self.frame()

    def plot(self, kind: str | None = None, ax: Any = None) -> Any:
        """Draw the result.

        Parameters
        ----------
        kind : str, optional
            Which figure (see :attr:`plot_kinds`); by default the first.
        ax : matplotlib.axes.Axes, optional
            Draw on these axes (in the caller's figure) instead of a new figure.

        Returns
        -------
        matplotlib.figure.Figure
            The figure drawn on.

        Raises
        ------
        ConfigError
            Naming ``kind`` when it is not one of :attr:`plot_kinds`, or when the command
            has no figure.
        """
        if not self.plots:
            raise ConfigError("kind", f"a {self.command} result has no figure; see to_frame()")
        chosen = kind if kind is not None else next(iter(self.plots))
        if chosen not in self.plots:
            raise ConfigError("kind", f"{chosen!r} is not a figure of {self.command} (one of "
                                      f"{', '.join(self.plots)})")  # fmt: skip
        return self.plots[chosen](ax)

    @property
    def plot_kinds(self) -> list[str]:
        """The figures :meth:`plot` draws, the default first."""
        return list(self.plots)

    def write(self, directory: str | Path) -> list[Path]:
        """Write the result's files into ``directory`` (created if needed), each atomically:
        what the command's ``--out`` writes, as one run as ``--out`` does (the previous
        run's files are replaced together, see :func:`relplan.output.files.write_run`), or,
        for a command without one, ``<command>.json`` (the summary) and ``<command>.csv``
        (the frame).

        Returns
        -------
        list of Path
            The files written.
        """
        from relplan.output.files import check_output_dir, to_json, write_run, write_text_atomic

        folder = Path(directory)
        check_output_dir(folder, "directory")
        if self.writer is not None:
            return write_run(folder, self.writer, "directory")
        folder.mkdir(parents=True, exist_ok=True)
        json_path, csv_path = folder / f"{self.command}.json", folder / f"{self.command}.csv"
        write_text_atomic(json_path, to_json(self.data) + "\n")
        write_text_atomic(csv_path, self.to_frame().to_csv(index=False))
        return [json_path, csv_path]

    def __repr__(self) -> str:
        text = f"<relplan {self.command}: {self.headline}>"
        if len(text) > REPR_LIMIT:
            text = text[: REPR_LIMIT - 5] + "...>"
        return text

    def _repr_html_(self) -> str:
        frame = self.to_frame()
        rows = frame.head(20)
        more = (f"<p>{len(frame) - len(rows)} more rows: <code>.to_frame()</code></p>"
                if len(frame) > len(rows) else "")  # fmt: skip
        return (f"<div><strong>relplan {html.escape(self.command)}</strong>: "
                f"{html.escape(self.headline)}{rows.to_html(max_cols=12)}{more}</div>")
