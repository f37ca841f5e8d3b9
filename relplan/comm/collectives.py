"""Alpha-beta costs of the collectives: AllReduce (ring, tree, halving-doubling,
hierarchical), ReduceScatter, AllGather, All-to-All and point-to-point.

Pure functions with no dependency on the rest of relplan. Units are SI
throughout: bytes, seconds, bytes per second (``*_bits_per_s`` only where the source quotes
bits). Sources: Thakur, Rabenseifner & Gropp (2005) for the classical collective costs, NCCL
``tuning.cc`` and nccl-tests ``PERFORMANCE.md`` for the tree model and bus-bandwidth factors,
and the source document (README, "The source document") for the bandwidth formula and the
MoE worked case.

Modelling choices (each documented where it is made):

- A collective costs ``latency_steps * alpha + bytes_per_rank / B``; ``bytes_per_rank`` is the
  volume on one rank's critical path (the beta term's volume).
- ``alpha`` on the scale-out path is ``network_rtt_s * alpha_per_rtt``; the default
  ``alpha_per_rtt = 1`` follows the seed ("ring AllReduce needs 2(N-1) RTTs"); 0.5 gives the
  one-way latency of the textbook alpha.
- Exposed communication is computed per dimension: each dimension hides behind its own,
  disjoint share of the compute time (its overlap fraction; the fractions sum to <= 1).
- A group spanning servers is node-aware (:func:`node_aware_allreduce_times_s`): its ranks on
  one server share that server's NICs and pipeline the NVLink hops with the network hops.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal


def require(condition: bool, message: str) -> None:
    """Raise ``ValueError(message)`` unless ``condition`` holds (an argument check)."""
    if not condition:
        raise ValueError(message)


AllReduceAlgorithm = Literal["ring", "tree", "halving_doubling", "auto"]


# --------------------------------------------------------------------------------------------
# Alpha-beta collective costs
# --------------------------------------------------------------------------------------------
def _check_collective(
    ranks: int, buffer_bytes: float, latency_s: float, bandwidth_bytes_per_s: float
) -> None:
    if isinstance(ranks, bool) or int(ranks) != ranks or ranks < 1:
        raise ValueError(f"ranks must be a positive integer, got {ranks!r}")
    if not buffer_bytes >= 0:
        raise ValueError(f"buffer_bytes must be >= 0, got {buffer_bytes!r}")
    if not latency_s >= 0:
        raise ValueError(f"latency_s must be >= 0, got {latency_s!r}")
    if not bandwidth_bytes_per_s > 0:
        raise ValueError(f"bandwidth_bytes_per_s must be > 0, got {bandwidth_bytes_per_s!r}")


def _ceil_log2(ranks: int) -> int:
    return (int(ranks) - 1).bit_length()


def ring_allreduce_bytes_per_rank(ranks: int, buffer_bytes: float) -> float:
    """Bytes each rank sends in a ring AllReduce: ``2(n-1)/n * S``."""
    return 2.0 * (ranks - 1) / ranks * buffer_bytes


def tree_allreduce_bytes_per_rank(ranks: int, buffer_bytes: float) -> float:
    """Bytes on a rank's path in NCCL's double binary tree: ``~2 S`` (0 for one rank)."""
    return 2.0 * buffer_bytes if ranks > 1 else 0.0


def halving_doubling_allreduce_bytes_per_rank(ranks: int, buffer_bytes: float) -> float:
    """Critical-path bytes of recursive halving/doubling AllReduce (with non-power-of-2 fix-up).

    ``2(p-1)/p * S`` for the largest power of two ``p <= n``, plus ``2 S`` when ``n`` is not a
    power of two (the extra ranks send their buffer in and receive the result back).
    """
    power = 1 << (int(ranks).bit_length() - 1)
    extra = 2.0 * buffer_bytes if power != ranks else 0.0
    return 2.0 * (power - 1) / power * buffer_bytes + extra


def reduce_scatter_bytes_per_rank(ranks: int, buffer_bytes: float) -> float:
    """Bytes each rank sends in a ring ReduceScatter of an ``S``-byte array: ``(n-1)/n * S``."""
    return (ranks - 1) / ranks * buffer_bytes


def allgather_bytes_per_rank(ranks: int, buffer_bytes: float) -> float:
    """Bytes each rank sends in a ring AllGather of an ``S``-byte result: ``(n-1)/n * S``."""
    return (ranks - 1) / ranks * buffer_bytes


def all_to_all_bytes_per_rank(ranks: int, buffer_bytes: float) -> float:
    """Bytes each rank sends to others in an All-to-All of ``S`` bytes per rank: ``(n-1)/n S``."""
    return (ranks - 1) / ranks * buffer_bytes


def point_to_point_bytes_per_rank(buffer_bytes: float) -> float:
    """Bytes the sender moves in one send/receive: ``S``."""
    return float(buffer_bytes)


def hierarchical_allreduce_bytes_per_rank(
    gpus_per_node: int, nodes: int, buffer_bytes: float
) -> tuple[float, float]:
    """Bytes per GPU of a two-level AllReduce, as ``(over NVLink, over the NIC)``.

    Intra-node ring ``2(G-1)/G * S`` and inter-node ring on a ``S/G`` shard ``2(N-1)/N * S/G``.
    """
    return (
        ring_allreduce_bytes_per_rank(gpus_per_node, buffer_bytes),
        ring_allreduce_bytes_per_rank(nodes, buffer_bytes / gpus_per_node),
    )


def ring_allreduce_time_s(
    ranks: int, buffer_bytes: float, latency_s: float, bandwidth_bytes_per_s: float
) -> float:
    """Ring AllReduce time (Thakur et al. 2005; NCCL ring).

    ``T = 2(n-1) alpha + 2(n-1)/n * S / B``.

    Parameters
    ----------
    ranks : int
        Ranks in the collective, ``n`` (1 costs 0).
    buffer_bytes : float
        AllReduce buffer ``S``, bytes.
    latency_s : float
        Per-step latency ``alpha``, seconds.
    bandwidth_bytes_per_s : float
        Per-rank injection bandwidth ``B`` (one direction), bytes/s; ``inf`` allowed.

    Returns
    -------
    float
        Time, seconds.
    """
    _check_collective(ranks, buffer_bytes, latency_s, bandwidth_bytes_per_s)
    bytes_moved = ring_allreduce_bytes_per_rank(ranks, buffer_bytes)
    return 2 * (ranks - 1) * latency_s + bytes_moved / bandwidth_bytes_per_s


def tree_allreduce_time_s(
    ranks: int, buffer_bytes: float, latency_s: float, bandwidth_bytes_per_s: float
) -> float:
    """Pipelined double-binary-tree AllReduce time, as NCCL models it (comm-model.md 1.2, 1.4).

    ``T = 2 ceil(log2 n) alpha + 2 S / B`` (NCCL: tree algbw = busbw / 2, independent of ``n``).
    Parameters and return as :func:`ring_allreduce_time_s` (seconds, bytes, bytes/s).
    """
    _check_collective(ranks, buffer_bytes, latency_s, bandwidth_bytes_per_s)
    bytes_moved = tree_allreduce_bytes_per_rank(ranks, buffer_bytes)
    return 2 * _ceil_log2(ranks) * latency_s + bytes_moved / bandwidth_bytes_per_s


def halving_doubling_allreduce_time_s(
    ranks: int, buffer_bytes: float, latency_s: float, bandwidth_bytes_per_s: float
) -> float:
    """Recursive halving/doubling (Rabenseifner) AllReduce time (Thakur et al. 2005).

    Power of two: ``2 log2(n) alpha + 2(n-1)/n * S / B``. Otherwise, with ``p`` the largest
    power of two below ``n``, the fix-up adds two steps of a whole buffer:
    ``(2 log2(p) + 2) alpha + (2(p-1)/p + 2) S / B``. Units as :func:`ring_allreduce_time_s`.
    """
    _check_collective(ranks, buffer_bytes, latency_s, bandwidth_bytes_per_s)
    power = 1 << (int(ranks).bit_length() - 1)
    steps = 2 * (power.bit_length() - 1) + (2 if power != ranks else 0)
    bytes_moved = halving_doubling_allreduce_bytes_per_rank(ranks, buffer_bytes)
    return steps * latency_s + bytes_moved / bandwidth_bytes_per_s


def reduce_scatter_time_s(
    ranks: int, buffer_bytes: float, latency_s: float, bandwidth_bytes_per_s: float
) -> float:
    """Ring ReduceScatter time: ``(n-1) alpha + (n-1)/n * S / B``; ``S`` = whole input, bytes.

    Units as :func:`ring_allreduce_time_s` (seconds, bytes, bytes/s).
    """
    _check_collective(ranks, buffer_bytes, latency_s, bandwidth_bytes_per_s)
    bytes_moved = reduce_scatter_bytes_per_rank(ranks, buffer_bytes)
    return (ranks - 1) * latency_s + bytes_moved / bandwidth_bytes_per_s


def allgather_time_s(
    ranks: int, buffer_bytes: float, latency_s: float, bandwidth_bytes_per_s: float
) -> float:
    """Ring AllGather time: ``(n-1) alpha + (n-1)/n * S / B``; ``S`` = gathered result, bytes.

    A ReduceScatter's ring run backwards: its steps and bytes, so its time
    (:func:`reduce_scatter_time_s`). Units as :func:`ring_allreduce_time_s`.
    """
    return reduce_scatter_time_s(ranks, buffer_bytes, latency_s, bandwidth_bytes_per_s)


def all_to_all_time_s(
    ranks: int,
    buffer_bytes: float,
    latency_s: float,
    bandwidth_bytes_per_s: float,
    concurrent_peers: int = 1,
) -> float:
    """Pairwise All-to-All time: ``(n-1) alpha + (n-1)/n * S / B``.

    ``S`` is the total each rank sends (bytes), ``B`` the effective per-rank bandwidth (bytes/s;
    reduce it for less than full bisection). Returns seconds. With ``concurrent_peers = k > 1``
    the sends overlap in groups of ``k`` and the latency term is ``ceil((n-1)/k) alpha`` (NCCL
    and DeepEP post all peers at once; the default 1 is the classical pairwise exchange).
    """
    _check_collective(ranks, buffer_bytes, latency_s, bandwidth_bytes_per_s)
    require(int(concurrent_peers) == concurrent_peers >= 1, "concurrent_peers must be >= 1")
    bytes_moved = all_to_all_bytes_per_rank(ranks, buffer_bytes)
    return -(-(ranks - 1) // concurrent_peers) * latency_s + bytes_moved / bandwidth_bytes_per_s


def point_to_point_time_s(
    buffer_bytes: float, latency_s: float, bandwidth_bytes_per_s: float
) -> float:
    """Send/receive time: ``alpha + S / B`` (seconds; bytes; bytes/s)."""
    _check_collective(1, buffer_bytes, latency_s, bandwidth_bytes_per_s)
    return latency_s + point_to_point_bytes_per_rank(buffer_bytes) / bandwidth_bytes_per_s


def hierarchical_allreduce_time_s(
    gpus_per_node: int,
    nodes: int,
    buffer_bytes: float,
    nvlink_latency_s: float,
    nvlink_bandwidth_bytes_per_s: float,
    network_latency_s: float,
    nic_bandwidth_bytes_per_s: float,
    inter_node_algorithm: Literal["ring", "tree"] = "ring",
) -> float:
    """Two-level AllReduce over ``G`` GPUs per node and ``N`` nodes (comm-model.md 1.2).

    ``T = 2(G-1) alpha_nvl + 2(G-1)/G * S / B_nvl + L_net + 2(N-1)/N * (S/G) / B_nic``, where
    ``G`` parallel inter-node collectives (one per rail) each carry an ``S/G`` shard and
    ``L_net = 2(N-1) alpha_net`` (ring) or ``2 ceil(log2 N) alpha_net`` (tree).

    Parameters
    ----------
    gpus_per_node, nodes : int
        ``G`` and ``N``.
    buffer_bytes : float
        AllReduce buffer ``S``, bytes.
    nvlink_latency_s, network_latency_s : float
        Per-step latency inside a node and between nodes, seconds.
    nvlink_bandwidth_bytes_per_s, nic_bandwidth_bytes_per_s : float
        Per-GPU NVLink and NIC bandwidth (one direction), bytes/s.
    inter_node_algorithm : {"ring", "tree"}
        Latency term of the inter-node phase.

    Returns
    -------
    float
        Time, seconds.
    """
    _check_collective(gpus_per_node, buffer_bytes, nvlink_latency_s, nvlink_bandwidth_bytes_per_s)
    _check_collective(nodes, buffer_bytes, network_latency_s, nic_bandwidth_bytes_per_s)
    if inter_node_algorithm not in ("ring", "tree"):
        raise ValueError(f"inter_node_algorithm must be 'ring' or 'tree': {inter_node_algorithm!r}")
    nvlink_bytes, nic_bytes = hierarchical_allreduce_bytes_per_rank(
        gpus_per_node, nodes, buffer_bytes
    )
    inter_steps = 2 * (nodes - 1) if inter_node_algorithm == "ring" else 2 * _ceil_log2(nodes)
    return (
        2 * (gpus_per_node - 1) * nvlink_latency_s
        + nvlink_bytes / nvlink_bandwidth_bytes_per_s
        + inter_steps * network_latency_s
        + nic_bytes / nic_bandwidth_bytes_per_s
    )


_ALLREDUCE_TIME: dict[str, Callable[[int, float, float, float], float]] = {
    "ring": ring_allreduce_time_s,
    "tree": tree_allreduce_time_s,
    "halving_doubling": halving_doubling_allreduce_time_s,
}


def node_aware_allreduce_times_s(
    ranks: int,
    ranks_per_server: int,
    buffer_bytes: float,
    nvlink_latency_s: float,
    nvlink_bandwidth_bytes_per_s: float,
    network_latency_s: float,
    network_bandwidth_bytes_per_s: float,
) -> dict[str, tuple[float, float]]:
    """AllReduce over ``n`` ranks, ``g`` to a server, by each algorithm NCCL could pick.

    A group inside one server rides NVLink (ring and tree). A group spanning ``N = n/g``
    servers (comm-model notes 1.2, 1.4):

    - ``ring``: NCCL's rings cross each server boundary once per channel, and the channels
      spread the crossings over the ``g`` ranks' NICs, so the bus bandwidth is
      ``B_bus = min(g B_net, g/(g-1) B_nvl)`` and ``T = 2(n-N) a_nvl + 2(N-1) a_net +
      2(n-1)/n S / B_bus``. For 175B pure data parallel on 8-GPU servers with 8 x 400G
      (``S`` = 700 GB) that is 3.5 s, not the 28 s of a ring that gave each rank one NIC.
    - ``tree``: ``T = 2 ceil(log2 N) a_net + 2(g-1) a_nvl + 2 S / B_bus`` (NCCL: tree
      algbw = busbw / 2).
    - ``hierarchical`` (``g > 1``): a ReduceScatter and AllGather inside the server on
      NVLink around ``g`` concurrent inter-server rings (or trees) on ``S/g`` shards, one
      phase after the other (:func:`hierarchical_allreduce_time_s`).

    Parameters
    ----------
    ranks, ranks_per_server : int
        ``n`` and ``g`` (``g`` divides ``n`` or ``n < g``).
    buffer_bytes : float
        AllReduce buffer ``S``, bytes.
    nvlink_latency_s, network_latency_s : float
        Per-step latency inside a server and between servers, seconds.
    nvlink_bandwidth_bytes_per_s : float
        Per-GPU NVLink bandwidth, bytes/s.
    network_bandwidth_bytes_per_s : float
        Per-GPU network bandwidth (its share of the server's NICs, after the fabric),
        bytes/s.

    Returns
    -------
    dict
        Algorithm name -> ``(time, latency part)``, seconds. The fastest is NCCL's pick.

    Examples
    --------
    >>> times = node_aware_allreduce_times_s(5000, 8, 700e9, 3.4e-6, 450e9, 10e-6, 50e9)
    >>> round(min(time_s for time_s, _ in times.values()), 2)  # not 28 s
    3.5
    """
    require(ranks_per_server >= 1, "ranks_per_server must be >= 1")
    g = min(ranks_per_server, ranks)
    servers = -(-ranks // g)
    if servers == 1:
        return {
            name: (function(ranks, buffer_bytes, nvlink_latency_s, nvlink_bandwidth_bytes_per_s),
                   function(ranks, 0.0, nvlink_latency_s, nvlink_bandwidth_bytes_per_s))
            for name, function in (("ring", ring_allreduce_time_s),
                                   ("tree", tree_allreduce_time_s))
        }  # fmt: skip
    _check_collective(ranks, buffer_bytes, network_latency_s, network_bandwidth_bytes_per_s)
    bus = g * network_bandwidth_bytes_per_s
    if g > 1:
        bus = min(bus, g / (g - 1) * nvlink_bandwidth_bytes_per_s)
    ring_latency = 2 * (ranks - servers) * nvlink_latency_s + 2 * (servers - 1) * network_latency_s
    tree_latency = 2 * _ceil_log2(servers) * network_latency_s + 2 * (g - 1) * nvlink_latency_s
    times = {
        "ring": (ring_latency + ring_allreduce_bytes_per_rank(ranks, buffer_bytes) / bus,
                 ring_latency),
        "tree": (tree_latency + tree_allreduce_bytes_per_rank(ranks, buffer_bytes) / bus,
                 tree_latency),
    }  # fmt: skip
    if g > 1:
        args = (g, servers, nvlink_latency_s, nvlink_bandwidth_bytes_per_s, network_latency_s,
                network_bandwidth_bytes_per_s)  # fmt: skip
        times["hierarchical"] = min(
            (hierarchical_allreduce_time_s(args[0], args[1], buffer_bytes, *args[2:], inter),
             hierarchical_allreduce_time_s(args[0], args[1], 0.0, *args[2:], inter))
            for inter in ("ring", "tree")
        )  # fmt: skip
    return times


def node_aware_all_to_all_time_s(
    ranks: int,
    ranks_per_server: int,
    buffer_bytes: float,
    nvlink_bandwidth_bytes_per_s: float,
    network_latency_s: float,
    network_bandwidth_bytes_per_s: float,
    concurrency: int | None = None,
) -> tuple[float, float]:
    """All-to-All over ``n`` ranks, ``g`` to a server, with ``c`` peers in flight at once.

    Each rank sends ``S/n`` to every peer: ``(g-1)/n S`` over NVLink and ``(n-g)/n S`` over
    its NIC, at the same time. The latency term is ``ceil((n-1)/c) a_net`` (``c`` = all
    peers: one ``a_net``). DeepEP posts every peer's writes together and measures about
    0.2 ms per dispatch at EP 256, where a pairwise exchange would charge ``255 a``.

    Returns
    -------
    tuple of float
        ``(time, latency part)``, seconds.

    Examples
    --------
    >>> time_s, latency_s = node_aware_all_to_all_time_s(256, 8, 0.0, 450e9, 10e-6, 50e9)
    >>> round(latency_s * 1e6, 3)  # all peers in flight: one alpha
    10.0
    >>> round(node_aware_all_to_all_time_s(256, 8, 0.0, 450e9, 10e-6, 50e9, 1)[1] * 1e3, 2)
    2.55
    """
    require(ranks_per_server >= 1, "ranks_per_server must be >= 1")
    require(concurrency is None or concurrency >= 1, "concurrency must be >= 1")
    _check_collective(ranks, buffer_bytes, network_latency_s, network_bandwidth_bytes_per_s)
    if ranks <= 1:
        return 0.0, 0.0
    g = min(ranks_per_server, ranks)
    peers = ranks - 1
    in_flight = peers if concurrency is None else min(concurrency, peers)
    off_server = (ranks - g) / ranks * buffer_bytes
    on_server = (g - 1) / ranks * buffer_bytes
    latency = -(-peers // in_flight) * network_latency_s if ranks > g else network_latency_s
    transfer = max(off_server / network_bandwidth_bytes_per_s,
                   on_server / nvlink_bandwidth_bytes_per_s)  # fmt: skip
    return latency + transfer, latency
