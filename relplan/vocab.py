"""The vocabulary every part of relplan shares: component classes, impacts, buckets, metrics.

One home for each name list, with no heavy imports, so the config schema, the engine, the
results, the plots and the command line always spell them the same way.
"""

from __future__ import annotations

COMPONENT_CLASSES: tuple[str, ...] = (
    "gpu",
    "host",
    "nic",
    "optic",
    "link",
    "leaf",
    "spine",
    "core",
    "rack",
    "domain",
)
"""Component classes the topology counts; a failure mode attaches to one of them.

``leaf`` is the edge/ToR tier, ``spine`` the tier above it (the aggregation tier of a
fat-tree), ``core`` a fat-tree's top tier; ``rack`` a rack or power domain of
``cluster.servers_per_rack`` servers, ``domain`` a scale-up domain (an NVLink domain such
as a GB200 NVL72 rack, a TPU cube) of ``cluster.servers_per_domain`` servers: the failure
of either takes all of its servers down at once."""

JOB_UNIT = "job"
"""The unit of a failure mode counted per job (a software crash, a job-wide slowdown): it
needs the job running, so it neither fails while the job is down nor is drained."""

FAILURE_UNITS: tuple[str, ...] = (*COMPONENT_CLASSES, JOB_UNIT)
"""What a failure mode can be counted per: a component class, or the job as a whole."""

SERVER_CLASSES: tuple[str, ...] = ("gpu", "host", "nic")
"""Classes that live inside a server, so a spare server can stand in for them."""

BLOCK_CLASSES: tuple[str, ...] = ("rack", "domain")
"""Classes whose failure takes a block of servers down at once. By default a spare stands
in for them too: a rack's worth of loose spare servers (``job.spares``) for a rack, a
whole spare domain (``job.spare_domains``) for a scale-up domain."""

FABRIC_CLASSES: tuple[str, ...] = ("spine", "core")
"""Switch tiers above the leaves, which ECMP routes around when one fails."""

DRAINABLE_CLASSES: tuple[str, ...] = ("nic", "link", "optic")
"""Classes whose degraded failure leaves one server of the job running degraded, which a
drain (``job.drain``) can swap for a spare: a server's own legs, its NIC (under PXN) and
the server side of its links and their optics (a lost dual-ToR leg or LACP member); not a
switch, a fabric link, a GPU or host, a block of servers or the job as a whole."""

IMPACTS: tuple[str, ...] = (
    "fatal", "degraded", "transient", "elastic", "slow", "corruption", "preemption",
)  # fmt: skip
"""What a failure does to the job (the codes of the compiled walk follow this order):
``slow`` a fail-slow unit that slows the job until it is detected and evicted,
``corruption`` silent data corruption found ``detect`` later, which rolls back to the last
checkpoint before it, ``preemption`` the job's capacity taken back (``[preemption]``:
saved on its notice, or a crash)."""

PREEMPTION_MODE = "preemption"
"""The failure mode ``[preemption]`` adds (a name no ``[failures]`` table may take)."""

FALSE_ALARM_SUFFIX = ".false-alarm"
FLAP_STALL_SUFFIX = ".flap-stall"
PROBE_FOUND_SUFFIX = ".probe-found"
PREDICTED_SUFFIX = ".predicted"
"""Suffixes of the modes a mode's detector, flaps, probes and predictor add
(:mod:`relplan.sim.health`): its false alarms, its flaps shorter than the transport
timeout, its failures a probe finds ahead, those a predictor warns of."""

FALSE_WARNING_MODE = "predictor.false-warning"
"""The mode of a failure predictor's false warnings (``[health.predictor]``)."""

RUNNING_ONLY_IMPACTS: tuple[str, ...] = ("slow", "corruption")
"""Impacts that exist only in a running job, so that no failure of them strikes while the
job is down (``job.idle_failures``): a fail-slow unit shows as the job's slowdown, a
corruption in the state the job computes."""

RECOVERY_STRATEGIES: tuple[str, ...] = (
    "checkpoint-restart", "live-migration", "replica-drop", "elastic", "in-process",
    "failure-free",
)  # fmt: skip
"""What ``job.recovery`` (the recovery stack) may say: restart from a checkpoint, move a
failed server's state to a hot spare (TorchPass), drop the failed replica group until it
rejoins with a per-step tax (torchft), drop a data-parallel replica (elastic), recover
within the running job (per step), or a failure-free baseline."""

IMPACT_SETTINGS: tuple[str, ...] = (
    "auto", "fatal", "degraded", "transient", "slow", "corruption",
)  # fmt: skip
"""What a config's ``failures.NAME.impact`` may say (``auto``: from the redundancy)."""

INIT_SCALINGS: dict[str, float | None] = {
    "none": 0.0, "log2": None, "linear": 1.0, "quadratic": 2.0,
}  # fmt: skip
"""What ``job.restart.init_scaling`` may name, with the power of ``gpus / reference_gpus``
each is (``log2`` is no power: ``log2(gpus) / log2(reference_gpus)``); a table
``{ exponent = a }`` gives any other power."""

DRAIN_POLICIES: tuple[str, ...] = ("never", "at-checkpoint", "now")
"""What ``job.drain`` and ``failures.NAME.drain`` may say: when a server running degraded
(a lost dual-ToR leg or LACP member) is swapped for a free spare: never, at the next
durable checkpoint, or at once."""

PREEMPT_POLICIES: tuple[str, ...] = ("never", "lower-priority")
"""What a fleet's job that would wait for a replacement server may do (``[fleet] preempt``):
wait, or take a server from a running job of lower priority."""

