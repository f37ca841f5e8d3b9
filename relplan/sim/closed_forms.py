"""Checkpoint-interval closed forms: Young (1974), Daly (2006), expected wall time.

The engine must agree with these (the tests hold it to them) and uses them to size its
windows of pre-drawn failures and to refuse a job that would never finish.

Notation (Daly's): ``M`` mean time to interruption of the job, ``delta`` blocking
checkpoint write, ``R`` restart, ``D`` downtime per failure during which nothing
fails (detection plus waiting for a repair), ``tau`` compute between checkpoints.
All in hours.
"""

from __future__ import annotations

import math

import numpy as np

from relplan.sim.distributions import Distribution


def young_interval(write_hours: float, mtbf_hours: float) -> float:
    """Young's first-order optimum checkpoint interval, ``sqrt(2 delta M)``.

    Young, "A first order approximation to the optimum checkpoint interval",
    CACM 17(9), 1974.

    Parameters
    ----------
    write_hours : float
        Blocking time to write one checkpoint, hours.
    mtbf_hours : float
        Mean time between job interruptions, hours.

    Returns
    -------
    float
        Compute time between checkpoints, hours.

    Examples
    --------
    >>> round(young_interval(5 / 60, 24.0) * 60)  # minutes: delta = 5 min, M = 24 h
    120
    """
    return math.sqrt(2.0 * write_hours * mtbf_hours)


def daly_interval(write_hours: float, mtbf_hours: float) -> float:
    """Checkpoint interval that minimises expected wall time (Daly 2006, higher order).

    ``tau = sqrt(2 delta M) [1 + sqrt(delta / 2M) / 3 + delta / 18M] - delta`` for
    ``delta < 2M``, else ``tau = M``. Daly, "A higher order estimate of the optimum
    checkpoint interval for restart dumps", FGCS 22(3), 2006.

    Parameters and return as :func:`young_interval` (hours).

    Examples
    --------
    >>> round(daly_interval(5 / 60, 24.0) * 60)  # Daly's published 117 min
    117
    """
    delta, m = write_hours, mtbf_hours
    if delta >= 2.0 * m:
        return m
    ratio = delta / (2.0 * m)
    return math.sqrt(2.0 * delta * m) * (1.0 + math.sqrt(ratio) / 3.0 + ratio / 9.0) - delta


def exact_interval(write_hours: float, mtbf_hours: float) -> float:
    """The interval minimising Daly's cost per unit of work, by the Lambert W function.

    Setting the derivative of ``(exp((tau + delta)/M) - 1) / tau`` to zero gives
    ``tau = M (1 + W0(-exp(-(delta/M + 1))))``.

    Parameters and return as :func:`young_interval` (hours).

    Examples
    --------
    >>> 1.9 < exact_interval(5 / 60, 24.0) < 2.0
    True
    """
    m = mtbf_hours
    argument = -math.exp(-(write_hours / m + 1.0))
    from scipy import special  # imported on first use: the engine itself never needs it

    return m * (1.0 + float(np.real(special.lambertw(argument, 0))))


def segment_wall_hours(
    segment_hours: float, mtbf_hours: float, restart_hours: float, downtime_hours: float = 0.0
) -> float:
    """Expected wall time to complete one segment under exponential failures (Daly 2006).

    ``(M + D) e^{R/M} (e^{s/M} - 1)``: every failure costs the time spent in the
    segment, a downtime ``D`` during which nothing fails, and a restart ``R`` that
    failures may also interrupt.

    Parameters
    ----------
    segment_hours : float
        Failure-free length of the segment (compute plus checkpoint write), hours.
    mtbf_hours : float
        Mean time between job interruptions, hours.
    restart_hours : float
        Restart time after each failure, hours.
    downtime_hours : float
        Mean failure-free downtime per failure (detection plus waiting), hours.

    Returns
    -------
    float
        Expected wall-clock time, hours.
    """
    m = mtbf_hours
    if math.isinf(m):
        return segment_hours
    return (m + downtime_hours) * math.exp(restart_hours / m) * math.expm1(segment_hours / m)


