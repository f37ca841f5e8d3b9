"""The catalogue of default failure models: every component class, with where it comes from.

Each entry gives a failure mode's lifetime, repair and detection as a config would write
them (durations with units), the published figure behind the rate, whether each number was
measured in a fleet, derived from one by arithmetic, or assumed, and the fleet and year.
One entry per class is the default; others are alternatives a study may prefer (an older
fleet, a research cluster counting every job failure).

Rates are job-interrupting events per unit-year ``lambda``; ``MTBF = 8,766 h / lambda``.
Counts over an exposure are the Llama 3 table (16,384 H100 for 54 days: 2,423.9 GPU-years,
303.0 server-years).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from relplan.units import HOURS_PER_YEAR

LLAMA3_GPU_YEARS = 16_384 * 54 / 365.25
"""GPU-years of the Llama 3 405B run's 54-day snapshot (Grattafiori et al. 2024, Table 5)."""

LLAMA3_SERVER_YEARS = 2_048 * 54 / 365.25
"""Server-years of the same snapshot (2,048 eight-GPU servers)."""

MEASURED, DERIVED, ASSUMED = "measured", "derived", "assumed"
"""How a number was obtained: read in a fleet's report, computed from one, or assumed."""


@dataclass(frozen=True)
class CatalogEntry:
    """One failure model of a component class.

    Attributes
    ----------
    component : str
        The class (``gpu``, ``host``, ``nic``, ``optic``, ``link``, ``leaf``, ``spine``,
        ``core``, ``rack``, ``domain``) the mode is counted per.
    mode : str
        The failure mode's name in a config's ``[failures]``.
    rate_per_year : float
        Failures per unit-year.
    repair, detect : str
        Repair (or replace) time and detection time, with units.
    rate_basis, repair_basis, detect_basis : str
        ``measured``, ``derived`` or ``assumed``.
    source : str
        The publication behind the rate.
    fleet : str
        Whose hardware, and how much of it.
    year : int
        When the source was published.
    default : bool
        Whether this is the class's default.
    note : str
        What to know before using it.
    """

    component: str
    mode: str
    rate_per_year: float
    repair: str
    detect: str
    rate_basis: str
    repair_basis: str
    detect_basis: str
    source: str
    fleet: str
    year: int
    default: bool = True
    note: str = ""

    @property
    def mtbf_hours(self) -> float:
        """Mean time between failures of one unit, hours."""
        return HOURS_PER_YEAR / self.rate_per_year

    def failure_table(self) -> dict[str, Any]:
        """The mode as a config's ``[failures.MODE]`` table (durations with units).

        Examples
        --------
        >>> DEFAULTS["nic"].failure_table()["lifetime"]["dist"]
        'exponential'
        """
        table: dict[str, Any] = {
            "lifetime": {"dist": "exponential", "mtbf": f"{self.mtbf_hours:.6g}h"},
            "repair": {"dist": "fixed", "mean": self.repair},
            "detect": self.detect,
        }
        if self.mode != self.component:
            table["unit"] = self.component
        return table

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, with ``mtbf_hours``."""
        return {**asdict(self), "mtbf_hours": self.mtbf_hours}


LLAMA3 = ("Grattafiori et al., The Llama 3 Herd of Models, arXiv:2407.21783, "
          "Sec. 3.3.4, Table 5")  # fmt: skip
LLAMA3_FLEET = "Meta, Llama 3 405B pre-training: 16,384 H100 (2,048 servers), 54 days"

CATALOG: tuple[CatalogEntry, ...] = (
    CatalogEntry("gpu", "gpu", 190 / LLAMA3_GPU_YEARS, "72h", "30s", DERIVED, ASSUMED, ASSUMED,
                 LLAMA3 + ": faulty GPU 148 + SRAM 19 + GSP 17 + thermal 6 events",
                 LLAMA3_FLEET, 2024,
                 note="interruption rate, not a replacement AFR; one 54-day window"),
    CatalogEntry("gpu", "hbm", 72 / LLAMA3_GPU_YEARS, "72h", "30s", DERIVED, ASSUMED, ASSUMED,
                 LLAMA3 + ": GPU HBM3 memory, 72 events", LLAMA3_FLEET, 2024,
                 note="NCSA Delta (arXiv:2503.11901, 2025): H100 memory fails 3.2x as often "
                      "as A100's; divide by 3.2 for A100"),
    CatalogEntry("gpu", "sdc", 6 / LLAMA3_GPU_YEARS, "72h", "30min", DERIVED, ASSUMED, ASSUMED,
                 LLAMA3 + ": silent data corruption, 6 events", LLAMA3_FLEET, 2024,
                 note="found late: Google's Gemini report sees SDC every week or two"),
    CatalogEntry("host", "host", 14 / LLAMA3_SERVER_YEARS, "48h", "30s", DERIVED, ASSUMED,
                 ASSUMED, LLAMA3 + ": SSD, PSU, chassis, IO board, CPU, DRAM: 14 events",
                 LLAMA3_FLEET, 2024),
    CatalogEntry("host", "host_maintenance", 32 / LLAMA3_SERVER_YEARS, "8h", "30s", DERIVED,
                 ASSUMED, ASSUMED, LLAMA3 + ": unplanned host maintenance, 32 events",
                 LLAMA3_FLEET, 2024),
    CatalogEntry("host", "software", 63 / LLAMA3_SERVER_YEARS, "0s", "30s", DERIVED, ASSUMED,
                 ASSUMED, LLAMA3 + ": software bug 54, dependency 2, NCCL watchdog 7",
                 LLAMA3_FLEET, 2024, note="restart only: nothing to repair"),
    CatalogEntry("host", "node", 6.50 * 365.25 / 1000, "48h", "5min", MEASURED, ASSUMED,
                 MEASURED, "Kokolis et al., Revisiting Reliability in Large-Scale ML Research "
                 "Clusters, HPCA 2025: 6.50 failures per 1,000 node-days",
                 "Meta RSC-1: 16k A100, 11 months, every job's failures", 2025, default=False,
                 note="all causes of a research cluster's job failures; health checks every "
                      "5 min"),
    CatalogEntry("host", "node_rsc2", 2.34 * 365.25 / 1000, "48h", "5min", MEASURED, ASSUMED,
                 MEASURED, "Kokolis et al., HPCA 2025: 2.34 failures per 1,000 node-days",
                 "Meta RSC-2: 8k A100, 11 months", 2025, default=False),
    CatalogEntry("nic", "nic", 7 / LLAMA3_GPU_YEARS, "8h", "30s", DERIVED, ASSUMED, DERIVED,
                 LLAMA3 + ": NIC, 7 events (one NIC per GPU)", LLAMA3_FLEET, 2024,
                 note="detection: NCCL's QP retry window, 4.096 us x 2^20 x 7 = 30 s"),
    CatalogEntry("optic", "optic", 0.005, "2h", "30s", ASSUMED, ASSUMED, ASSUMED,
                 "vendor FIT figures for 400G/800G modules: 0.2-1.0% AFR (no fleet AFR "
                 "published)", "none: vendor reliability predictions", 2024,
                 note="the point value 0.5% is an assumption inside the vendors' range"),
    CatalogEntry("link", "link", 12 * 0.00057, "4h", "30s", MEASURED, ASSUMED, DERIVED,
                 "Qian et al., Alibaba HPN, SIGCOMM 2024, Sec. 2.3: 0.057% of NIC-ToR links "
                 "fail per month", "Alibaba production training clusters", 2024),
    CatalogEntry("leaf", "leaf", 12 * 0.00051, "8h", "30s", MEASURED, ASSUMED, ASSUMED,
                 "Qian et al., Alibaba HPN, SIGCOMM 2024, Sec. 2.3: 0.051% of ToR switches "
                 "crash per month", "Alibaba production training clusters (single-chip "
                 "51.2T ToRs)", 2024,
                 note="a leaf failure takes down every single-homed server under it"),
    CatalogEntry("leaf", "leaf_2011", 0.05, "8h", "30s", MEASURED, ASSUMED, ASSUMED,
                 "Gill, Jain, Nagappan, Understanding Network Failures in Data Centers, "
                 "SIGCOMM 2011: ToR about 5%/yr", "Microsoft data centres, about a year",
                 2011, default=False, note="a 2011 fleet: probably conservative today"),
    CatalogEntry("spine", "spine", 0.10, "8h", "30s", MEASURED, ASSUMED, ASSUMED,
                 "Gill et al., SIGCOMM 2011: aggregation switches about 10%/yr",
                 "Microsoft data centres, about a year", 2011,
                 note="Singh et al. (CCR 2021, 180k switches): 2% fail within 3 months of "
                      "deployment, 32% of them hardware"),
    CatalogEntry("core", "core", 0.10, "8h", "30s", ASSUMED, ASSUMED, ASSUMED,
                 "taken as the aggregation tier's rate (Gill et al., SIGCOMM 2011)",
                 "Microsoft data centres, about a year", 2011),
    CatalogEntry("rack", "rack", 0.01, "4h", "30s", ASSUMED, ASSUMED, ASSUMED,
                 "no published rack or power-domain rate; server PSUs that stopped Llama 3 "
                 "ran at 1% per server-year (3 events)", LLAMA3_FLEET, 2024),
    CatalogEntry("domain", "domain", 0.01, "4h", "30s", ASSUMED, ASSUMED, ASSUMED,
                 "no published rate for the shared parts of a scale-up domain (NVLink "
                 "switch trays, power shelves, cooling of a GB200 NVL72 rack); taken as the "
                 "rack's assumed 1%/yr", "none: assumed (GB200 NVL72 racks ship from 2024)",
                 2024,
                 note="only the domain's shared parts: a chip that takes its TPU cube down "
                      "is a chip mode counted per domain at the cube's summed rate"),
)
"""Every entry; one default per component class."""

DEFAULTS: dict[str, CatalogEntry] = {
    entry.component: entry for entry in CATALOG if entry.default and entry.mode == entry.component
}
"""The default failure model of each component class, by class."""
