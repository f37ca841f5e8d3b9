"""A fleet: several jobs over one cluster (``[[jobs]]`` in place of ``[job]``).

A fleet config is a config whose ``[job]`` table is replaced by an array of tables
``[[jobs]]``: each entry takes every key of ``[job]`` and a ``name`` and a ``priority``.
Everything else (the cluster, its failure modes, the network, ``[simulation]``) is the
fleet's and shared by its jobs. Each job is validated as the config it would be on its
own: the fleet's tables with that entry as its ``[job]``, so that a one-job fleet *is*
today's single-job config, number for number.

The jobs are packed on the cluster in the order given, each on its own servers and its
own spares (``spares`` of its entry), or drawing on one pool of spares they share
(``[fleet] spares``, the cluster's last servers); together they must fit. A job with
``first_server`` is placed there instead (its servers, then its own spares), and the
others are packed into the first gap that holds them; placements may not overlap.
``[repair] crews`` of a fleet are its own, shared by its jobs. ``--set jobs.NAME.KEY=V``
changes one job's key; any other ``--set`` changes the fleet's shared tables.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from relplan.config.derived import job_servers
from relplan.config.loading import parse_config, read_toml
from relplan.config.overriding import apply_overrides
from relplan.config.schema import FleetConfig, RelplanConfig
from relplan.errors import ConfigError

FLEET_KEY = "jobs"
"""The array of tables that makes a config a fleet's."""

FLEET_TABLE = "fleet"
"""The table of what a fleet's jobs share (:class:`~relplan.config.schema.FleetConfig`)."""

JOB_ENTRIES: dict[str, tuple[str, str, str]] = {
    "name": ("string", "required", "The job's name, unique in the fleet, without dots: "
             "`--set jobs.NAME.KEY=V` and errors name it."),
    "priority": ("integer", "0", "Higher is more important: with `fleet.preempt = "
                 "\"lower-priority\"`, a job may take a server from a running job of lower "
                 "priority."),
    "first_server": ("integer", "none", "Where the job's servers (then its own spares) start "
                     "on the cluster; without it the job is packed into the first gap that "
                     "holds it, in the order given. Placements may not overlap."),
}
"""Keys of a ``[[jobs]]`` entry beyond those of ``[job]``: type, default and meaning (the
config reference's table of them)."""

JOB_ENTRY_KEYS = tuple(JOB_ENTRIES)
"""Their names: a job's name, its priority and where its servers start on the cluster
(explicit placement; packed without it)."""

DEFAULT_PRIORITY = 0
"""``jobs[].priority`` by default (a higher number is a more important job)."""


@dataclass(frozen=True)
class FleetJob:
    """One job of a fleet.

    Attributes
    ----------
    name : str
        Its ``name`` (unique in the fleet).
    priority : int
        Its ``priority`` (higher: more important).
    config : RelplanConfig
        The config it is on its own: the fleet's tables with this job as ``[job]``.
    first_server : int
        Where its servers start on the cluster (its entry's ``first_server``, or packed in
        the order given).
    pooled : bool
        Whether it draws on the fleet's shared pool (its config's ``job.spares`` is then
        the pool's size), not on spares of its own.
    """

    name: str
    priority: int
    config: RelplanConfig
    first_server: int
    pooled: bool = False

    @property
    def gpus(self) -> int:
        """The job's GPUs."""
        return self.config.job.gpus

    @property
    def servers(self) -> int:
        """Servers its GPUs fill."""
        return job_servers(self.config)

    @property
    def held_servers(self) -> int:
        """Servers it holds: its own and its spares (none of its own with a shared pool)."""
        return self.servers + (0 if self.pooled else self.config.job.spares)