DIMENSIONS: tuple[str, ...] = ("data", "tensor", "pipeline", "expert", "expert_data")
"""Parallelism dimensions of the communication model."""

BUCKETS: tuple[str, ...] = (
    "useful",
    "rework",
    "checkpoint",
    "detect",
    "restart",
    "waiting",
    "degraded",
    "stall",
    "maintenance",
    "overhead",
)
"""Names of the wall-clock buckets, in the order of :attr:`TrialOutcomes.bucket_hours`
(``maintenance``: planned maintenance windows, ``[maintenance]``; ``overhead``: the
recovery stack's steady per-step tax on the work that was kept, ``job.step_overhead``)."""

UNIT_STATS: tuple[str, ...] = (
    "units_failed",
    "repeat_units",
    "max_failures_per_unit",
    "retired_units",
)
"""Per trial and failure mode whose units have a history (``lemons``, ``repair_success``,
``retire_after``), in the order of :attr:`TrialOutcomes.unit_stats`: units that failed at
least once, units that failed at least twice (the repeat offenders), the most failures of
one unit, and units retired (replaced after ``retire_after`` failures). A replacement is a
unit of its own."""

ML_GOODPUT_BADPUT: dict[str, tuple[str, ...]] = {
    "unproductive_checkpoint_save_time": ("checkpoint",),
    "unproductive_checkpoint_restore_time": ("restart_load",),
    "program_startup": ("restart_init",),
    "wasted_progress_from_disruption": ("rework", "stall"),
    "infrastructure_recovery_from_disruption": ("detect", "waiting"),
    "other": ("degraded", "maintenance", "overhead"),
}
"""relplan's hours under the badput names of Google's ml-goodput-measurement (its
``BadputType``, lower-cased): each name's parts, among the buckets and the restart's two
parts (``restart_init``, ``restart_load``). ``program_startup`` holds all of a restart's
start-up (there also ``TPU_INITIALIZATION`` and ``TRAINING_PREP``); data loading is not
modelled; slowed running (``degraded``), planned maintenance and a recovery stack's
per-step tax (``overhead``) have no name there, so they go to ``other``."""

PERCENTILES: tuple[int, ...] = (5, 50, 95, 99)
"""Percentiles reported for every metric."""

METRICS: tuple[str, ...] = (
    "wall_hours",
    "goodput",
    "lost_hours",
    "interruptions",
    "gpu_hours_lost",
    "spares_used",
    "degraded_hours",
    "stall_hours",
    "work_done_hours",
)
"""Per-trial metrics summarised in every result (``work_done_hours``: the job's work, or
what a calendar window got done)."""

HIGHER_IS_BETTER: tuple[str, ...] = ("goodput", "work_done_hours")
"""Metrics where a higher value is better: their bad tail is the low percentile (P5)."""

TAIL_PERCENTILES: dict[str, int] = {
    metric: 5 if metric in HIGHER_IS_BETTER else 95 for metric in METRICS
}
"""The bad-tail percentile of each metric: P5 where higher is better (goodput), P95 for
costs (hours, GPU-hours, counts). Tables and reports quote this one as "the bad tail"."""

METRIC_LABELS: dict[str, tuple[str, str, str]] = {
    "wall_hours": ("wall time", "h", "{:,.1f}"),
    "goodput": ("goodput", "fraction of wall time", "{:.4f}"),
    "lost_hours": ("lost time", "h", "{:,.1f}"),
    "interruptions": ("interruptions", "count", "{:,.2f}"),
    "gpu_hours_lost": ("GPU-hours lost", "GPU-h", "{:,.0f}"),
    "spares_used": ("spares used", "count", "{:,.2f}"),
    "degraded_hours": ("time degraded", "h", "{:,.2f}"),
    "stall_hours": ("time stalled", "h", "{:,.2f}"),
    "work_done_hours": ("work done", "h", "{:,.1f}"),
}
"""Per metric: its name in prose, its unit and the one number format every report uses."""

UNITLESS_METRIC_UNITS: tuple[str, ...] = ("fraction of wall time", "count")
"""The units of :data:`METRIC_LABELS` that a table heading leaves out (a fraction, a count):
the others (h, GPU-h) follow the metric's name in brackets."""

LOG_ID_KINDS: tuple[str, ...] = ("auto", "server", "gpu", "nic", "link", "switch")
"""What the unit ids of an incident log may name (``relplan analyze --ids``): ``auto``,
each row's own failure mode's unit; ``server``, the server the failed part sits in;
``switch``, a leaf, spine or core switch."""

LOG_ID_CLASSES: dict[str, tuple[str, ...]] = {
    "gpu": ("gpu",),
    "nic": ("nic",),
    "link": ("link", "optic"),
    "switch": ("leaf", "spine", "core"),
}
"""Per kind of log id other than ``auto`` and ``server``: the component classes whose
failures it names one unit of."""

LINK_SIDES: tuple[str, ...] = ("server", "fabric")
"""What an incident log's optional ``side`` column may say of a link or optic failure: a
server's link, or a link between switches."""

COMPILED_KINDS: tuple[str, ...] = ("walk", "traced walk", "trace segments")
"""The kinds of compiled function a run calls (``relplan warmup``): the walk of trials of
the config's features, the same walk writing one trial's timeline (the reports' trace), and
the segment arithmetic that expands a trace (see :mod:`relplan.sim.precompile`)."""
