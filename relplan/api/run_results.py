"""The results of the commands that run the Monte Carlo engine: ``simulate``,
``optimize``, ``compare``, ``sweep`` and ``plan`` (see :mod:`relplan.api.result` for the
interface they share).

Each holds the library's own records (a
:class:`~relplan.analysis.results.SimulationResult`, an
:class:`~relplan.analysis.optimize.IntervalOptimum`, a study's points, ...) and gives their
numbers as typed attributes; ``summary()`` is built from them as the command line builds
its ``--json`` object, so the two agree key for key and number for number.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pandas as pd

from relplan.api.result import Estimate, Result, relayed
from relplan.units import format_duration

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from relplan.analysis.optimize import IntervalOptimum, JointSearch, TierOptimum
    from relplan.analysis.results import SimulationResult
    from relplan.config.schema import RelplanConfig
    from relplan.config.study import Study

__all__ = ["CompareResult", "OptimizeResult", "PlanResult", "SimulateResult", "StudyResult"]


def _estimate(key: str, doc: str) -> property:
    """A result's :class:`Estimate` of one quantity of its summary (``goodput``, ...)."""
    return relayed(f"_data.{key}", "Estimate", doc, Estimate.from_summary)


@dataclass(frozen=True, repr=False, eq=False)
class SimulateResult(Result):
    """What ``relplan simulate`` found (:func:`relplan.simulate`): every trial's outcome.

    Attributes
    ----------
    simulation : SimulationResult
        The engine's per-trial outcomes, with the model they were run on.
    config : RelplanConfig
        The config simulated (overrides applied).
    source : str or None
        The config's file (None for a config given as a value), named by the report.
    step_baseline : dict or None
        The healthy step's parts, seconds (the summary's ``baseline``; None without a
        ``[workload]``).

    Examples
    --------
    >>> import relplan
    >>> result = relplan.simulate("configs/small.toml", trials=100, seed=0)
    >>> result.trials, result.goodput.ci95[0] < result.goodput.mean < result.goodput.ci95[1]
    (100, True)
    >>> result.plot_kinds[0]
    'lost-hours-histogram'
    """

    command: ClassVar[str] = "simulate"
    figures: ClassVar[tuple[str, ...]] = ("lost-hours-histogram", "lost-hours-cdf",
                                          "lost-hours-by-bucket", "failures-by-mode")

    simulation: SimulationResult
    config: RelplanConfig
    source: str | None = None
    step_baseline: dict[str, float] | None = None

    model = relayed(
        "simulation.model", "SimulationModel", "The simulated job and its failure modes."
    )
    config_name = relayed(
        "simulation.config_name", "str", "The config's name (or its file's stem)."
    )
    trials = relayed("simulation.trials", "int", "Trials run.")
    seed = relayed("simulation.seed", "int", "The seed that fixes every number.")

    goodput = _estimate("goodput", "Goodput (ETTR): work done over wall time, a fraction.")
    wall_hours = _estimate("wall_hours", "Wall-clock time of the job, hours.")
    lost_hours = _estimate("lost_hours", "Wall time not spent on work done, hours.")
    interruptions = _estimate("interruptions", "Failures that stopped the job, per trial.")

    @property
    def lost_hours_breakdown(self) -> dict[str, float]:
        """Mean lost hours per bucket (``rework``, ``checkpoint``, ...), hours."""
        return dict(self._data["lost_hours_breakdown"])

    provenance = relayed(
        "simulation.provenance",
        "dict[str, Any]",
        "The relplan version, config digest, seed and trials.",
    )

    def _headline(self) -> str:
        goodput = self.goodput
        return (f"{self.config_name}, {self.trials:,} trials, seed {self.seed}: goodput "
                f"{goodput.mean:.4f} (95% CI {goodput.ci95[0]:.4f} to {goodput.ci95[1]:.4f}), "
                f"wall P50 {format_duration(self.wall_hours.percentiles['p50'])}")

    @functools.cached_property
    def _data(self) -> dict[str, Any]:
        data = self.simulation.summary()
        if self.step_baseline is not None:
            data["baseline"] = dict(self.step_baseline)
        return data

    def _summary(self) -> dict[str, Any]:
        return self._data

    def to_frame(self) -> pd.DataFrame:
        """One row per trial (see
        :meth:`~relplan.analysis.results.SimulationResult.trials_frame`; shared, treat it
        as read-only)."""
        return self.simulation.trials_frame()

    def _draw(self, kind: str, ax: Axes | None) -> Figure:
        from relplan.output import plots
        from relplan.output.report import failure_table

        name = self.config_name
        if kind == "lost-hours-histogram":
            return plots.lost_hours_histogram(self.to_frame(), name, ax=ax)
        if kind == "lost-hours-cdf":
            return plots.lost_hours_cdf(self.to_frame(), name, ax=ax)
        if kind == "lost-hours-by-bucket":
            return plots.lost_hours_by_bucket(self._data["lost_hours_breakdown"], name, ax=ax)
        return plots.failures_by_mode(failure_table(self._data), name, ax=ax)

    def _write_files(self, folder: Path, final: Path) -> list[Path]:
        """What ``simulate --out`` writes."""
        from relplan.output.report import write_simulation_outputs

        return write_simulation_outputs(self.simulation, folder, self.source)


