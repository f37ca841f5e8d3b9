"""How much of a collective's traffic leaves a leaf, and what the leaf's uplinks give it.

A server's traffic to a peer under the same leaf (rail leaf, edge switch) never touches the
uplinks; traffic to a peer beyond it shares the leaf's uplinks with every other crossing
flow. The uplinks carry ``1 / oversubscription`` of what the leaf's downlinks can, spread
over its equal-cost paths by ECMP hashing (flows land on paths like balls in bins, so the
busiest path sets the pace of a synchronous collective) or by adaptive routing (fluid).

All functions are pure; units are dimensionless shares unless said otherwise.
"""

from __future__ import annotations

import functools
import math

from relplan.comm.collectives import require

HASHING_SAMPLES = 20_000
"""Draws behind :func:`ecmp_hashing_efficiency` (a fixed stream: the result is a constant)."""


def crossing_share(
    pattern: str, servers: int, servers_per_leaf: int, server_stride: int = 1
) -> float:
    """Share of a server's egress that leaves its leaf, for a group spanning ``servers``.

    A group whose servers sit ``server_stride`` apart (a strided group: expert-data,
    pipeline) has ``max(1, servers_per_leaf // server_stride)`` of them under one leaf;
    with one a ring crosses on every hop and an All-to-All sends everything off the leaf.

    Parameters
    ----------
    pattern : {"ring", "all_to_all"}
        ``ring`` for rings, trees and pipelines (each leaf is entered and left once per
        channel, by one of its servers); ``all_to_all`` for an exchange with every peer.
    servers : int
        Servers the group spans, filled in order under leaves.
    servers_per_leaf : int
        Servers under one leaf (one leaf pair with dual-ToR; one rail unit).
    server_stride : int
        Servers between two neighbours of the group (1: consecutive servers).

    Returns
    -------
    float
        0 when the group fits under one leaf; ``1 / servers_per_leaf`` for a ring;
        ``(servers - servers_per_leaf) / (servers - 1)`` for an All-to-All (with
        ``servers_per_leaf`` the group's own servers under one leaf).

    Examples
    --------
    >>> crossing_share("ring", 32, 10), round(crossing_share("all_to_all", 32, 10), 4)
    (0.1, 0.7097)
    >>> crossing_share("all_to_all", 8, 10)
    0.0
    >>> crossing_share("ring", 40, 10, server_stride=32)  # every hop leaves the leaf
    1.0
    """
    require(servers >= 1 and servers_per_leaf >= 1 and server_stride >= 1,
            "servers, servers_per_leaf and server_stride must be >= 1")  # fmt: skip
    servers_per_leaf = max(1, servers_per_leaf // server_stride)
    if servers <= servers_per_leaf:
        return 0.0
    if pattern == "ring":
        return 1.0 / servers_per_leaf
    if pattern == "all_to_all":
        return (servers - servers_per_leaf) / (servers - 1)
    raise ValueError(f"unknown traffic pattern {pattern!r}")


@functools.lru_cache(maxsize=4096)
def expected_max_load(flows: int, paths: int) -> float:
    """Expected number of flows on the busiest of ``paths`` when ``flows`` hash uniformly.

    Balls into bins: computed from a fixed stream of :data:`HASHING_SAMPLES` multinomial
    draws (a constant of the model, the same in every run).

    Examples
    --------
    >>> expected_max_load(1, 8), expected_max_load(5, 1)
    (1.0, 5.0)
    """
    require(flows >= 1 and paths >= 1, "flows and paths must be >= 1")
    if paths == 1 or flows == 1:
        return float(flows)
    import numpy as np  # the comm model is otherwise pure Python; numpy only for the draws

    generator = np.random.Generator(np.random.PCG64(20240805))
    loads = generator.multinomial(flows, [1.0 / paths] * paths, size=HASHING_SAMPLES)
    return float(loads.max(axis=1).mean())


def ecmp_hashing_efficiency(flows: int, paths: int) -> float:
    """Share of the uplinks the slowest flow sees under static ECMP hashing.

    ``(flows / paths) / E[max load]``: each path is shared by the flows hashed onto it, and a
    synchronous collective waits for the most loaded path (no rate redistribution, no
    adaptive routing: a pessimistic bound). Meta reports ECMP collisions costing up to 40%
    of AllReduce throughput (SIGCOMM 2024), the order this gives for a few flows per path.

    Examples
    --------
    >>> 0.37 < ecmp_hashing_efficiency(8, 8) < 0.40  # one flow per path
    True
    >>> 0.55 < ecmp_hashing_efficiency(32, 8) < 0.59  # four flows per path
    True
    """
    return (flows / paths) / expected_max_load(flows, paths)


def fabric_bandwidth_factor(
    share_crossing: float,
    oversubscription: float,
    capacity: float = 1.0,
    hashing_efficiency: float = 1.0,
) -> float:
    """Share of its NIC bandwidth a group's slowest flow keeps after the leaf's uplinks.

    The crossing traffic of a leaf is ``share_crossing`` of what its servers send; the
    uplinks carry ``capacity * hashing_efficiency / oversubscription`` of what its
    downlinks can. The flows get ``min(1, that / share_crossing)`` of their rate.

    Parameters
    ----------
    share_crossing : float
        From :func:`crossing_share`, in [0, 1].
    oversubscription : float
        The leaf's downlink over uplink capacity (2.0 for 2:1).
    capacity : float
        Share of the (slowest flow's) uplink capacity left after losses, in (0, 1].
    hashing_efficiency : float
        From :func:`ecmp_hashing_efficiency`, or 1 for adaptive routing.

    Returns
    -------
    float
        In (0, 1]; 1 when nothing crosses or the uplinks keep up.

    Examples
    --------
    >>> fabric_bandwidth_factor(1.0, 2.0)  # every byte crosses a 2:1 leaf
    0.5
    >>> fabric_bandwidth_factor(0.1, 2.0)  # a ring crosses once per ten servers
    1.0
    """
    require(0.0 <= share_crossing <= 1.0, "share_crossing must be in [0, 1]")
    require(oversubscription > 0 and capacity > 0 and hashing_efficiency > 0,
            "oversubscription, capacity and hashing_efficiency must be > 0")  # fmt: skip
    if share_crossing == 0.0:
        return 1.0
    return min(1.0, capacity * hashing_efficiency / (oversubscription * share_crossing))


def retry_window_s(ib_timeout: int = 20, retry_count: int = 7) -> float:
    """How long an RDMA transport retries before the job sees a network error, seconds.

    ``4.096 us * 2**NCCL_IB_TIMEOUT * NCCL_IB_RETRY_CNT`` (NCCL env docs): about 30 s at
    the defaults since NCCL 2.23 (20 and 7).

    Examples
    --------
    >>> round(retry_window_s(), 1)
    30.1
    """
    return 4.096e-6 * math.pow(2, ib_timeout) * retry_count
