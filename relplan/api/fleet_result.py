"""The result of a fleet's ``simulate`` (:func:`relplan.simulate_fleet`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from relplan.analysis.fleet_outcome import FleetOutcome
from relplan.api.result import Estimate, Result

if TYPE_CHECKING:
    from pathlib import Path

    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


@dataclass(frozen=True, repr=False, eq=False)
class FleetResult(Result):
    """What ``relplan simulate`` found for a fleet config (``[[jobs]]``): each job's
    trials and the fleet's totals.

    Attributes
    ----------
    outcome : FleetOutcome
        Every job's outcomes and the fleet's per-trial totals.
    name : str
        The fleet's name (its config's ``name``, or its file's stem).

    Examples
    --------
    >>> import relplan
    >>> result = relplan.simulate_fleet("configs/fleets/fleet-mix.toml", trials=20, seed=0)
    >>> list(result.to_frame().columns)[:3]
    ['gpus', 'priority', 'goodput']
    >>> result.summary()["fleet"]["jobs"], result.plot_kinds
    (13, ['gpu-hours-lost-by-job'])
    """

    command: ClassVar[str] = "simulate"
    figures: ClassVar[tuple[str, ...]] = ("gpu-hours-lost-by-job", "spare-pool")

    outcome: FleetOutcome
    name: str

    @functools.cached_property
    def _data(self) -> dict[str, Any]:
        return self.outcome.summary()

    def _summary(self) -> dict[str, Any]:
        return self._data

    @property
    def trials(self) -> int:
        """Trials run (the same for every job)."""
        return self.outcome.trials

    @property
    def seed(self) -> int:
        """The fleet's seed, which fixes every number."""
        return self.outcome.seed

    @property
    def goodput(self) -> Estimate:
        """The fleet's goodput: useful GPU-hours over GPU-hours, a fraction."""
        return Estimate.from_summary(self._data["fleet"]["goodput"])

    @property
    def gpu_hours_lost(self) -> Estimate:
        """The fleet's GPU-hours lost per run."""
        return Estimate.from_summary(self._data["fleet"]["gpu_hours_lost"])

    @property
    def plot_kinds(self) -> list[str]:
        """The figures :meth:`plot` draws: the GPU-hours lost by job, and with a shared
        pool its occupancy over time (``spare-pool``)."""
        return [kind for kind in self.figures
                if kind != "spare-pool" or (self.outcome.fleet.spares > 0
                                            and self.outcome.shared is not None)]  # fmt: skip

    def pool_frame(self) -> pd.DataFrame:
        """The shared pool's spares away over the wall clock (see
        :meth:`~relplan.analysis.fleet_outcome.FleetOutcome.pool_frame`)."""
        return self.outcome.pool_frame()

    def jobs(self) -> dict[str, dict[str, Any]]:
        """Each job's single-job summary (``simulate --json`` of it alone), by name."""
        return self.summary()["jobs"]

    def _headline(self) -> str:
        fleet = self._data["fleet"]
        return (f"{self.name}, {fleet['jobs']} jobs on {fleet['gpus']:,} GPUs, "
                f"{self.trials:,} trials, seed {self.seed}: goodput "
                f"{fleet['goodput']['mean']:.4f}, GPU-hours lost "
                f"{fleet['gpu_hours_lost']['mean']:,.0f}")  # fmt: skip

    def to_frame(self) -> pd.DataFrame:
        """One row per job (see
        :meth:`~relplan.analysis.fleet_outcome.FleetOutcome.jobs_frame`)."""
        return self.outcome.jobs_frame()

    def _draw(self, kind: str, ax: Axes | None) -> Figure:
        from relplan.output.fleet_plots import gpu_hours_lost_by_job, spare_pool_over_time

        if kind == "spare-pool":
            return spare_pool_over_time(self.pool_frame(), self.outcome.fleet.spares,
                                        self.name, ax=ax)  # fmt: skip
        return gpu_hours_lost_by_job(self.to_frame(), self.name, ax=ax)

    def _write_files(self, folder: Path, final: Path) -> list[Path]:
        """What ``simulate --out`` writes for a fleet
        (:data:`relplan.output.fleet_report.FLEET_FILES`)."""
        from relplan.output.fleet_report import write_fleet_outputs

        return write_fleet_outputs(self.outcome, folder, self.name)


@dataclass(frozen=True, repr=False, eq=False)
class FleetComparisonResult(Result):
    """What ``relplan compare`` found for fleet configs (:func:`relplan.compare_fleets`):
    one row per fleet, on common failure streams.

    Attributes
    ----------
    comparison : dict
        :func:`relplan.runs.fleet_compare.compare_fleets`'s ``trials``, ``seed`` and
        ``scenarios``.

    Examples
    --------
    >>> import relplan
    >>> result = relplan.compare_fleets(["configs/fleets/fleet-mix.toml",
    ...                                  "configs/fleets/fleet-pool.toml"], trials=10)
    >>> list(result.to_frame().index), result.plot_kinds
    (['fleet-mix', 'fleet-pool'], ['gpu-hours-lost-by-fleet'])
    """

    command: ClassVar[str] = "compare"
    figures: ClassVar[tuple[str, ...]] = ("gpu-hours-lost-by-fleet",)

    comparison: dict[str, Any]

    def _summary(self) -> dict[str, Any]:
        return self.comparison

    def _headline(self) -> str:
        rows = self.comparison["scenarios"]
        best = max(rows, key=lambda row: row["goodput"])
        return (f"{len(rows)} fleets, {self.comparison['trials']:,} trials: best goodput "
                f"{best['goodput']:.4f} ({best['scenario']})")

    def to_frame(self) -> pd.DataFrame:
        """One row per fleet, indexed by its label."""
        import pandas as pd

        return pd.DataFrame(self.comparison["scenarios"]).set_index("scenario")

    def _draw(self, kind: str, ax: Axes | None) -> Figure:
        from relplan.output.fleet_plots import gpu_hours_lost_by_fleet

        return gpu_hours_lost_by_fleet(self.comparison["scenarios"],
                                       "on common failure streams", ax=ax)

    def _write_files(self, folder: Path, final: Path) -> list[Path]:
        """What ``compare --out`` writes: ``comparison.csv``, ``comparison.json``."""
        from relplan.output.files import write_comparison_files

        return write_comparison_files(self.comparison, folder)