@dataclass(frozen=True)
class Fleet:
    """Several jobs over one cluster: the validated ``[[jobs]]`` of a fleet config.

    Attributes
    ----------
    jobs : tuple of FleetJob
        The jobs, in the order given.
    settings : FleetConfig
        What the jobs share (``[fleet]``): the pool of spares.

    Examples
    --------
    >>> fleet = load_fleet("configs/fleets/fleet-mix.toml")
    >>> [job.name for job in fleet.jobs][:3], fleet.gpus
    (['pretrain-8k', 'finetune-1k-a', 'finetune-1k-b'], 12800)
    """

    jobs: tuple[FleetJob, ...]
    settings: FleetConfig = field(default_factory=FleetConfig)

    @property
    def spares(self) -> int:
        """Spare servers of the shared pool (0: each job has its own)."""
        return self.settings.spares

    @property
    def crews(self) -> int:
        """Repair crews the jobs share (``[repair] crews``; 0: a crew for every repair)."""
        repair = self.jobs[0].config.repair
        return repair.crews if repair is not None else 0

    @property
    def walked_together(self) -> bool:
        """Whether its jobs share a pool or crews, or take servers from each other, and
        so are walked together (one job is walked as the config it is alone)."""
        return len(self.jobs) > 1 and (self.spares > 0 or self.crews > 0 or self.preempts)

    @property
    def preempts(self) -> bool:
        """Whether a job may take a server from one of lower priority (``[fleet] preempt
        = "lower-priority"`` and jobs of more than one priority)."""
        return self.settings.preempt == "lower-priority" and len(
            {job.priority for job in self.jobs}) > 1

    def victim_order(self) -> list[int]:
        """The jobs, by index, in the order a server is taken from them: lowest priority
        first, then by name.

        Examples
        --------
        >>> fleet = load_fleet("configs/fleets/fleet-mix.toml")
        >>> fleet.jobs[fleet.victim_order()[-1]].name
        'pretrain-8k'
        """
        return sorted(range(len(self.jobs)),
                      key=lambda index: (self.jobs[index].priority, self.jobs[index].name))

    @property
    def gpus(self) -> int:
        """The GPUs of all its jobs."""
        return sum(job.gpus for job in self.jobs)

    def as_one_job(self) -> RelplanConfig:
        """One job holding all its jobs' GPUs and all their spares (own and pooled) on its
        cluster: the hardware the fleet holds, with the switches its jobs share counted
        once (what prices it, and checks its fabric's ports).

        Examples
        --------
        >>> whole = load_fleet("configs/fleets/fleet-pool.toml").as_one_job()
        >>> whole.job.gpus, whole.job.spares
        (12800, 56)
        """
        spares = self.spares + sum(0 if job.pooled else job.config.job.spares
                                   for job in self.jobs)  # fmt: skip
        return self.jobs[0].config.with_overrides(
            [f"job.gpus={self.gpus}", f"job.spares={spares}", "job.spare_domains=0"])

    @property
    def name(self) -> str | None:
        """The fleet config's ``name`` (None when it has none)."""
        return self.jobs[0].config.name

    @property
    def cluster_servers(self) -> int:
        """The cluster's servers (``cluster.servers``)."""
        return self.jobs[0].config.cluster.servers

    def job(self, name: str) -> FleetJob:
        """The job named ``name``.

        Raises
        ------
        ConfigError
            Naming ``name`` when no job has it.
        """
        for job in self.jobs:
            if job.name == name:
                return job
        raise ConfigError(name, f"no job of the fleet has this name (jobs: {self.names})")

    @property
    def names(self) -> str:
        """The jobs' names, comma-separated."""
        return ", ".join(job.name for job in self.jobs)


def is_fleet_document(document: dict[str, Any]) -> bool:
    """Whether a parsed config document is a fleet's (it has ``[[jobs]]``).

    Examples
    --------
    >>> is_fleet_document({"cluster": {}, "jobs": [{"name": "a"}]})
    True
    >>> is_fleet_document({"cluster": {}, "job": {}})
    False
    """
    return FLEET_KEY in document


def is_fleet_file(path: str | Path) -> bool:
    """Whether a config file is a fleet's (it has ``[[jobs]]``); a file that cannot be
    read is not (reading it as a config says why).

    Examples
    --------
    >>> is_fleet_file("configs/fleets/fleet-mix.toml"), is_fleet_file("configs/small.toml")
    (True, False)
    """
    try:
        return is_fleet_document(read_toml(path, "CONFIG"))
    except ConfigError:
        return False


