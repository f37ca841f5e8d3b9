"""The results of the commands that tell what a config is, without simulating it:
``validate`` (:func:`relplan.check`), ``inventory``, ``baseline``, ``catalog``, and
``warmup``, which compiles the engine the configs need (see :mod:`relplan.api.result`
for the interface they share).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import pandas as pd

from relplan.api.result import ReportResult, Result, relayed
from relplan.units import format_duration

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from relplan.cluster.topology import PortBudget
    from relplan.config.catalog import CatalogEntry

__all__ = ["BaselineResult", "CatalogResult", "CheckResult", "InventoryResult", "WarmupResult"]


def _mtti_text(hours: float | None) -> str:
    return format_duration(hours) if hours is not None else "none (nothing interrupts it)"


@dataclass(frozen=True, repr=False, eq=False)
class CheckResult(Result):
    """What ``relplan validate`` found (:func:`relplan.check`): a valid config's size and
    warnings. An invalid config raises instead.

    Attributes
    ----------
    config_name : str
        The config's name.
    gpus : int
        GPUs of the job.
    job_servers : int
        Servers the job runs on.
    failure_modes : int
        Failure modes in the job's footprint (a link's fabric part counts apart).
    job_mtti_hours : float
        The job's mean time to interruption, hours.
    warnings : tuple of str
        Each ``KEY: message`` (also given as :class:`~relplan.errors.RelplanWarning`).
    port_budget : tuple of PortBudget
        Per switch tier, the ports one switch needs against the ports it has.

    Examples
    --------
    >>> import relplan
    >>> result = relplan.check("configs/small.toml")
    >>> result.gpus, [tier.tier for tier in result.port_budget]
    (512, ['leaf', 'spine'])
    """

    command: ClassVar[str] = "check"
    figures: ClassVar[tuple[str, ...]] = ("port-budget",)

    config_name: str
    gpus: int
    job_servers: int
    failure_modes: int
    job_mtti_hours: float
    warnings: tuple[str, ...]
    port_budget: tuple[PortBudget, ...]

    @property
    def valid(self) -> bool:
        """Always True: an invalid config raises."""
        return True

    def _headline(self) -> str:
        return (f"{self.config_name} is valid: {self.gpus} GPUs on {self.job_servers} servers, "
                f"job MTTI {format_duration(self.job_mtti_hours)}, {len(self.warnings)} "
                "warnings")

    def _summary(self) -> dict[str, Any]:
        return {
            "valid": True,
            "gpus": self.gpus,
            "job_servers": self.job_servers,
            "failure_modes": self.failure_modes,
            "job_mtti_hours": self.job_mtti_hours,
            "warnings": list(self.warnings),
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per switch tier: its switches, the ports one needs down and up, the
        ports it has, whether they fit and the shortfall."""
        return pd.DataFrame([asdict(tier) for tier in self.port_budget]).set_index("tier")

    def _draw(self, kind: str, ax: Axes | None) -> Figure:
        from relplan.output.config_plots import port_budget

        return port_budget([asdict(tier) for tier in self.port_budget], self.config_name, ax=ax)


@dataclass(frozen=True, repr=False, eq=False)
class InventoryResult(ReportResult):
    """What ``relplan inventory`` found (:func:`relplan.inventory`): component counts,
    the fabric and its port budget, each failure mode's rate in the job and the MTTI.

    Attributes
    ----------
    config_name : str
        The config's name.
    report : dict
        :func:`relplan.analysis.inventory_report.inventory_report`'s record (the
        ``--json`` object).

    Examples
    --------
    >>> import relplan
    >>> result = relplan.inventory("configs/small.toml")
    >>> result.job_servers, result.units["gpu"]
    (64, 512)
    """

    command: ClassVar[str] = "inventory"
    figures: ClassVar[tuple[str, ...]] = ("failure-share", "units")

    config_name: str
    report: dict[str, Any]

    job_servers = relayed("report.job_servers", "int", "Servers the job runs on.")
    spare_servers = relayed("report.spare_servers", "int", "Spare servers set aside for the job.")
    job_mtti_hours = relayed(
        "report.job_mtti_hours",
        "float | None",
        "The job's mean time to interruption, hours (None when nothing interrupts it).",
    )

    @property
    def units(self) -> dict[str, int]:
        """Units of each component class in the job's footprint."""
        return {cls: entry["job_units"] for cls, entry in self.report["components"].items()}

    @property
    def failure_share(self) -> dict[str, float]:
        """Each failure mode's share of the job's failures per hour (fractions, adding up
        to 1)."""
        return {mode: entry["share"] for mode, entry in self.report["failure_modes"].items()}

    def _headline(self) -> str:
        return (f"{self.config_name}: {self.job_servers} job servers, {self.spare_servers} "
                f"spares, job MTTI {_mtti_text(self.job_mtti_hours)}")

    def to_frame(self) -> pd.DataFrame:
        """One row per failure mode (its unit, units in the job, lifetime, repair, rate
        in the job, share, impact, ...), indexed by the mode."""
        return pd.DataFrame.from_dict(self.report["failure_modes"], orient="index")

    def _draw(self, kind: str, ax: Axes | None) -> Figure:
        from relplan.output import config_plots

        if kind == "units":
            return config_plots.units_by_class(self.report["components"], self.config_name,
                                               ax=ax)  # fmt: skip
        return config_plots.interruption_share(self.report["failure_modes"], self.config_name,
                                               ax=ax)  # fmt: skip