@dataclass(frozen=True, repr=False, eq=False)
class OptimizeResult(Result):
    """What ``relplan optimize`` found (:func:`relplan.optimize_interval`): the
    checkpoint interval by Young, Daly and the Monte Carlo curve.

    Attributes
    ----------
    optimum : IntervalOptimum
        The interval study: closed forms, the curve and the Monte Carlo optima.
    tiers : TierOptimum or None
        The best pair of fast and durable intervals, for a job with a fast tier.
    config_name : str
        The config's name.
    joint : JointSearch or None
        With ``jointly=``: the interval optimised at each value of the second key (the
        ``jointly`` entry of the summary); ``optimum`` is then the best value's.

    Examples
    --------
    >>> import relplan
    >>> result = relplan.optimize_interval("configs/small.toml", trials=50, seed=0)
    >>> low, high = result.mc_optimal_ci95
    >>> low <= result.mc_optimal_hours <= high
    True
    """

    command: ClassVar[str] = "optimize"
    figures: ClassVar[tuple[str, ...]] = ("goodput-vs-interval",)

    optimum: IntervalOptimum
    tiers: TierOptimum | None
    config_name: str
    joint: JointSearch | None = None

    young_hours = relayed("optimum.young_hours", "float", "Young's interval, hours.")
    daly_hours = relayed("optimum.daly_hours", "float", "Daly's interval, hours.")
    exact_hours = relayed(
        "optimum.exact_hours", "float", "The exact (Lambert W) optimum of Daly's cost, hours."
    )
    mc_optimal_hours = relayed(
        "optimum.mc_optimal_hours",
        "float",
        "The interval of the highest mean goodput on the Monte Carlo curve, hours.",
    )
    mc_optimal_ci95 = relayed(
        "optimum.mc_optimal_ci95", "tuple[float, float]", "Its bootstrap 95% interval, hours."
    )
    p95_optimal_hours = relayed(
        "optimum.p95_optimal_hours", "float", "The interval of the smallest P95 wall time, hours."
    )
    p95_optimal_ci95 = relayed(
        "optimum.p95_optimal_ci95", "tuple[float, float]", "Its bootstrap 95% interval, hours."
    )
    mtti_hours = relayed(
        "optimum.mtti_hours",
        "float",
        "The job's mean time to interruption the closed forms use, hours.",
    )

    @property
    def goodput_at(self) -> dict[str, float]:
        """Mean goodput at ``young``, ``daly``, ``exact``, ``mc`` and ``p95``."""
        return dict(self.optimum.goodput_at)

    trials = relayed("optimum.trials", "int", "Trials per interval tried.")
    seed = relayed("optimum.seed", "int", "The seed every interval shares.")

    def _headline(self) -> str:
        return (f"{self.config_name}: Monte Carlo optimum "
                f"{format_duration(self.mc_optimal_hours)}, Young "
                f"{format_duration(self.young_hours)}, Daly {format_duration(self.daly_hours)} "
                f"({self.trials:,} trials per interval)")

    @functools.cached_property
    def _data(self) -> dict[str, Any]:
        data = self.optimum.to_dict()
        if self.tiers is not None:
            data["two_tier"] = self.tiers.to_dict()
        if self.joint is not None:
            data["jointly"] = self.joint.to_dict()
        return data

    def _summary(self) -> dict[str, Any]:
        return self._data

    def to_frame(self) -> pd.DataFrame:
        """The goodput-against-interval curve: one row per interval tried (see
        :class:`~relplan.analysis.optimize.IntervalOptimum`)."""
        return self.optimum.curve.copy()

    def _draw(self, kind: str, ax: Axes | None) -> Figure:
        from relplan.output import plots

        optimum = self.optimum
        return plots.goodput_vs_interval(
            optimum.curve, self.config_name, young_hours=optimum.young_hours,
            daly_hours=optimum.daly_hours, mc_optimal_hours=optimum.mc_optimal_hours,
            mc_optimal_ci95=optimum.mc_optimal_ci95,
            p95_optimal_hours=optimum.p95_optimal_hours,
            p95_optimal_ci95=optimum.p95_optimal_ci95, ax=ax)  # fmt: skip

    def _write_files(self, folder: Path, final: Path) -> list[Path]:
        """What ``optimize --out`` writes."""
        from relplan.output.report import write_optimize_outputs

        return write_optimize_outputs(self.optimum, self._data, folder, self.config_name)


