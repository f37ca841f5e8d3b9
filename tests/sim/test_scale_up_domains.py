"""Hand-worked timelines of block failures and their spares.

A rack or scale-up domain failure takes all of its servers down at once. A domain's swap
is one whole spare domain from ``job.spare_domains`` (its servers must share one NVLink
or ICI fabric); a rack's is ``spares_needed`` loose spare servers from ``job.spares``, all
at once. With too few free, the job waits for enough spares back from repair or for its
own repair, whichever is first; the failed block's servers join the pool when their
repair ends.

The job (hours; exposure = wall clock until the first detection): W = 10, tau = 3,
delta = 0.5, R = 1, so failure-free it computes [0,3), writes [3,3.5), ... and ends at
11.5. Every failure is noticed 0.1 h after it happens.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from relplan.sim import distributions
from relplan.sim.engine import TrialOutcomes, walk_trial
from relplan.sim.model import SimulationModel
from relplan.vocab import BUCKETS
from tests.conftest import make_model

NEVER = distributions.exponential(1e9)
"""A lifetime so long that only the failures a test feeds in happen."""

DOMAIN, RACK, GPU = 0, 1, 2
"""The modes of :func:`_model`: a 4-server domain, a 4-server rack, one server's GPU."""


def _model(spares: int = 0, spare_domains: int = 0) -> SimulationModel:
    modes = [{"units": 1, "lifetime": NEVER, "detect": 0.1, "uses_spares": True}
             for _ in range(3)]  # fmt: skip
    model = make_model(work=10.0, interval=3.0, write=0.5, restart=1.0, modes=modes,
                       spares=spares)  # fmt: skip
    domain, rack, gpu = model.modes
    return replace(
        model,
        job=replace(model.job, spare_domains=spare_domains),
        modes=(replace(domain, unit="domain", spares_needed=4, spare_domain=True),
               replace(rack, unit="rack", spares_needed=4), gpu),
    )  # fmt: skip


def _walk(model: SimulationModel, times: list[float], modes: list[int],
          repairs: list[float]) -> tuple[float, dict[str, float], TrialOutcomes]:  # fmt: skip
    outcomes = walk_trial(model, times, modes, repairs)
    wall = float(outcomes.wall_hours[0])
    buckets = dict(zip(BUCKETS, outcomes.bucket_hours[0], strict=True))
    assert sum(buckets.values()) == pytest.approx(wall, rel=1e-12)
    assert buckets["useful"] == pytest.approx(10.0)
    return wall, buckets, outcomes


def test_a_domain_failure_with_a_spare_domain_free_does_not_wait_for_its_repair() -> None:
    # Failure at exposure 5 (job-time 5, 1.5 h after checkpoint 1 at 3.5), repair 10 h.
    # With a spare domain: 0.1 detection, no wait, 1 h restart, then the 8 h left from
    # checkpoint 1: wall 5 + 0.1 + 1 + 8 = 14.1, four spare servers swapped in.
    wall, b, outcomes = _walk(_model(spare_domains=1), [5.0], [DOMAIN], [10.0])
    assert wall == pytest.approx(14.1)
    assert (b["waiting"], b["rework"], b["detect"]) == pytest.approx((0.0, 1.5, 0.1))
    assert outcomes.spares_used[0] == 4
    # Without one it waits the 10 h repair, even with loose spare servers to spare: they
    # do not make an NVLink domain.
    for model in (_model(), _model(spares=8)):
        wall, b, outcomes = _walk(model, [5.0], [DOMAIN], [10.0])
        assert (wall, b["waiting"]) == pytest.approx((24.1, 10.0))
        assert outcomes.spares_used[0] == 0


def test_a_domain_failure_with_no_spare_domain_free_waits_for_the_first_back() -> None:
    # One spare domain. The first failure (exposure 5, noticed at 5.1) takes it; the
    # failed domain is back at 15.1. The restart ends at exposure 6 (wall 6.1); the
    # second failure at exposure 7 (wall 7.1, 1 h of rework) is noticed at 7.2: no spare
    # domain is free, its own repair would end at 17.2, the first one's at 15.1: it waits
    # 7.9 h and takes that domain. Wall 7.2 + 7.9 + 1 + 8 = 24.1.
    wall, b, outcomes = _walk(_model(spare_domains=1), [5.0, 7.0], [DOMAIN, DOMAIN],
                              [10.0, 10.0])  # fmt: skip
    assert (wall, b["waiting"], b["rework"]) == pytest.approx((24.1, 7.9, 2.5))
    assert outcomes.spares_used[0] == 8
    # With a 3 h repair its own domain is back first (10.2): it waits 3 h for it.
    wall, b, outcomes = _walk(_model(spare_domains=1), [5.0, 7.0], [DOMAIN, DOMAIN],
                              [10.0, 3.0])  # fmt: skip
    assert (wall, b["waiting"]) == pytest.approx((19.2, 3.0))
    assert outcomes.spares_used[0] == 4
    # With two spare domains neither waits: wall 7.2 + 1 + 8 = 16.2.
    wall, b, _ = _walk(_model(spare_domains=2), [5.0, 7.0], [DOMAIN, DOMAIN], [10.0, 10.0])
    assert (wall, b["waiting"]) == pytest.approx((16.2, 0.0))