def _entries(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``[[jobs]]`` entries, checked for their shape and names."""
    if "job" in document:
        raise ConfigError(FLEET_KEY, "give one [job] or several [[jobs]], not both")
    entries = document[FLEET_KEY]
    if not isinstance(entries, list) or not entries or not all(
        isinstance(entry, dict) for entry in entries
    ):
        raise ConfigError(FLEET_KEY, "must be an array of tables ([[jobs]]), at least one")
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        name = entry.get("name")
        if not isinstance(name, str) or not name or "." in name:
            raise ConfigError(f"{FLEET_KEY}[{index}].name",
                              "each job needs a name (text without dots)")  # fmt: skip
        if name in seen:
            raise ConfigError(f"{FLEET_KEY}.{name}.name", "two jobs have this name")
        seen.add(name)
        priority = entry.get("priority", DEFAULT_PRIORITY)
        if isinstance(priority, bool) or not isinstance(priority, int) or priority < 0:
            raise ConfigError(f"{FLEET_KEY}.{name}.priority",
                              f"must be a whole number of at least 0, not {priority!r}")
        first = entry.get("first_server", 0)
        if isinstance(first, bool) or not isinstance(first, int) or first < 0:
            raise ConfigError(f"{FLEET_KEY}.{name}.first_server",
                              f"must be a server's number, 0 or more, not {first!r}")
    return entries


def _job_document(document: dict[str, Any], entry: dict[str, Any],
                  pool: int) -> dict[str, Any]:  # fmt: skip
    """The config a job is on its own: the fleet's tables with the entry as ``[job]``,
    and the shared pool (if any) as its spares."""
    alone = {key: value for key, value in document.items()
             if key not in (FLEET_KEY, FLEET_TABLE)}  # fmt: skip
    alone["job"] = {key: value for key, value in entry.items() if key not in JOB_ENTRY_KEYS}
    if pool > 0:
        if entry.get("spares", 0) != 0:
            raise ConfigError(f"{FLEET_KEY}.{entry['name']}.spares",
                              "a job of a fleet with a shared pool ([fleet] spares) has no "
                              "spares of its own")  # fmt: skip
        alone["job"]["spares"] = pool
    return copy.deepcopy(alone)


def _settings(document: dict[str, Any]) -> FleetConfig:
    """The ``[fleet]`` table, validated (its keys named ``fleet.KEY``)."""
    try:
        return FleetConfig.model_validate(document.get(FLEET_TABLE, {}))
    except ValidationError as error:
        problem = error.errors()[0]
        key = ".".join([FLEET_TABLE, *(str(part) for part in problem["loc"])])
        raise ConfigError(key, problem["msg"].lower()) from None


def _check_job_keys(overrides: list[str], names: list[str]) -> None:
    """Every ``jobs.NAME.KEY=V`` override names a job of the fleet."""
    for item in overrides:
        key = item.partition("=")[0].strip()
        parts = key.split(".")
        if parts[0] == FLEET_KEY and (len(parts) < 3 or parts[1] not in names):
            raise ConfigError(key, "not a key of a job: jobs.NAME.KEY with NAME one of "
                                   f"{', '.join(names)}")  # fmt: skip


def parse_fleet(raw: dict[str, Any], overrides: list[str] | None = None) -> Fleet:
    """Validate a fleet config document, after applying ``--set`` overrides.

    Parameters
    ----------
    raw : dict
        A parsed TOML document with ``[[jobs]]`` (not modified).
    overrides : list of str, optional
        ``KEY=VALUE`` items: ``jobs.NAME.KEY`` changes one job's key, any other key the
        fleet's shared tables.

    Returns
    -------
    Fleet

    Raises
    ------
    ConfigError
        Naming the key at fault, a job's as ``jobs.NAME.KEY``: a missing or repeated
        name, a bad priority, a job's bad key, or jobs that do not fit on the cluster.

    Examples
    --------
    >>> hourly = {"interval": "1h"}
    >>> document = {"cluster": {"servers": 6},
    ...             "jobs": [{"name": "a", "gpus": 16, "work": "1d", "checkpoint": hourly},
    ...                      {"name": "b", "gpus": 8, "work": "1d", "checkpoint": hourly,
    ...                       "spares": 1}]}
    >>> fleet = parse_fleet(document, ["jobs.b.work=2d"])
    >>> [(job.name, job.first_server, job.config.job.work) for job in fleet.jobs]
    [('a', 0, 24.0), ('b', 2, 48.0)]
    >>> try:
    ...     parse_fleet(document, ["jobs.b.gpus=32"])
    ... except ConfigError as error:
    ...     print(error.key, "|", error.message)  # doctest: +NORMALIZE_WHITESPACE
    jobs | the jobs need 7 servers with their spares (a: 2, b: 5), the cluster has 6
    (cluster.servers)
    """
    names = [entry["name"] for entry in _entries(raw)]
    items = list(overrides or [])
    _check_job_keys(items, names)
    keyed = {key: value for key, value in raw.items() if key != FLEET_KEY}
    keyed[FLEET_KEY] = {entry["name"]: entry for entry in raw[FLEET_KEY]}
    document = apply_overrides(keyed, items)  # jobs.NAME.KEY reaches the entry
    document[FLEET_KEY] = [document[FLEET_KEY][name] for name in names]
    settings = _settings(document)
    entries = _entries(document)
    jobs = []
    for entry in entries:
        name = entry["name"]
        try:
            config = parse_config(_job_document(document, entry, settings.spares))
        except ConfigError as error:
            key = error.key
            if key == "job" or key.startswith("job."):
                key = f"{FLEET_KEY}.{name}" + key[len("job"):]
            raise ConfigError(key, error.message) from None
        jobs.append(FleetJob(name, int(entry.get("priority", DEFAULT_PRIORITY)), config, 0,
                             settings.spares > 0))  # fmt: skip
    fleet = Fleet(tuple(jobs), settings)
    needed = sum(job.held_servers for job in jobs) + fleet.spares
    if needed > fleet.cluster_servers:
        held = ", ".join(f"{job.name}: {job.held_servers}" for job in jobs)
        pool = f", the shared pool: {fleet.spares}" if fleet.spares else ""
        raise ConfigError(FLEET_KEY, f"the jobs need {needed} servers with "
                                     f"their spares ({held}{pool}), the cluster has "
                                     f"{fleet.cluster_servers} (cluster.servers)")  # fmt: skip
    explicit = {entry["name"]: entry["first_server"] for entry in entries
                if "first_server" in entry}  # fmt: skip
    starts = _placements(jobs, explicit, fleet.cluster_servers - fleet.spares)
    return Fleet(tuple(replace(job, first_server=starts[job.name]) for job in jobs), settings)


def _placements(jobs: list[FleetJob], explicit: dict[str, int], servers: int) -> dict[str, int]:
    """Where each job's servers start: those given (``first_server``), checked to lie on
    the ``servers`` before the shared pool and not to overlap, then the others packed in
    order, each into the first gap that holds it.

    Raises
    ------
    ConfigError
        Naming ``jobs.NAME.first_server`` of a placement off the cluster or over
        another's, or ``jobs.NAME`` of a job no gap holds.
    """
    taken: list[tuple[int, int, str]] = []  # [start, end) and the job
    for job in jobs:
        if job.name not in explicit:
            continue
        start = explicit[job.name]
        end = start + job.held_servers
        key = f"{FLEET_KEY}.{job.name}.first_server"
        if end > servers:
            raise ConfigError(key, f"the job's {job.held_servers} servers from {start} run "
                                   f"past the cluster's {servers} for jobs (cluster.servers"
                                   " less the shared pool)")  # fmt: skip
        for other_start, other_end, other in taken:
            if start < other_end and other_start < end:
                raise ConfigError(key, f"servers {start}-{end - 1} overlap job {other}'s "
                                       f"{other_start}-{other_end - 1}")  # fmt: skip
        taken.append((start, end, job.name))
    starts = {name: start for start, _, name in taken}
    for job in jobs:
        if job.name in starts:
            continue
        start = 0
        for other_start, other_end, _ in sorted(taken):
            if start + job.held_servers <= other_start:
                break
            start = max(start, other_end)
        if start + job.held_servers > servers:
            raise ConfigError(f"{FLEET_KEY}.{job.name}", f"no run of {job.held_servers} free "
                                                         "servers is left for the job beside "
                                                         "the placed ones")  # fmt: skip
        taken.append((start, start + job.held_servers, job.name))
        starts[job.name] = start
    return starts


def load_fleet(path: str | Path, overrides: list[str] | None = None) -> Fleet:
    """Read, override and validate a fleet config file (see :func:`parse_fleet`).

    Examples
    --------
    >>> fleet = load_fleet("configs/fleets/fleet-mix.toml", ["jobs.pretrain-8k.spares=8"])
    >>> fleet.jobs[0].held_servers
    1032
    """
    return parse_fleet(read_toml(path, "CONFIG"), overrides)
