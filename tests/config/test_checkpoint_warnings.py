"""Checkpoint settings that defeat themselves are warned about."""

from __future__ import annotations

from relplan.config.checks import OPTIMIZE_GRID_SPAN, config_warnings
from relplan.config.loading import load_config

SDC = ('failures.sdc={unit="gpu", lifetime={dist="exponential", mtbf="400y"}, '
       'impact="corruption", detect="24h"}')  # fmt: skip


def _keys(overrides: list[str], mtti_hours: float = 130.0) -> list[str]:
    config = load_config("configs/small.toml", overrides)
    return [warning.key for warning in config_warnings(config, job_mtti_hours=mtti_hours)]


def test_retention_shorter_than_a_corruptions_detection() -> None:
    # 12 checkpoints an hour apart span 12 h < 24 h of detection: warned
    assert "job.checkpoint.keep" in _keys([SDC, "job.checkpoint.keep=12"])
    # 30 of them span 30 h: fine; an archive keeps one older: fine
    assert "job.checkpoint.keep" not in _keys([SDC, "job.checkpoint.keep=30"])
    assert "job.checkpoint.keep" not in _keys(
        [SDC, "job.checkpoint.keep=12", "job.checkpoint.archive_every=10"])
    assert "job.checkpoint.keep" not in _keys(["job.checkpoint.keep=12"])  # no corruption


def _retention_messages(overrides: list[str]) -> list[str]:
    config = load_config("configs/small.toml", overrides)
    return [warning.message for warning in config_warnings(config, job_mtti_hours=130.0)
            if warning.key == "job.checkpoint.keep"]  # fmt: skip


def test_retention_is_warned_from_keep_minus_one_cycles() -> None:
    """Checkpoints every 1 h with a 6-min write lie 1.1 h of running apart, so keep = K
    reaches back (K - 1) x 1.1 h. A corruption found 4 h later: K = 4 reaches 3.3 h, and
    4 / 1.1 - 3 = 64% of the corruptions found go back to the start; K = 4 x 1 h = 4 h is
    no longer silent. K = 5 reaches 4.4 h: none. At 3.3 h exactly, K = 4 is enough."""
    sdc = SDC.replace('detect="24h"', 'detect="4h"')
    write = 'job.checkpoint.write="6min"'
    (message,) = _retention_messages([sdc, write, "job.checkpoint.keep=4"])
    assert "about 64% of the corruptions found" in message and "keep 5 or more" in message
    assert _retention_messages([sdc, write, "job.checkpoint.keep=5"]) == []
    # keep = 3 reaches 2.2 h: 4 / 1.1 - 2 > 1, every corruption found
    (message,) = _retention_messages([sdc, write, "job.checkpoint.keep=3"])
    assert "every corruption found rolls the job back to the start" in message
    at_reach = SDC.replace('detect="24h"', 'detect="3.3h"')
    assert _retention_messages([at_reach, write, "job.checkpoint.keep=4"]) == []
    # the fast tier's writes spread them too: 3 fast writes of 10 min in each durable
    # hour, 1.6 h apart, K = 4 reaches 4.8 h
    fast = 'job.checkpoint.fast={interval="15min", write="10min"}'
    assert _retention_messages([sdc, write, fast, "job.checkpoint.keep=4"]) == []
    later = SDC.replace('detect="24h"', 'detect="4.9h"')
    (message,) = _retention_messages([later, write, fast, "job.checkpoint.keep=4"])
    assert "one every 1.6 h" in message


def test_a_persist_longer_than_the_interval() -> None:
    # 1 TB at 0.1 GB/s: 2.78 h to persist, 10% of it blocking; the interval is 1 h
    keys = _keys(['job.checkpoint={interval="1h", size="1TB", bandwidth="0.1GB/s", '
                  'blocking_fraction=0.1}'])  # fmt: skip
    assert "job.checkpoint.interval" in keys
    keys = _keys(['job.checkpoint={interval="4h", size="1TB", bandwidth="0.1GB/s", '
                  'blocking_fraction=0.1}'])  # fmt: skip
    assert "job.checkpoint.interval" not in keys


def test_a_calendar_window_shorter_than_one_interval() -> None:
    assert "job.horizon" in _keys(["job.horizon=30min"])
    assert "job.horizon" not in _keys(["job.horizon=3h"])


def test_the_optimiser_grid_below_the_persist() -> None:
    # write 0.278 h blocking, MTTI 130 h: Young = sqrt(2 x 0.278 x 130) = 8.5 h, the grid
    # reaches 8.5 / 6 = 1.4 h; a persist of 2.5 h (1 TB at 0.111 GB/s) lies beyond it
    table = ('job.checkpoint={interval="4h", size="1TB", bandwidth="0.111GB/s", '
             'blocking_fraction=0.1}')  # fmt: skip
    config = load_config("configs/small.toml", [table])
    write = config.job.checkpoint.blocking_write_hours
    persist = config.job.checkpoint.persist_hours
    floor = (2 * write * 130.0) ** 0.5 / OPTIMIZE_GRID_SPAN
    assert floor < persist
    assert "job.checkpoint.blocking_fraction" in _keys([table])
    # a very long MTTI moves the grid's floor above the persist
    assert "job.checkpoint.blocking_fraction" not in _keys([table], mtti_hours=1e6)