@dataclass(frozen=True, repr=False, eq=False)
class CompareResult(Result):
    """What ``relplan compare`` found (:func:`relplan.compare`): scenarios on common
    failure streams, the first the reference.

    Attributes
    ----------
    comparison : dict
        :func:`relplan.runs.compare.compare_scenarios`' record (the ``--json`` object):
        ``trials``, ``seed`` and ``scenarios``.
    reused : int
        Scenarios taken from the store, finished before (0 without a store).

    Examples
    --------
    >>> import relplan
    >>> result = relplan.compare(["configs/small.toml"], {"no spares": ["job.spares=0"]},
    ...                          trials=50, workers=1)
    >>> result.names, result.reference
    (['small', 'no spares'], 'small')
    """

    command: ClassVar[str] = "compare"
    figures: ClassVar[tuple[str, ...]] = ("goodput",)

    comparison: dict[str, Any]
    reused: int = 0

    trials = relayed("comparison.trials", "int", "Trials per scenario.")
    seed = relayed("comparison.seed", "int", "The seed every scenario shares.")

    @property
    def names(self) -> list[str]:
        """The scenarios, in order (the first is the reference)."""
        return [row["scenario"] for row in self.comparison["scenarios"]]

    @property
    def reference(self) -> str:
        """The first scenario, which the others are compared with."""
        return self.names[0]

    @property
    def priced(self) -> bool:
        """Whether the scenarios are priced (the first config has a ``[budget]``)."""
        return "net_value" in self.comparison["scenarios"][0]

    @property
    def best(self) -> str:
        """The scenario of the highest mean goodput."""
        return max(self.comparison["scenarios"], key=lambda row: row["goodput"])["scenario"]

    @property
    def goodput(self) -> dict[str, float]:
        """Mean goodput per scenario."""
        return {row["scenario"]: row["goodput"] for row in self.comparison["scenarios"]}

    def _headline(self) -> str:
        return (f"{len(self.names)} scenarios, {self.trials:,} trials, seed {self.seed}; best "
                f"goodput: {self.best} ({self.goodput[self.best]:.4f})")

    def _summary(self) -> dict[str, Any]:
        return self.comparison

    def to_frame(self) -> pd.DataFrame:
        """One row per scenario: the ``--json`` scenarios, nested keys flattened
        (``provenance.seed``, ...)."""
        return pd.json_normalize(self.comparison["scenarios"])

    def _draw(self, kind: str, ax: Axes | None) -> Figure:
        from relplan.output import plots

        frame = self.to_frame()
        points = frame.rename(columns={"scenario": "label"}).assign(
            goodput_ci95_low=frame["goodput_ci95"].str[0],
            goodput_ci95_high=frame["goodput_ci95"].str[1])  # fmt: skip
        return plots.metric_by_point(points, "goodput", "comparison", ax=ax)

    def _write_files(self, folder: Path, final: Path) -> list[Path]:
        """What ``compare --out`` writes: comparison.csv and comparison.json."""
        from relplan.output.files import write_comparison_files

        return write_comparison_files(self.comparison, folder)


