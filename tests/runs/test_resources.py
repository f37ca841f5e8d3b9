"""What a run of points is set up with, from the library (relplan.runs.resources): the
workers asked for before the config's before every core, no more processes than points,
the store of the output folder opened and closed with the pool, the points reused told in
one sentence, and the count told before a run too large is refused."""

from __future__ import annotations

import pytest

from relplan.config.loading import load_config
from relplan.errors import ConfigError
from relplan.runs.executor import available_cores
from relplan.runs.resources import (
    announce_points,
    point_workers,
    reused_sentence,
    running_points,
    store_in,
)
from relplan.runs.run_size import POINT_LIMIT
from relplan.runs.store import STORE_NAME, PointStore, point_key
from relplan.sim.model import build_model
from tests.conftest import CONFIGS


def test_the_workers_asked_for_come_before_the_configs_before_every_core() -> None:
    plain = load_config(CONFIGS / "small.toml")
    set_three = load_config(CONFIGS / "small.toml", ["simulation.workers=3"])
    assert point_workers(None, plain) == available_cores()
    assert point_workers(None, set_three) == 3
    assert point_workers(2, set_three) == 2


def test_no_more_processes_start_than_points_and_the_store_is_the_folders(tmp_path) -> None:
    with running_points(4, None, 1, store_in(tmp_path), fresh=False) as (pool, store):
        assert pool.workers == 1 and pool.local
        assert store is not None and store.path == tmp_path / STORE_NAME
        store.put(point_key("ab" * 32, 0, 10, "sweep"), {"goodput": 0.5})
    with running_points(3, None, None, None, fresh=False) as (pool, store):
        assert pool.workers == 3 and store is None
    # the store was closed with the pool, its point committed; fresh ignores it
    with running_points(1, None, 2, store_in(tmp_path), fresh=True) as (_, store):
        assert store is not None and len(store) == 0


def test_a_store_given_open_is_used_and_left_open(tmp_path) -> None:
    key = point_key("ef" * 32, 0, 10, "sweep")
    with PointStore(tmp_path / "elsewhere.sqlite") as given:
        with running_points(1, None, 1, given, fresh=False) as (_, store):
            assert store is given
            store.put(key, {"goodput": 0.5})
        assert len(given) == 1  # still open after the run


def test_a_bad_dask_address_is_refused_before_any_pool_starts() -> None:
    with pytest.raises(ConfigError) as caught, running_points(2, "nonsense", 2, None, False):
        pass
    assert caught.value.key == "--dask"
    with pytest.raises(ConfigError) as caught, running_points(2, "tcp://127.0.0.1:1", 2, None,
                                                              False, dask_key="dask"):
        pass
    assert caught.value.key == "dask"  # from Python, the argument's name


def test_the_points_reused_are_told_in_one_sentence(tmp_path) -> None:
    key = point_key("cd" * 32, 1, 10, "compare")
    with PointStore(tmp_path / STORE_NAME) as store:
        store.put(key, {"goodput": 0.5})
        assert reused_sentence(store, 2, "scenarios") is None  # stored by this run
    with PointStore(tmp_path / STORE_NAME) as store:
        store.get(key)
        sentence = reused_sentence(store, 2, "scenarios")
    assert sentence is not None and sentence.startswith("reused 1 of 2 scenarios finished")
    assert str(tmp_path / STORE_NAME) in sentence
    assert reused_sentence(None, 2, "scenarios") is None


def test_the_count_is_told_before_a_run_too_large_is_refused() -> None:
    model = build_model(load_config(CONFIGS / "small.toml"))
    told: list[str] = []
    announce_points(model, 3, 100, 1, False, told.append)
    assert len(told) == 1 and "3 points" in told[0]
    with pytest.raises(ConfigError) as caught:
        announce_points(model, POINT_LIMIT + 1, 100, 1, False, told.append, "portfolios")
    assert caught.value.key == "--yes"
    assert len(told) == 2 and f"{POINT_LIMIT + 1:,} portfolios" in told[1]
    announce_points(model, POINT_LIMIT + 1, 100, 1, True, told.append)  # confirmed
    assert len(told) == 3