@dataclass(frozen=True, repr=False, eq=False)
class BaselineResult(ReportResult):
    """What ``relplan baseline`` found (:func:`relplan.baseline`): the job's healthy step
    per parallelism dimension, and its failure rates.

    Attributes
    ----------
    config_name : str
        The config's name.
    report : dict
        :func:`relplan.analysis.baseline_report.job_baseline`'s record (the ``--json``
        object).

    Examples
    --------
    >>> import relplan
    >>> result = relplan.baseline("configs/seed-moe-10k.toml")
    >>> round(result.step_time_s, 3), "expert" in result.to_frame().index
    (5.045, True)
    """

    command: ClassVar[str] = "baseline"
    figures: ClassVar[tuple[str, ...]] = ("step-time",)

    config_name: str
    report: dict[str, Any]

    step_time_s = relayed("report.baseline.step_time_s", "float", "The healthy step, seconds.")
    compute_time_s = relayed(
        "report.baseline.compute_time_s", "float", "The step's compute, seconds."
    )
    exposed_communication_s = relayed(
        "report.baseline.exposed_communication_s",
        "float",
        "The step's communication the compute does not hide, seconds.",
    )
    job_mtti_hours = relayed(
        "report.job_mtti_hours",
        "float | None",
        "The job's mean time to interruption, hours (None when nothing interrupts it).",
    )

    def _headline(self) -> str:
        return (f"{self.config_name}: step {self.step_time_s:.3g} s ({self.compute_time_s:.3g} s "
                f"compute, {self.exposed_communication_s:.3g} s exposed communication), job "
                f"MTTI {_mtti_text(self.job_mtti_hours)}")

    def to_frame(self) -> pd.DataFrame:
        """One row per parallelism dimension (its collective, path, group, volume, time
        and exposed time, bandwidth needed and available), indexed by the dimension."""
        return pd.DataFrame.from_dict(self.report["baseline"]["dimensions"],
                                      orient="index").drop(columns="dimension")  # fmt: skip

    def _draw(self, kind: str, ax: Axes | None) -> Figure:
        from relplan.output.config_plots import step_time_by_dimension

        return step_time_by_dimension(self.report["baseline"], self.config_name, ax=ax)


@dataclass(frozen=True, repr=False, eq=False)
class CatalogResult(Result):
    """relplan's catalog (:func:`relplan.catalog`): the default failure model of every
    component class, and the alternatives, with their sources.

    Attributes
    ----------
    entries : tuple of CatalogEntry
        One per failure model, in the catalog's order.

    Examples
    --------
    >>> import relplan
    >>> catalog = relplan.catalog()
    >>> catalog.entries[0].component, len(catalog.to_frame()) == len(catalog.entries)
    ('gpu', True)
    """

    command: ClassVar[str] = "catalog"
    figures: ClassVar[tuple[str, ...]] = ("mtbf",)

    entries: tuple[CatalogEntry, ...]

    def _headline(self) -> str:
        return f"{len(self.entries)} component classes"

    def _summary(self) -> dict[str, Any]:
        return {"entries": [entry.to_dict() for entry in self.entries]}

    def to_frame(self) -> pd.DataFrame:
        """One row per entry (its class, mode, rate, repair, detection, bases, source,
        fleet, year, whether it is the default, note and MTBF)."""
        return pd.DataFrame(self._summary()["entries"])

    def _draw(self, kind: str, ax: Axes | None) -> Figure:
        from relplan.output.config_plots import catalog_mtbf

        return catalog_mtbf(self._summary()["entries"], ax=ax)


@dataclass(frozen=True, repr=False, eq=False)
class WarmupResult(ReportResult):
    """What ``relplan warmup`` did (:func:`relplan.warmup`): every compiled function the
    runs of the configs call, compiled now or found compiled.

    Attributes
    ----------
    report : dict
        :func:`relplan.runs.compile_ahead.warm_up`'s record (the ``--json`` object):
        ``configs``, ``functions``, ``compiled_now``, ``already_compiled``, ``seconds``.

    Examples
    --------
    >>> import relplan
    >>> result = relplan.warmup(["configs/small.toml"])
    >>> result.compiled_now + result.already_compiled == len(result.to_frame())
    True
    """

    command: ClassVar[str] = "warmup"
    figures: ClassVar[tuple[str, ...]] = ("seconds",)

    report: dict[str, Any]

    @property
    def configs(self) -> list[str]:
        """The configs warmed up (names)."""
        return list(self.report["configs"])

    compiled_now = relayed("report.compiled_now", "int", "Functions compiled by this call.")
    already_compiled = relayed(
        "report.already_compiled", "int", "Functions found compiled in numba's cache."
    )
    seconds = relayed("report.seconds", "float", "The whole warm-up, seconds.")

    def _headline(self) -> str:
        functions = len(self.report["functions"])
        if self.compiled_now:
            return (f"{self.compiled_now} of {functions} functions compiled now, in "
                    f"{self.seconds:.1f} s, for {len(self.configs)} configs")
        return (f"everything already compiled ({functions} functions, {len(self.configs)} "
                "configs)")

    def to_frame(self) -> pd.DataFrame:
        """One row per compiled function: its kind, features, configs and compile
        seconds (null when it was compiled already)."""
        return pd.DataFrame(self.report["functions"])

    def _draw(self, kind: str, ax: Axes | None) -> Figure:
        from relplan.output.config_plots import compile_seconds

        return compile_seconds(self.report["functions"], ax=ax)