@dataclass(frozen=True, repr=False, eq=False)
class StudyResult(Result):
    """What ``relplan sweep`` found (:func:`relplan.run_study`): every point of a study.

    Attributes
    ----------
    study : Study
        The loaded study.
    points : pandas.DataFrame
        One row per point (see :func:`relplan.runs.sweep.run_study`).
    trials : int
        Trials per point.
    reused : int
        Points taken from the store, finished before (0 without a store).

    Examples
    --------
    >>> import relplan
    >>> result = relplan.run_study("studies/recovery-strategies.toml", trials=50, workers=1)
    >>> len(result.points) == len(result.summary()["results"]), result.plot_kinds[0]
    (True, 'goodput')
    """

    command: ClassVar[str] = "sweep"
    figures: ClassVar[tuple[str, ...]] = ("lost-hours-by-point",)

    study: Study
    points: pd.DataFrame
    trials: int
    reused: int = 0

    name = relayed("study.spec.name", "str", "The study's name.")

    @property
    def metrics(self) -> list[str]:
        """The study's metrics, each a figure (:meth:`plot`)."""
        return list(self.study.spec.metrics)

    @functools.cached_property
    def answer(self) -> str:
        """The study's answer in one sentence."""
        from relplan.runs.sweep import answer_sentence

        return answer_sentence(self.study, self.points, self.trials)

    @property
    def plot_kinds(self) -> list[str]:
        """Each metric by point, then the lost hours by bucket per point."""
        return [*self.metrics, *self.figures]

    def _headline(self) -> str:
        return f"{self.name}, {len(self.points)} points x {self.trials:,} trials: {self.answer}"

    @functools.cached_property
    def _data(self) -> dict[str, Any]:
        from relplan.analysis.provenance import study_provenance

        return {
            "study": self.name,
            "answer": self.answer,
            "files": [],
            "results": json.loads(self.points.to_json(orient="records")),
            "provenance": study_provenance(self.study, self.points, self.trials),
        }

    def _summary(self) -> dict[str, Any]:
        """The ``sweep --json`` object (``files`` empty: no folder is tied to the
        result; :meth:`write` returns them)."""
        return self._data

    def to_frame(self) -> pd.DataFrame:
        """One row per point (a copy of :attr:`points`)."""
        return self.points.copy()

    def _draw(self, kind: str, ax: Axes | None) -> Figure:
        from relplan.output import plots

        spec = self.study.spec
        if kind == "lost-hours-by-point":
            buckets = [c for c in self.points.columns if c.endswith("_hours_mean")]
            breakdown = self.points[["label", *buckets]].rename(
                columns={c: c.removesuffix("_hours_mean") for c in buckets})  # fmt: skip
            return plots.lost_hours_by_bucket(breakdown, spec.name, reference=spec.reference,
                                              ax=ax)  # fmt: skip
        return plots.metric_by_point(self.points, kind, spec.name, reference=spec.reference,
                                     ax=ax)  # fmt: skip

    def _write_files(self, folder: Path, final: Path) -> list[Path]:
        """What ``sweep --out`` writes."""
        from relplan.output.study_report import write_study_outputs

        return write_study_outputs(self.study, self.points, folder, self.trials)


