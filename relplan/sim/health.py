"""Detectors, flaps and probes as failure modes: what each does to a mode, in closed form,
before the walk (``failures.*.false_positives``, ``flap``, ``latent`` and
``[health.probe]``).

Each is a thinning of a Poisson process: a mode whose lifetime is exponential fails
at a constant rate, and a share ``p`` of its failures, chosen independently of
everything else, is itself a Poisson process at ``p`` times the rate, independent of
the rest. So a flapping link splits exactly into the flaps that outlast the transport
timeout (crashes) and those that do not (stalls), and the failures a probe finds before
the job does into a drain at the next checkpoint and the rest. A detector's false alarms
are a Poisson process of their own, at the rate the config gives, each doing what the
detector's action does (an eviction, a drain).

A failure predictor splits a watched mode the same way: the failures it warns of cost
what its action costs (a proactive checkpoint and a restart, or a migration: a stall of
the job with its progress kept, and the warning's lead beyond the checkpoint as rework),
the others crash as before; its false warnings are a Poisson process at ``recall x (1 -
precision) / precision`` times the watched rate, each costing the action.

The modes keep the parent's name with a suffix (:data:`relplan.vocab.FALSE_ALARM_SUFFIX`,
``FLAP_STALL_SUFFIX``, ``PROBE_FOUND_SUFFIX``, ``PREDICTED_SUFFIX``), and its unit class:
results by class count them with it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from relplan.sim import distributions
from relplan.vocab import (
    FALSE_ALARM_SUFFIX,
    FALSE_WARNING_MODE,
    FLAP_STALL_SUFFIX,
    JOB_UNIT,
    PREDICTED_SUFFIX,
    PROBE_FOUND_SUFFIX,
)

if TYPE_CHECKING:
    from relplan.config.schema import FailureModeConfig, PredictorConfig, ProbeConfig

HOURS_PER_DAY = 24.0


def flap_shares(flap: distributions.Distribution, timeout_hours: float) -> tuple[float, float]:
    """Of a mode's flaps, the share that outlasts the transport timeout (a crash) and the
    mean length of the others (a stall), hours.

    Parameters
    ----------
    flap : Distribution
        How long a flap keeps the port down, hours.
    timeout_hours : float
        The transport's timeout (``network.failover.transport_timeout``), hours.

    Returns
    -------
    (float, float)
        ``P(D > timeout)`` and ``E[D | D <= timeout]`` (0 if no flap is that short).

    Examples
    --------
    >>> p, stall = flap_shares(distributions.exponential(10.0), 10.0)  # e^-1, then
    >>> round(p, 4), round(stall, 4)  # (1 - 2 e^-1) / (1 - e^-1) x 10
    (0.3679, 4.1802)
    """
    crash = float(flap.sf(timeout_hours))
    if crash >= 1.0:
        return 1.0, 0.0
    if flap.kind == "fixed":
        return crash, flap.mean_hours
    stall = float(flap.scipy().expect(lambda hours: hours, lb=0.0, ub=timeout_hours,
                                      conditional=True))  # fmt: skip
    return crash, stall


def _thinned(mode: Any, share: float) -> Any:
    """``mode`` with its exponential rate times ``share`` (its mean over ``share``)."""
    return replace(mode, lifetime=distributions.exponential(mode.lifetime.mean_hours / share))


def _split(mode: Any, share: float, suffix: str, **changes: Any) -> list[Any]:
    """``mode`` thinned into the part ``share`` of its failures do not take (named as the
    mode) and the part they do (named with ``suffix``, with ``changes``), those with a
    share above 0."""
    parts = []
    if share < 1.0:
        parts.append(_thinned(mode, 1.0 - share))
    if share > 0.0:
        parts.append(replace(_thinned(mode, share), name=mode.name + suffix, history=None,
                             recall=1.0, **changes))  # fmt: skip
    return parts


def split_flaps(mode: Any, flap: distributions.Distribution, timeout_hours: float) -> list[Any]:
    """A fatal flapping mode as its crashes and its stalls.

    A flap longer than the timeout crashes the job, which notices it the timeout after
    the port went down (its detection); the link is back by then, so nothing is
    replaced. A shorter one stalls the job for its length (the mean length of those,
    exact in expectation).

    Parameters
    ----------
    mode : FailureMode
        The mode, fatal, with an exponential lifetime (the flap rate per unit).
    flap : Distribution
        How long a flap keeps the port down, hours.
    timeout_hours : float
        The transport's timeout, hours.

    Returns
    -------
    list of FailureMode
        The crashes (named as the mode) and the stalls (``FLAP_STALL_SUFFIX``), those
        with a share above 0.

    Examples
    --------
    >>> from relplan.sim.model import FailureMode
    >>> link = FailureMode("link", "link", 100, distributions.exponential(1000.0),
    ...                    distributions.fixed(0.0), 0.0, False, "equilibrium")
    >>> [m.name for m in split_flaps(link, distributions.exponential(0.01), 0.01)]
    ['link', 'link.flap-stall']
    """
    crash, stall = flap_shares(flap, timeout_hours)
    back = distributions.fixed(0.0)
    parts = []
    if crash > 0.0:
        parts.append(replace(_thinned(mode, crash), detect_hours=timeout_hours, repair=back,
                             uses_spares=False, self_healing=True, history=None,
                             recall=1.0))  # fmt: skip
    if crash < 1.0:
        parts.append(replace(
            _thinned(mode, 1.0 - crash), name=mode.name + FLAP_STALL_SUFFIX,
            impact="transient", stall_hours=stall, soft_hours=0.0, soft_slowdown=1.0,
            repair=back, detect_hours=0.0, uses_spares=False, self_healing=True, history=None,
            recall=1.0,
        ))  # fmt: skip
    return parts


def split_probe_finds(mode: Any, found: float) -> list[Any]:
    """A mode whose failures a probe finds ahead with probability ``found``: those are
    drained at the next durable checkpoint (a degraded unit of no slowdown, found at
    once), the rest fail as before.

    Parameters
    ----------
    mode : FailureMode
        The mode, with an exponential lifetime.
    found : float
        ``coverage x min(latent / every, 1)``, in [0, 1].

    Returns
    -------
    list of FailureMode
        The failures the probes miss (named as the mode) and those they find
        (``PROBE_FOUND_SUFFIX``), those with a share above 0.
    """
    return _split(mode, found, PROBE_FOUND_SUFFIX, impact="degraded",
                  slowdown_by_count=(1.0,), survivable_count=None, drain="at-checkpoint",
                  detect_hours=0.0, stall_hours=0.0, soft_hours=0.0, rework_hours=0.0,
                  self_healing=False)  # fmt: skip


def probe_share(config: FailureModeConfig, name: str, probe: ProbeConfig | None) -> float:
    """The share of a mode's failures a probe finds before the job does:
    ``coverage x min(latent / every, 1)`` (0 without a probe, a coverage or a latency).

    Examples
    --------
    >>> from relplan.config.schema import FailureModeConfig, ProbeConfig
    >>> mode = FailureModeConfig(lifetime={"dist": "exponential", "mtbf": "1y"}, latent="6h")
    >>> probe_share(mode, "gpu", ProbeConfig(every="24h", duration="5min",
    ...                                      coverage={"gpu": 0.8}))
    0.2
    """
    if probe is None or name not in probe.coverage or not config.latent:
        return 0.0
    return probe.coverage[name] * min(config.latent / probe.every, 1.0)


def false_alarm_mode(mode: Any, per_day_per_thousand: float, servers: int,
                     triage_hours: float) -> Any:  # fmt: skip
    """The false alarms of a mode's detector, as a mode of their own: a Poisson process at
    ``per_day_per_thousand x servers / 1000`` a day, each doing what the detector does
    on a true alarm, found at once: a fatal mode's eviction (a stop, a restart, a spare
    for the flagged server), a fail-slow mode's (at once or at the next checkpoint, as
    its ``evict``), a draining mode's drain. The flagged server returns after its
    triage.

    Parameters
    ----------
    mode : FailureMode
        The detector's mode (fatal, slow, or degraded and draining).
    per_day_per_thousand : float
        False alarms a day per 1,000 servers.
    servers : int
        The job's servers.
    triage_hours : float
        How long a flagged server is out, hours.

    Returns
    -------
    FailureMode
        Named ``NAME`` + :data:`relplan.vocab.FALSE_ALARM_SUFFIX`.

    Examples
    --------
    >>> from relplan.sim.model import FailureMode
    >>> gpu = FailureMode("gpu", "gpu", 512, distributions.exponential(50000.0),
    ...                   distributions.fixed(24.0), 0.05, True, "equilibrium")
    >>> alarms = false_alarm_mode(gpu, 0.84, 63, 4.0)  # the 504-GPU study's rate
    >>> round(alarms.job_units / alarms.lifetime.mean_hours * 24, 4)  # a day
    0.0529
    """
    rate_per_hour = per_day_per_thousand * servers / 1000.0 / HOURS_PER_DAY
    change: dict[str, Any] = {"slowdown_by_count": (1.0,)} if mode.impact != "fatal" else {}
    return replace(
        mode, name=mode.name + FALSE_ALARM_SUFFIX,
        lifetime=distributions.exponential(mode.job_units / rate_per_hour),
        repair=distributions.fixed(triage_hours), detect_hours=0.0, start="equilibrium",
        history=None, self_healing=False, stall_hours=0.0, soft_hours=0.0,
        rework_hours=0.0, recall=1.0, episode=None, tolerate_hours=0.0,
        return_burn_in_hours=0.0, **change,
    )  # fmt: skip


def predicted_cost(predictor: PredictorConfig, write_hours: float,
                   restart_hours: float) -> tuple[float, float] | None:  # fmt: skip
    """What a failure the predictor warns of costs: the stall of the job (its progress
    kept) and the rework, hours; None if the warning comes too late to act on (a lead
    shorter than the checkpoint's blocking write).

    Examples
    --------
    >>> from relplan.config.schema import PredictorConfig
    >>> p = PredictorConfig(modes=["gpu"], recall=0.5, lead="10min")
    >>> [round(h * 60, 6) for h in predicted_cost(p, 2 / 60, 0.1)]  # write + restart, rest
    [8.0, 8.0]
    """
    if predictor.action == "migrate":
        return predictor.swap, 0.0
    if predictor.lead < write_hours:
        return None
    return write_hours + restart_hours, predictor.lead - write_hours


def split_predicted(mode: Any, recall: float, stall_hours: float, rework_hours: float
                    ) -> list[Any]:  # fmt: skip
    """A watched fatal mode as the failures the predictor misses (a crash, named as the
    mode) and those it warns of (``PREDICTED_SUFFIX``: a stall with the progress kept,
    and ``rework_hours`` redone), those with a share above 0."""
    return _split(mode, recall, PREDICTED_SUFFIX, impact="transient",
                  stall_hours=stall_hours, rework_hours=rework_hours, soft_hours=0.0,
                  soft_slowdown=1.0, repair=distributions.fixed(0.0), detect_hours=0.0,
                  uses_spares=False, self_healing=True, return_burn_in_hours=0.0)  # fmt: skip


def false_warning_mode(template: Any, rate_per_hour: float, stall_hours: float) -> Any:
    """The predictor's false warnings: a job-level Poisson process of ``rate_per_hour``,
    each a stall of ``stall_hours`` (the action taken for nothing), named
    :data:`relplan.vocab.FALSE_WARNING_MODE`."""
    return replace(
        template, name=FALSE_WARNING_MODE, unit=JOB_UNIT, job_units=1,
        lifetime=distributions.exponential(1.0 / rate_per_hour), impact="transient",
        stall_hours=stall_hours, rework_hours=0.0, soft_hours=0.0, soft_slowdown=1.0,
        repair=distributions.fixed(0.0), detect_hours=0.0, uses_spares=False,
        self_healing=True, history=None, recall=1.0, loses_fast_checkpoint=False,
        return_burn_in_hours=0.0,
    )  # fmt: skip