def effective_write_hours(write: Distribution | tuple[float, ...], mtbf_hours: float) -> float:
    """The fixed write with the expected wall time of a write drawn afresh at each save,
    hours: ``-M ln E[exp(-W / M)]``.

    A segment whose write ``W`` is drawn again at every attempt completes in an expected
    ``(M + D) e^{R/M} (e^{tau/M} / E[e^{-W/M}] - 1)`` (the renewal argument of Daly's
    form, with the attempt's length random), which is Daly's with this write. It is at
    most the mean write (Jensen): a long write is the likelier to be cut by a failure,
    and the attempt after it draws again. Young's and Daly's intervals with it are the
    optimum under the drawn write.

    Parameters
    ----------
    write : Distribution or tuple of float
        The drawn write: a family, or measured durations (hours) drawn evenly.
    mtbf_hours : float
        Mean time between job interruptions, hours.

    Returns
    -------
    float
        Hours.

    Examples
    --------
    >>> from relplan.sim.distributions import exponential
    >>> round(effective_write_hours(exponential(1.0), 10.0), 4)  # 10 ln(1.1)
    0.9531
    >>> round(effective_write_hours((0.5, 1.5), 10.0), 4)
    0.9875
    """
    m = mtbf_hours
    if isinstance(write, tuple):
        laplace = float(np.mean(np.exp(-np.asarray(write, dtype=float) / m)))
    elif write.kind == "fixed":
        return write.mean_hours
    elif write.kind == "exponential":
        laplace = 1.0 / (1.0 + write.mean_hours / m)
    else:
        laplace = float(write.scipy().expect(lambda hours: np.exp(-hours / m)))
    return -m * math.log(laplace)


def checkpoint_count(work_hours: float, interval_hours: float) -> int:
    """Checkpoints written by a failure-free job: ``ceil(W / tau) - 1`` (none after the end)."""
    return max(0, math.ceil(work_hours / interval_hours * (1.0 - 1e-12)) - 1)


def expected_wall_hours(
    work_hours: float,
    interval_hours: float,
    write_hours: float,
    mtbf_hours: float,
    restart_hours: float,
    downtime_hours: float = 0.0,
) -> float:
    """Expected wall time of a whole job under exponential failures (Daly 2006).

    The job runs ``m = ceil(W / tau) - 1`` segments of ``tau + delta`` and a last
    segment of ``W - m tau`` with no checkpoint after it.

    Parameters
    ----------
    work_hours : float
        Useful work at full speed, hours.
    interval_hours : float
        Compute time between checkpoints, hours.
    write_hours : float
        Blocking checkpoint write, hours.
    mtbf_hours : float
        Mean time between job interruptions, hours.
    restart_hours : float
        Restart after each failure, hours.
    downtime_hours : float
        Mean failure-free downtime per failure, hours.

    Returns
    -------
    float
        Expected wall-clock time, hours.

    Examples
    --------
    >>> expected_wall_hours(500.0, 117 / 60, 5 / 60, 24.0, 10 / 60)  # Daly 2006: 547.9 h
    547.8...
    """
    full_segments = checkpoint_count(work_hours, interval_hours)
    last = work_hours - full_segments * interval_hours
    return full_segments * segment_wall_hours(
        interval_hours + write_hours, mtbf_hours, restart_hours, downtime_hours
    ) + segment_wall_hours(last, mtbf_hours, restart_hours, downtime_hours)


def erlang_loss(servers: int, offered_load: float) -> float:
    """Erlang's loss formula B(c, a): the chance that all ``servers`` are busy when a
    Poisson arrival comes, with ``offered_load`` = arrival rate x mean holding time (an
    M/G/c/c system: it holds whatever the holding time's distribution).

    The share of a live migration's failures that find no hot spare free, the spares
    being the servers and a failed unit's repair the holding time (first order: a
    failure that finds none waits for one, where the formula's would be lost).

    Parameters
    ----------
    servers : int
        Servers (hot spares), at least 0.
    offered_load : float
        Arrival rate x mean holding time (failures an hour x repair hours), >= 0.

    Returns
    -------
    float
        The blocking probability, in [0, 1] (1 with no server).

    Examples
    --------
    >>> erlang_loss(1, 1.0), erlang_loss(2, 1.0), erlang_loss(0, 0.5)
    (0.5, 0.2, 1.0)
    """
    blocking = 1.0
    for count in range(1, servers + 1):  # B(c) = a B(c-1) / (c + a B(c-1))
        blocking = offered_load * blocking / (count + offered_load * blocking)
    return blocking