@dataclass(frozen=True, repr=False, eq=False)
class PlanResult(Result):
    """What ``relplan plan`` found (:func:`relplan.plan`): the best portfolio of
    redundancy options within a budget.

    Attributes
    ----------
    outcome : dict
        :func:`relplan.runs.planner.run_plan`'s record: the portfolios run, the frontier,
        the best, its attribution and the uncertainty, with ``source`` (the plan file).
    reused : int
        Portfolio runs taken from the store, finished before (0 without a store).

    Examples
    --------
    >>> import relplan
    >>> result = relplan.plan("studies/redundancy-plan-seed-moe.toml", trials=20, workers=1)
    >>> result.best["options"] == result.summary()["best"]["options"]
    True
    """

    command: ClassVar[str] = "plan"
    figures: ClassVar[tuple[str, ...]] = ("frontier", "attribution", "tornado")

    outcome: dict[str, Any]
    reused: int = 0

    name = relayed("outcome.plan", "str", "The plan's name.")
    objective = relayed(
        "outcome.objective",
        "str",
        "What the plan maximises or minimises (``net_value``, ``goodput``, ...).",
    )
    budget = relayed(
        "outcome.budget",
        "float | None",
        "The spend limit, in the plan's currency (None: no limit).",
    )
    trials = relayed("outcome.trials", "int", "Trials per portfolio.")
    seed = relayed("outcome.seed", "int", "The seed every portfolio shares.")

    @property
    def best(self) -> dict[str, Any]:
        """The best portfolio within the budget: its ``options``, cost, objective and
        figures."""
        return dict(self.outcome["best"])

    @property
    def attribution(self) -> dict[str, float]:
        """Each option of the best portfolio's Shapley value (adding up to its gain)."""
        return dict(self.outcome["attribution"])

    @property
    def frontier(self) -> pd.DataFrame:
        """The Pareto frontier of hardware cost against the objective, by cost."""
        return pd.json_normalize(self.outcome["frontier"])

    @functools.cached_property
    def answer(self) -> str:
        """The plan's answer in one sentence."""
        from relplan.output.plan_report import plan_answer

        return plan_answer(self.outcome)

    @property
    def plot_kinds(self) -> list[str]:
        """``frontier`` and ``attribution``; ``tornado`` too with uncertain inputs."""
        return [kind for kind in self.figures
                if kind != "tornado" or self.outcome["uncertainty"]]  # fmt: skip

    def _headline(self) -> str:
        from relplan.output.plan_text import objective_text

        best = self.outcome["best"]
        return (f"{self.name}: best {' + '.join(best['options']) or 'the base'}, "
                f"{self.objective} {objective_text(self.outcome, best['objective'])} "
                f"({self.outcome['evaluated']} portfolios x {self.trials:,} trials)")

    @functools.cached_property
    def _data(self) -> dict[str, Any]:
        from relplan.output.plan_report import plan_document

        return plan_document(self.outcome, self.answer, [])

    def _summary(self) -> dict[str, Any]:
        """The ``plan --json`` object (``files`` empty: no folder is tied to the result;
        :meth:`write` returns them)."""
        return self._data

    def to_frame(self) -> pd.DataFrame:
        """One row per portfolio run, nested keys flattened."""
        return pd.json_normalize(self.outcome["portfolios"])

    def _draw(self, kind: str, ax: Axes | None) -> Figure:
        from relplan.output import plan_plots

        draw = {"frontier": plan_plots.frontier_figure,
                "attribution": plan_plots.attribution_figure,
                "tornado": plan_plots.tornado_figure}[kind]  # fmt: skip
        return draw(self.outcome, ax=ax)

    def _write_files(self, folder: Path, final: Path) -> list[Path]:
        """What ``plan --out`` writes (its plan.json naming the files in ``final``)."""
        from relplan.output.plan_report import write_plan_outputs

        return write_plan_outputs(self.outcome, folder, self.answer, named_in=final)
