"""relplan against published figures: the validation suite behind ``relplan published``.

Each case sets a figure published about a real fleet, run or model (Daly 2006, Meta's
research clusters and Llama 3 run, ByteRobust, AWS HLAT, the source document) against
relplan's own figure for the same inputs, with its 95% confidence interval, a tolerance
and a verdict:

- ``within``: passes when ``|relplan - published| <= tolerance``. The tolerance is four
  standard errors of relplan's Monte Carlo figure, plus the published figure's own
  uncertainty: half its last printed digit, or, for a figure counted in a fleet, two
  Poisson (or binomial) standard deviations of that count;
- ``above``: the published figure is a lower bound ("more than 90%"): passes when
  relplan's whole 95% CI lies above it;
- ``inside``: the published figures give a range: passes when relplan's figure lies in it;
- ``negative control``: a figure relplan's model is *not* meant to reproduce, with the
  reason; it is ``explained`` when relplan's figure stays away from it (outside the
  tolerance), ``fail`` if it were to match by accident;
- ``known gap``: a figure relplan is not expected to match from the inputs the sources
  give, for the reason in the note: ``pass`` if it matches all the same, else
  ``explained``.

Each case also says what kind of evidence it is (:data:`KINDS`): a ``prediction`` from
published inputs, a ``calibration`` (an input was set from the very figure compared, so
agreement only shows the arithmetic holds) or a ``consistency`` check (relplan's model
solved or measured back against its own inputs); it lists the inputs it had to assume,
and a case that rests on an assumed input shows its figure at two other plausible
values of it (``sensitivity``).

A case that cannot be matched is reported as ``explained`` with the reason in its note,
never dropped. Every simulation uses a fixed seed and modest trial counts, so the whole
suite runs in well under a minute and gives the same numbers on every run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from relplan.config.catalog import LLAMA3_GPU_YEARS
from relplan.config.loading import SHIPPED_CONFIGS, load_config, parse_config
from relplan.errors import ConfigError
from relplan.sim.engine import simulate
from relplan.sim.model import SimulationModel, build_model
from relplan.stats.summary import mean_ci
from relplan.units import HOURS_PER_YEAR
from relplan.vocab import BUCKETS

SEED = 2006
"""The seed of every simulation of the suite (Daly's year)."""

TABLE_Z = 1.96
"""The normal quantile of the table's 95% CIs (rounded, as the table has always shown them;
:data:`relplan.stats.summary.Z_95` elsewhere)."""

CONFIGS = SHIPPED_CONFIGS
"""The shipped configs (the Llama 3 case runs ``llama3-16k.toml`` as shipped)."""

WITHIN, ABOVE, INSIDE, NEGATIVE, GAP = "within", "above", "inside", "negative control", "known gap"
"""How a case compares relplan's figure with the published one."""

PASS, FAIL, EXPLAINED = "pass", "fail", "explained"
"""Verdicts."""

PREDICTION, CALIBRATION, CONSISTENCY = "prediction", "calibration", "consistency"
"""What kind of evidence a case is (see the module docstring)."""

KINDS = (PREDICTION, CALIBRATION, CONSISTENCY)
"""Every kind of case."""

MINUTE = 1.0 / 60.0

DALY = ("Daly, A higher order estimate of the optimum checkpoint interval for restart "
        "dumps, FGCS 22(3), 2006, figure captions")  # fmt: skip
KOKOLIS = ("Kokolis et al., Revisiting Reliability in Large-Scale ML Research Clusters, "
           "HPCA 2025 (arXiv:2410.21680)")  # fmt: skip
LLAMA3 = "Grattafiori et al., The Llama 3 Herd of Models, arXiv:2407.21783, Sec. 3.3.4, Table 5"
BYTEROBUST = "Wan et al., Robust LLM Training Infrastructure at ByteDance (ByteRobust), SOSP 2025"
HLAT = "Fan et al., HLAT: LLM Pre-trained on AWS Trainium, arXiv:2404.10630 (Klockwood's table)"
SEED_DOCUMENT = "the source document (relplan's design note): a 5-year GPU MTBF over 10,000 GPUs"

CITES = {DALY: "Daly 2006", KOKOLIS: "Meta RSC, HPCA 2025", LLAMA3: "Llama 3, 2024",
         BYTEROBUST: "ByteRobust, SOSP 2025", HLAT: "AWS HLAT, 2024",
         SEED_DOCUMENT: "source document"}  # fmt: skip
"""A short name of each source, for tables."""


@dataclass(frozen=True)
class ValidationCase:
    """One published figure against relplan's.

    Attributes
    ----------
    case : str
        Short identifier (``daly-24h``).
    figure : str
        What is compared, in a few words.
    unit : str
        Unit of ``published`` and ``relplan`` (``min``, ``h``, ``/day``, ``%``, ...).
    published : float
        The published figure (a range's lower end for ``inside``).
    relplan : float
        relplan's figure for the same inputs.
    ci95 : tuple of float
        95% confidence interval of relplan's figure.
    tolerance : float
        Largest difference that passes (``within``, ``negative control``, ``known gap``),
        in ``unit``.
    check : str
        ``within``, ``above``, ``inside``, ``negative control`` or ``known gap``.
    status : str
        ``pass``, ``fail`` or ``explained``.
    source : str
        The publication.
    note : str
        Inputs, where the tolerance comes from, and what to know.
    published_high : float or None
        The range's upper end (``inside``).
    kind : str
        ``prediction``, ``calibration`` or ``consistency`` (:data:`KINDS`).
    assumed : tuple of str
        The inputs the case had to assume, each with its value.
    sensitivity : tuple of (str, float)
        relplan's figure at other plausible values of the assumed input the case rests
        on, each as (the input's value, the figure); empty when it rests on none.
    """

    case: str
    figure: str
    unit: str
    published: float
    relplan: float
    ci95: tuple[float, float]
    tolerance: float
    check: str
    status: str
    source: str
    note: str
    published_high: float | None = None
    kind: str = PREDICTION
    assumed: tuple[str, ...] = ()
    sensitivity: tuple[tuple[str, float], ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the case passes or is explained."""
        return self.status in (PASS, EXPLAINED)

    @property
    def cite(self) -> str:
        """A short name of the source (``Daly 2006``)."""
        return CITES.get(self.source, self.source)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``ci95`` as a list, plus ``cite``)."""
        data = asdict(self)
        data["ci95"] = list(self.ci95)
        data["cite"] = self.cite
        data["assumed"] = list(self.assumed)
        data["sensitivity"] = [{"input": value, "relplan": figure}
                               for value, figure in self.sensitivity]  # fmt: skip
        return data

    def sensitivity_text(self) -> str:
        """The figure at the other values of its assumed input, in words ("" without).

        Examples
        --------
        >>> case = ValidationCase("x", "ETTR", "%", 90.0, 92.1, (92.0, 92.2), 0.0, "above",
        ...                       "pass", LLAMA3, "", sensitivity=(("restart 5 min", 94.0),
        ...                                                        ("restart 20 min", 87.3)))
        >>> case.sensitivity_text()
        '94% at restart 5 min, 87.3% at restart 20 min'
        """
        unit = self.unit if self.unit == "%" else f" {self.unit}"
        return ", ".join(f"{_number(figure)}{unit} at {value}"
                         for value, figure in self.sensitivity)

    def cells(self) -> dict[str, str]:
        """The case as table cells: ``case``, ``figure``, ``published``, ``relplan``
        (with its CI), ``tolerance``, ``verdict``, ``kind``, ``source`` (units shown once).

        Examples
        --------
        >>> case = ValidationCase("x", "an optimum", "min", 117.0, 117.31, (116.3, 118.5),
        ...                       2.64, "within", "pass", DALY, "")
        >>> case.cells()["relplan"], case.cells()["tolerance"]
        ('117.3 [116.3, 118.5]', '±2.64 min')
        """
        unit = f" {self.unit}" if self.unit and self.unit != "%" else self.unit
        published = _number(self.published)
        if self.check == INSIDE and self.published_high is not None:
            published += f"-{_number(self.published_high)}"
        low, high = self.ci95
        value = _number(self.relplan)
        if low != high:
            value += f" [{_number(low)}, {_number(high)}]"
        tolerance = {ABOVE: f"> {_number(self.published)}{unit}", INSIDE: "in range"}.get(
            self.check, f"±{_number(self.tolerance, 3)}{unit}")
        return {"case": self.case, "figure": self.figure, "published": published + unit,
                "relplan": value, "tolerance": tolerance,
                "verdict": self.status, "kind": self.kind,
                "source": self.cite}  # fmt: skip


def _number(value: float, digits: int = 4) -> str:
    """``digits`` significant digits, no exponent for everyday magnitudes."""
    return f"{value:.{digits}g}"


def verdict(
    check: str,
    published: float,
    value: float,
    ci95: tuple[float, float],
    tolerance: float,
    published_high: float | None = None,
) -> str:
    """The verdict of one comparison (see the module's docstring).

    Examples
    --------
    >>> verdict("within", 117.0, 116.7, (116.0, 117.4), 1.0)
    'pass'
    >>> verdict("above", 0.90, 0.92, (0.919, 0.921), 0.0)
    'pass'
    >>> verdict("negative control", 7.9, 28.8, (28.5, 29.1), 0.4)
    'explained'
    """
    if check == WITHIN:
        return PASS if abs(value - published) <= tolerance else FAIL
    if check == ABOVE:
        return PASS if ci95[0] > published else FAIL
    if check == INSIDE:
        high = published_high if published_high is not None else published
        return PASS if published <= value <= high else FAIL
    if check == NEGATIVE:
        return EXPLAINED if abs(value - published) > tolerance else FAIL
    if check == GAP:
        return PASS if abs(value - published) <= tolerance else EXPLAINED
    raise ValueError(f"unknown check {check!r}")


def _case(case: str, figure: str, unit: str, published: float, value: float,
          ci95: tuple[float, float], tolerance: float, check: str, source: str, note: str,
          published_high: float | None = None, kind: str = PREDICTION,
          assumed: tuple[str, ...] = (),
          sensitivity: tuple[tuple[str, float], ...] = ()) -> ValidationCase:  # fmt: skip
    status = verdict(check, published, value, ci95, tolerance, published_high)
    return ValidationCase(case, figure, unit, published, float(value),
                          (float(ci95[0]), float(ci95[1])), tolerance, check, status, source,
                          note, published_high, kind, assumed,
                          tuple((label, float(figure)) for label, figure in sensitivity))


def _job_config(mode: dict[str, Any], gpus: int, work: str, interval: str, write: str,
                restart: str, gpus_per_server: int = 8) -> SimulationModel:  # fmt: skip
    """A one-mode job built through the config schema, as a user would write it."""
    servers = max(1, math.ceil(gpus / gpus_per_server))
    raw = {
        "cluster": {"servers": servers, "gpus_per_server": gpus_per_server},
        "failures": {"failure": {"repair": {"dist": "fixed", "mean": "0s"}, "detect": "0s",
                                 "spares": False, "impact": "fatal", **mode}},
        "job": {"gpus": gpus, "work": work, "restart": restart, "spares": 0,
                "checkpoint": {"interval": interval, "write": write}},
    }  # fmt: skip
    return build_model(parse_config(raw))


# --- Daly 2006 -----------------------------------------------------------------------


def daly_cases(trials: int = 1000) -> list[ValidationCase]:
    """Daly's published optima (117, 57, 9.1 min) and wall time (547.9 h), by Monte Carlo.

    Inputs of his figure captions: exponential failures with M = 24 h, 6 h and 15 min,
    T_s = 500 h of work, R = 10 min restart, delta = 5 min checkpoint.

    Parameters
    ----------
    trials : int
        Trials per interval of the optimiser (fewer for the 15-min case, which has about
        10,000 failures a trial).

    Returns
    -------
    list of ValidationCase

    Examples
    --------
    >>> [case.case for case in daly_cases(trials=100)]
    ['daly-24h', 'daly-wall', 'daly-6h', 'daly-15min']
    """
    from relplan.analysis.optimize import optimize_interval

    cases = []
    for mtbf, published, rounding, label in ((24.0, 117.0, 0.5, "24h"), (6.0, 57.0, 0.5, "6h"),
                                             (0.25, 9.1, 0.05, "15min")):  # fmt: skip
        spaced = label.replace("min", " min") if "min" in label else label.replace("h", " h")
        model = _job_config({"unit": "job", "lifetime": {"dist": "exponential",
                                                         "mtbf": f"{mtbf}h"}},
                            gpus=1, work="500h", interval="1h", write="5min", restart="10min",
                            gpus_per_server=1)  # fmt: skip
        n = trials if mtbf >= 1.0 else max(50, trials // 5)
        result = optimize_interval(model, n, SEED)
        value = result.mc_optimal_hours / MINUTE
        low, high = (h / MINUTE for h in result.mc_optimal_ci95)
        # the bootstrap 95% CI spans about 4 standard errors
        tolerance = (high - low) + rounding
        cases.append(_case(
            f"daly-{label}", f"optimal interval, M = {spaced}", "min", published, value,
            (low, high), tolerance, WITHIN, DALY,
            f"Monte Carlo optimum of goodput ({n:,} trials per interval, bootstrap CI); "
            f"closed form (Daly's series) {result.daly_hours / MINUTE:.2f} min; tolerance: "
            f"the CI's width (~4 SE) + half the published last digit",
        ))  # fmt: skip
        if label == "24h":
            walls = simulate(model.with_interval(published * MINUTE), n, SEED + 1).wall_hours
            mean, sem, ci = mean_ci(walls, TABLE_Z)
            cases.append(_case(
                "daly-wall", "expected wall time at 117 min, M = 24 h", "h", 547.9, mean, ci,
                4 * sem + 0.05, WITHIN, DALY,
                f"T_s = 500 h, R = 10 min, delta = 5 min, interval 117 min; {n:,} trials; "
                "547.9 h is Daly's cost function at his optimum (failure-data.md Sec. 1.3); "
                "tolerance 4 SE + 0.05 h",
            ))  # fmt: skip
    return cases


# --- job MTTF against job size ---------------------------------------------------------


def _mttf(model: SimulationModel, trials: int, seed: int) -> tuple[float, tuple[float, float]]:
    """Measured mean time to failure: exposure over interruptions, with the exact Poisson CI.

    The job has no detection, repair or wait, so its exposure is its wall time.
    """
    from scipy.stats import chi2

    outcomes = simulate(model, trials, seed)
    exposure = float(outcomes.wall_hours.sum())
    count = int(outcomes.interruptions_by_mode.sum())
    low = exposure / (chi2.ppf(0.975, 2 * count + 2) / 2)
    high = exposure / (chi2.ppf(0.025, 2 * count) / 2)
    return exposure / count, (low, high)


INDEPENDENT_NODES = ("node failures independent and exponential at the published rate",)
"""What the Meta cases assume beyond the published per-node rate."""


def meta_cases(trials: int = 200) -> list[ValidationCase]:
    """Meta's research clusters: job MTTF against job size from a per-node failure rate.

    RSC-1 fails 6.50 times per 1,000 node-days (8 A100 per node); the paper projects a
    job MTTF of 1.8 h at 16,384 GPUs and 0.23 h at 131,072. Its measured 7.9 h at 1,024
    GPUs is a negative control: node failures alone give 28.8 h.

    Parameters
    ----------
    trials : int
        Trials per job size.

    Returns
    -------
    list of ValidationCase

    Examples
    --------
    >>> {case.case: case.status for case in meta_cases(trials=50)}["rsc1-1k"]
    'explained'
    """
    rsc1 = {"unit": "host", "lifetime": {"dist": "exponential",
                                         "mtbf": f"{1000 * 24 / 6.50}h"}}  # fmt: skip
    rsc2 = {"unit": "host", "lifetime": {"dist": "exponential",
                                         "mtbf": f"{1000 * 24 / 2.34}h"}}  # fmt: skip
    cases = []
    for gpus, published, rounding, work, label in ((16_384, 1.8, 0.05, "400h", "16k"),
                                                   (131_072, 0.23, 0.005, "50h", "131k")):
        model = _job_config(rsc1, gpus, work, "6min", "0s", "0s")
        value, ci = _mttf(model, trials, SEED)
        cases.append(_case(
            f"rsc1-{label}", f"RSC-1 job MTTF at {gpus:,} GPUs", "h", published, value, ci,
            (ci[1] - ci[0]) + rounding, WITHIN, KOKOLIS,
            f"6.50 failures per 1,000 node-days [S], {gpus // 8:,} nodes, independent "
            f"exponential failures; {trials} trials, exact Poisson CI; tolerance: the CI's "
            "width (~4 SE) + half the published last digit",
            assumed=INDEPENDENT_NODES,
        ))  # fmt: skip
    model = _job_config(rsc1, 1024, "400h", "30min", "0s", "0s")
    value, ci = _mttf(model, trials, SEED)
    cases.append(_case(
        "rsc1-1k", "RSC-1 job MTTF at 1,024 GPUs", "h", 7.9, value, ci,
        (ci[1] - ci[0]) + 0.05, NEGATIVE, KOKOLIS,
        "node failures alone give 24 / (128 x 0.0065) = 28.8 h; the "
        "measured 7.9 h includes the user, software and infrastructure failures of small "
        "research jobs, which do not scale with nodes (16x the GPUs cost only 4.4x the "
        "MTTF). Reproducing it needs a job-level failure mode (unit = \"job\")",
        assumed=INDEPENDENT_NODES,
    ))  # fmt: skip
    model = _job_config(rsc2, 8192, "400h", "30min", "0s", "0s")
    value, ci = _mttf(model, trials, SEED)
    per_1000_node_days = 1000 * 24 / (1024 * value)
    low, high = (1000 * 24 / (1024 * h) for h in (ci[1], ci[0]))
    cases.append(_case(
        "rsc2-rate", "RSC-2 failures per 1,000 node-days", "/knd", 2.34, per_1000_node_days,
        (low, high), (high - low) + 0.005, WITHIN, KOKOLIS,
        f"failures per 1,000 node-days (/knd), measured back from a simulated 8,192-GPU "
        f"job (RSC-2's size, 1,024 nodes; "
        f"{trials} trials): the rate the MTTF rows scale; RSC-2's rate projects "
        f"{24 / (2048 * 0.00234):.1f} h at 16,384 GPUs, 2.8x RSC-1's; a consistency "
        "check: the simulated rate is the input rate, measured back",
        kind=CONSISTENCY, assumed=INDEPENDENT_NODES,
    ))  # fmt: skip
    return cases


def seed_document_cases(trials: int = 200) -> list[ValidationCase]:
    """The source document's 4.38 h: a 5-year GPU MTBF over 10,000 GPUs.

    Parameters
    ----------
    trials : int
        Trials.

    Returns
    -------
    list of ValidationCase

    Examples
    --------
    >>> case = seed_document_cases(trials=50)[0]
    >>> case.published, case.status
    (4.38, 'pass')
    """
    model = _job_config({"unit": "gpu", "lifetime": {"dist": "exponential", "mtbf": "5y"}},
                        10_000, "1000h", "10min", "0s", "0s")  # fmt: skip
    value, ci = _mttf(model, trials, SEED)
    return [_case(
        "seed-4.38h", "job MTTF, 10,000 GPUs at 5 y MTBF", "h", 4.38, value, ci,
        (ci[1] - ci[0]) + 0.005, WITHIN, SEED_DOCUMENT,
        f"5 x 8,766 h / 10,000 = {5 * HOURS_PER_YEAR / 10_000:.3f} h; {trials} trials, exact "
        "Poisson CI; tolerance: the CI's width (~4 SE) + half the published last digit; a "
        "consistency check: the figure is the document's own arithmetic on its input",
        kind=CONSISTENCY,
    )]  # fmt: skip


# --- Llama 3 ---------------------------------------------------------------------------

LLAMA3_CATEGORIES: dict[str, tuple[int, tuple[str, ...]]] = {
    "GPU": (268, ("gpu", "hbm", "sdc")),
    "dependency": (56, ("software",)),
    "network": (35, ("link", "optic", "leaf", "spine", "link.fabric", "optic.fabric")),
    "host maintenance": (32, ("host_maintenance",)),
    "host hardware": (21, ("host", "nic")),
    "unknown (NCCL watchdog)": (7, ("nccl_watchdog",)),
}
"""Table 5's categories: their count of the 419 unexpected interruptions and the modes of
``configs/llama3-16k.toml`` they are spread over."""

CATEGORY_KEYS = ("gpu", "dependency", "network", "maintenance", "host-hw", "unknown")
"""Case identifiers of the categories, in order."""

LLAMA3_INTERRUPTIONS, LLAMA3_DAYS = 419, 54

LLAMA3_OTHER_RESTARTS = ("5min", "20min")
"""Other plausible restarts of the Llama 3 run, beside the config's assumed 10 min."""


def llama3_cases(trials: int = 400, configs: Path = CONFIGS) -> list[ValidationCase]:
    """The Llama 3 405B run, simulated from ``configs/llama3-16k.toml`` as shipped.

    Parameters
    ----------
    trials : int
        Trials.
    configs : Path
        The folder of the shipped configs.

    Returns
    -------
    list of ValidationCase
        Interruptions per wall-clock day, their split by category, the effective
        training time and the run length.

    Examples
    --------
    >>> cases = {case.case: case for case in llama3_cases(trials=20)}
    >>> cases["llama3-ettr"].relplan > 90
    True
    """
    path = configs / "llama3-16k.toml"
    if not path.is_file():
        raise ConfigError("configs", f"{path} not found: the Llama 3 case runs the shipped config")
    model = build_model(load_config(path))
    outcomes = simulate(model, trials, SEED)
    days = outcomes.wall_hours / 24.0
    interruptions = outcomes.interruptions_by_mode.sum(axis=1)
    per_day = interruptions / days
    published = LLAMA3_INTERRUPTIONS / LLAMA3_DAYS
    poisson = 2 * math.sqrt(LLAMA3_INTERRUPTIONS) / LLAMA3_DAYS
    mean, sem, ci = mean_ci(per_day, TABLE_Z)
    cases = [_case(
        "llama3-per-day", "unexpected interruptions per day", "/day", published, mean, ci,
        poisson + 4 * sem, WITHIN, LLAMA3,
        f"419 in 54 days of wall clock; tolerance: 2 Poisson SD of the published count "
        f"({poisson:.2f}/day) + 4 SE; {trials} trials of configs/llama3-16k.toml; a "
        "calibration: the config's rates are Table 5's counts over the snapshot's exposure",
        kind=CALIBRATION,
    )]  # fmt: skip
    total = interruptions.sum()
    names = outcomes.mode_names
    for (category, (count, modes)), key in zip(LLAMA3_CATEGORIES.items(), CATEGORY_KEYS,
                                                strict=True):
        columns = [i for i, name in enumerate(names) if name in modes]
        share = outcomes.interruptions_by_mode[:, columns].sum(axis=1)
        value = 100.0 * share.sum() / total
        p = count / LLAMA3_INTERRUPTIONS
        binomial = 200.0 * math.sqrt(p * (1 - p) / LLAMA3_INTERRUPTIONS)
        # the simulated share pools every trial's interruptions: its SE is binomial too
        own = 100.0 * math.sqrt(p * (1 - p) / total)
        cases.append(_case(
            f"llama3-{key}", f"share: {category}", "%", 100.0 * p,
            value, (value - TABLE_Z * own, value + TABLE_Z * own), binomial + 4 * own, WITHIN,
            LLAMA3,
            f"{count} of 419 by count (Table 5's printed percentages sum to 94.9%: the counts "
            f"are used); tolerance: 2 binomial SD of the published share + 4 SE; a "
            f"calibration: each category's rate is set from its count",
            kind=CALIBRATION,
        ))  # fmt: skip
    goodput = 100.0 * model.job.work_hours / outcomes.wall_hours
    mean, sem, ci = mean_ci(goodput, TABLE_Z)
    sensitivity = []
    for restart in LLAMA3_OTHER_RESTARTS:
        other = build_model(load_config(path, [f"job.restart={restart}"]))
        walls = simulate(other, trials, SEED).wall_hours
        sensitivity.append((f"restart {restart.replace('min', ' min')}",
                            float(np.mean(100.0 * other.job.work_hours / walls))))
    cases.append(_case(
        "llama3-ettr", "effective training time (ETTR)", "%", 90.0, mean, ci, 0.0, ABOVE, LLAMA3,
        "\"higher than 90% effective training time\": useful / wall; recovery as the config "
        "(10 min automated restart, hot spares, 2.8 s checkpoints every 5 min to a 2 TB/s "
        "store); the 47 planned interruptions, not modelled, would cost about 0.6% more; a "
        "prediction resting on the assumed restart: at 20 min it would fail",
        assumed=("restart 10 min (not published)", "checkpoint every 5 min (not published)",
                 "5% hot spares (the pool size)"),
        sensitivity=tuple(sensitivity),
    ))  # fmt: skip
    mean, sem, ci = mean_ci(days, TABLE_Z)
    cases.append(_case(
        "llama3-days", "run length (wall clock)", "d", 54.0, mean, ci, 4 * sem + 0.5, WITHIN,
        LLAMA3,
        "calibrated, not predicted: the config's work (49.7 d) is sized so that the mean "
        "wall time is the published 54 days; tolerance 4 SE + half a day",
        kind=CALIBRATION,
    ))  # fmt: skip
    return cases


# --- ByteRobust and HLAT: recovery -----------------------------------------------------


def _recovery_model(mttf_hours: float, restart_hours: float, work: str, interval: str,
                    detect: str = "0s") -> SimulationModel:  # fmt: skip
    return _job_config({"unit": "job", "detect": detect,
                        "lifetime": {"dist": "exponential", "mtbf": f"{mttf_hours!r}h"}},
                       8, work, interval, "0s", f"{restart_hours!r}h")  # fmt: skip


BYTEROBUST_MTTF = 2.78
"""ByteRobust: production jobs of 9,600-16,384 GPUs fail about every 2.78 h [S]."""
BYTEROBUST_OTHER_RESTARTS = (15.0, 20.0)
"""Other plausible fail-stop cycles, minutes, beside the published "more than ten"."""
BYTEROBUST_STEP = 10.0 / 3600.0
"""Every-step checkpointing: an interval of one step, taken as 10 s [A]."""


def _byterobust_ettr(restart_hours: float, trials: int) -> tuple[float, float, tuple]:
    model = _recovery_model(BYTEROBUST_MTTF, restart_hours, "90d", f"{BYTEROBUST_STEP!r}h",
                            detect="30s")  # fmt: skip
    outcomes = simulate(model, trials, SEED)
    return mean_ci(100.0 * model.job.work_hours / outcomes.wall_hours, TABLE_Z)


def byterobust_cases(trials: int = 100) -> list[ValidationCase]:
    """ByteRobust's 97% ETTR at 9,600 GPUs with a failure every 2.78 h.

    Its published recovery figures: detection within 30 s (NIC crash, port flapping),
    every-step checkpointing at near-zero overhead, warm standbys (no wait for a repair),
    and a fail-stop, diagnose, reschedule and reload cycle of "more than ten minutes"
    before its optimisations. With that 10-min cycle relplan gives about 93.7%: the
    published 97% needs a faster recovery, which the sources give only as a range.

    Parameters
    ----------
    trials : int
        Trials (each a 90-day run of about 780 failures).

    Returns
    -------
    list of ValidationCase

    Examples
    --------
    >>> [case.status for case in byterobust_cases(trials=20)]
    ['explained', 'pass']
    """
    from scipy.optimize import brentq

    from relplan.sim.closed_forms import expected_wall_hours

    work = 90 * 24.0
    detect = 30.0 / 3600.0
    mean, sem, ci = _byterobust_ettr(10 * MINUTE, trials)
    sensitivity = tuple((f"restart {minutes:g} min", _byterobust_ettr(minutes * MINUTE,
                                                                       trials)[0])
                        for minutes in BYTEROBUST_OTHER_RESTARTS)  # fmt: skip
    cases = [_case(
        "byterobust-10min", "ETTR, 10 min fail-stop cycle", "%", 97.0, mean, ci, 4 * sem + 0.5,
        GAP, BYTEROBUST,
        "MTTF 2.78 h, detection 30 s, every-step checkpoints (10 s [A], no "
        "blocking write), warm standbys, restart 10 min: 10 min is the cycle ByteRobust "
        "reports before its optimisations (hot updates, warm standbys), not the one of the "
        "97% run; see the next row",
        assumed=("every-step checkpoints: one step taken as 10 s",
                 "restart 10 min (published as \"more than ten minutes\")"),
        sensitivity=sensitivity,
    )]  # fmt: skip

    def gap(restart: float) -> float:
        wall = expected_wall_hours(work, BYTEROBUST_STEP, 0.0, BYTEROBUST_MTTF, restart, detect)
        return work / wall - 0.97

    implied = brentq(gap, 1e-6, 10 * MINUTE)
    mean, sem, ci = _byterobust_ettr(implied, trials)
    cases.append(_case(
        "byterobust-implied", "restart giving 97% ETTR", "min", 2.5, implied / MINUTE,
        (implied / MINUTE, implied / MINUTE), 0.0, INSIDE, BYTEROBUST,
        f"Daly's closed form solved for the restart at 97% ETTR; relplan simulates "
        f"{mean:.2f}% [{ci[0]:.2f}, {ci[1]:.2f}] there ({trials} trials of 90 days). It lies "
        "between FlashRecovery's optimised 150 s (4,800 devices, arXiv:2509.03047) and "
        "ByteRobust's unoptimised 10 min: the published 97% is consistent with them; a "
        "consistency check, not a prediction: the restart is solved from the 97%",
        published_high=10.0, kind=CONSISTENCY,
        assumed=("every-step checkpoints: one step taken as 10 s",),
    ))  # fmt: skip
    return cases


HLAT_MTTF = HOURS_PER_YEAR / (4096 * LLAMA3_INTERRUPTIONS / LLAMA3_GPU_YEARS)
"""An assumed job MTTI for 4,096 accelerators: Llama 3's 0.173 interruptions per GPU-year
[A]: HLAT publishes no failure rate in our sources."""


def hlat_cases(trials: int = 100) -> list[ValidationCase]:
    """AWS HLAT: 98.81% uptime with automated restarts, 77.83% with manual ones.

    One parameter, the restart (the downtime of each failure), separates the two. In
    relplan's model (failures on the exposure clock, which a restart is part of) the
    uptime is ``exp(-R / M)`` exactly, so each uptime fixes ``R / M``; with an assumed
    ``M`` the restarts are solved and both runs simulated.

    Parameters
    ----------
    trials : int
        Trials per run (30 days each).

    Returns
    -------
    list of ValidationCase

    Examples
    --------
    >>> [round(case.published, 2) for case in hlat_cases(trials=20)]
    [98.81, 77.83]
    """
    cases = []
    restarts = {}
    for label, published in (("automated", 98.81), ("manual", 77.83)):
        restart = -HLAT_MTTF * math.log(published / 100.0)
        restarts[label] = restart
        model = _recovery_model(HLAT_MTTF, restart, "30d", "30min")
        outcomes = simulate(model, trials, SEED)
        down = outcomes.bucket_hours[:, BUCKETS.index("restart")]
        uptime = 100.0 * (1.0 - down / outcomes.wall_hours)
        mean, sem, ci = mean_ci(uptime, TABLE_Z)
        cases.append(_case(
            f"hlat-{label}", f"uptime, {label} restarts", "%", published, mean, ci,
            4 * sem + 0.005, WITHIN, HLAT,
            f"4,096 Trainium; job MTTI {HLAT_MTTF:.1f} h [A: Llama 3's per-GPU rate]; "
            f"restart R = -M ln(uptime) = {_minutes_or_hours(restart)}; uptime = 1 - restart "
            f"hours / wall; {trials} trials of 30 days; tolerance 4 SE + half the last digit; "
            f"a calibration: the restart is solved from the published uptime",
            kind=CALIBRATION,
            assumed=(f"job MTTI {HLAT_MTTF:.1f} h (Llama 3's per-GPU rate; the uptime does "
                     "not depend on it)",),
        ))  # fmt: skip
    ratio = restarts["manual"] / restarts["automated"]
    cases[-1] = ValidationCase(**{**asdict(cases[-1]), "note": cases[-1].note + (
        f"; the pair fixes only R / M: manual restarts take {ratio:.1f}x the automated "
        "ones whatever the failure rate")})  # fmt: skip
    return cases


def _minutes_or_hours(hours: float) -> str:
    return f"{hours / MINUTE:.1f} min" if hours < 1.0 else f"{hours:.2f} h"


# --- the suite -------------------------------------------------------------------------


@dataclass(frozen=True)
class ValidationReport:
    """Every case, in order, with the suite's settings."""

    cases: tuple[ValidationCase, ...]
    seed: int = SEED
    settings: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether every case passes or is explained."""
        return all(case.ok for case in self.cases)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: ``seed``, ``trials`` (per group), ``passed``, ``explained``,
        ``failed`` (counts) and ``cases``."""
        statuses = [case.status for case in self.cases]
        return {
            "seed": self.seed,
            "trials": dict(self.settings),
            "passed": statuses.count(PASS),
            "explained": statuses.count(EXPLAINED),
            "failed": statuses.count(FAIL),
            "cases": [case.to_dict() for case in self.cases],
        }

    def rows(self) -> list[dict[str, Any]]:
        """Flat rows for a CSV: every field of a case, ``ci95`` as ``ci95_low`` and
        ``ci95_high``."""
        rows = []
        for case in self.cases:
            row = case.to_dict()
            low, high = row.pop("ci95")
            row["assumed"] = "; ".join(case.assumed)
            row["sensitivity"] = case.sensitivity_text()
            rows.append({**row, "ci95_low": low, "ci95_high": high})
        return rows

    def to_markdown(self) -> str:
        """The table as Markdown, with each case's note below it (the README's table).

        Examples
        --------
        >>> report = ValidationReport((ValidationCase("x", "an optimum", "min", 117.0, 117.3,
        ...     (116.3, 118.5), 2.6, "within", "pass", DALY, "a note"),))
        >>> print(report.to_markdown().splitlines()[2].replace(" | ", "|"))
        | x|an optimum|117 min|117.3 [116.3, 118.5]|±2.6 min|prediction|pass|Daly 2006 |
        """
        header = ("case", "figure", "published", "relplan [95% CI]", "tolerance", "kind",
                  "verdict", "source")  # fmt: skip
        lines = ["| " + " | ".join(header) + " |",
                 "|---|---|--:|--:|--:|---|---|---|"]  # fmt: skip
        for case in self.cases:
            cells = case.cells()
            lines.append("| " + " | ".join(cells[key] for key in (
                "case", "figure", "published", "relplan", "tolerance", "kind", "verdict",
                "source")) + " |")  # fmt: skip
        lines.append("")
        for case in self.cases:
            extra = ""
            if case.assumed:
                extra += f" Assumed: {'; '.join(case.assumed)}."
            if case.sensitivity:
                extra += f" Other values: {case.sensitivity_text()}."
            lines.append(f"- `{case.case}` ({case.check}, {case.kind}): {case.note}.{extra}")
        return "\n".join(lines) + "\n"


GROUPS: dict[str, tuple[Callable[..., list[ValidationCase]], int]] = {
    "daly": (daly_cases, 1000),
    "meta": (meta_cases, 200),
    "llama3": (llama3_cases, 400),
    "seed_document": (seed_document_cases, 200),
    "byterobust": (byterobust_cases, 60),
    "hlat": (hlat_cases, 100),
}
"""Every group of cases, with its default trial count (modest: the suite runs in well under
a minute)."""


def run_validation(groups: tuple[str, ...] | None = None) -> ValidationReport:
    """Run the validation suite (or some of its groups) with its fixed seed.

    Parameters
    ----------
    groups : tuple of str, optional
        Names of :data:`GROUPS` to run; all by default.

    Returns
    -------
    ValidationReport
        Every case with its verdict.

    Examples
    --------
    >>> report = run_validation(("seed_document",))
    >>> [(case.case, case.status) for case in report.cases]
    [('seed-4.38h', 'pass')]
    """
    names = tuple(GROUPS) if groups is None else groups
    cases: list[ValidationCase] = []
    settings = {}
    for name in names:
        function, trials = GROUPS[name]
        settings[name] = trials
        cases.extend(function(trials))
    return ValidationReport(tuple(cases), SEED, settings)