def test_a_failed_domain_rejoins_the_pool_when_its_repair_ends() -> None:
    # The first failure (exposure 1, noticed at 1.1) takes the spare domain; the failed
    # one is repaired by 3.1 (repair 2 h) or 6.1 (5 h). The restart ends at exposure 2
    # (wall 2.1); the second failure at exposure 4 (job-time 2: back to the start) is
    # noticed at wall 4.2: the repaired domain is free (no wait: wall 4.2 + 1 + 11.5 =
    # 16.7), or back 1.9 h later.
    wall, b, _ = _walk(_model(spare_domains=1), [1.0, 4.0], [DOMAIN, DOMAIN], [2.0, 10.0])
    assert (wall, b["waiting"]) == pytest.approx((16.7, 0.0))
    wall, b, _ = _walk(_model(spare_domains=1), [1.0, 4.0], [DOMAIN, DOMAIN], [5.0, 10.0])
    assert (wall, b["waiting"]) == pytest.approx((18.6, 1.9))


def test_a_rack_failure_draws_a_rack_of_loose_spares_at_once() -> None:
    # Six spares: the first rack failure (exposure 5, noticed 5.1) takes four, away until
    # 15.1; the second (exposure 7, noticed 7.2) finds two free, short of four: it waits
    # for the first rack's servers (7.9 h, before its own repair at 17.2). Eight spares:
    # neither waits.
    wall, b, outcomes = _walk(_model(spares=6), [5.0, 7.0], [RACK, RACK], [10.0, 10.0])
    assert (wall, b["waiting"]) == pytest.approx((24.1, 7.9))
    assert outcomes.spares_used[0] == 8
    wall, b, outcomes = _walk(_model(spares=8), [5.0, 7.0], [RACK, RACK], [10.0, 10.0])
    assert (wall, b["waiting"]) == pytest.approx((16.2, 0.0))
    assert outcomes.spares_used[0] == 8
    # Three spares never make a rack: it waits for its repair, and takes none.
    wall, b, outcomes = _walk(_model(spares=3), [5.0], [RACK], [10.0])
    assert (wall, b["waiting"]) == pytest.approx((24.1, 10.0))
    assert outcomes.spares_used[0] == 0


def test_a_rack_short_of_spares_takes_the_first_one_back_then_holds_the_pool() -> None:
    # Four spares. A GPU failure (exposure 1, noticed 1.1, repair 5 h) takes one, away
    # until 6.1; its restart ends at exposure 2 (wall 2.1). A rack failure at exposure 3
    # (1 h of rework), noticed at 3.2 with its own repair ending at 13.2: three spares
    # free, short by one, which is back at 6.1: it waits 2.9 h. The rack's four servers
    # are then away until 13.2, so a GPU failure at exposure 5 (wall 8.1, noticed 8.2,
    # repair 20 h) waits 5 h for them. Each failure comes 1 h into a run from the start,
    # so the job ends at exposure 5 + 1 (restart) + 11.5 = 17.5, plus 0.3 h of
    # detection and 7.9 h of waiting: wall 25.7.
    wall, b, outcomes = _walk(_model(spares=4), [1.0, 3.0, 5.0], [GPU, RACK, GPU],
                              [5.0, 10.0, 20.0])  # fmt: skip
    assert (wall, b["waiting"], b["detect"]) == pytest.approx((25.7, 7.9, 0.3))
    assert outcomes.spares_used[0] == 1 + 4 + 1


def test_single_server_failures_keep_the_one_spare_pool() -> None:
    # A GPU failure takes one loose spare, never a spare domain.
    wall, b, outcomes = _walk(_model(spare_domains=1), [5.0], [GPU], [10.0])
    assert (wall, b["waiting"], outcomes.spares_used[0]) == pytest.approx((24.1, 10.0, 0))
    wall, b, outcomes = _walk(_model(spares=1), [5.0], [GPU], [10.0])
    assert (wall, b["waiting"], outcomes.spares_used[0]) == pytest.approx((14.1, 0.0, 1))
    assert np.all(outcomes.interruptions_by_mode[0] == [0, 0, 1])
