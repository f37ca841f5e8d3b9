"""``relplan fit`` cannot mislead: the family chosen by AIC among those that pass the
goodness-of-fit check, the line written simulated over the data's own exposure (a wear-out
fleet keeps its Weibull, a bursty log's tail-driven fit is refused by its failure count),
every family's mean against the exposure estimate and the longest observation as notes,
groups fitted apart, event records turned into censored times between failures."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from relplan.calibrate import lifetimes as fit_module
from relplan.calibrate.event_log import events_to_lifetimes, read_unit_list
from relplan.calibrate.fit_checks import COUNT_REFUSE, GofRule, RenewalWindow
from relplan.calibrate.lifetimes import (
    MEAN_EXPOSURE_TOLERANCE,
    family_check,
    fit_exponential,
    fit_groups,
    fit_lifetimes,
    fit_weibull,
    lifetime_sample,
    read_lifetime_csv,
    read_lifetime_groups,
)
from relplan.errors import ConfigError
from tests.conftest import REPO

START = datetime(2024, 1, 1, tzinfo=UTC)
YEAR_HOURS = 8760.0


def bursty_node_log(seed: int, nodes: int = 512) -> tuple[list[str], list[datetime]]:
    """Failures of nodes that mostly last long but often fail again within hours of a
    repair: the shape of the per-node logs (LANL system 20) where the AIC picks a
    lognormal whose mean comes from its tail."""
    rng = np.random.default_rng(seed)
    units: list[str] = []
    times: list[datetime] = []
    for node in range(nodes):
        moment, just_failed = 0.0, False
        while True:
            quick = just_failed and rng.random() < 0.6
            moment += rng.exponential(20.0) if quick else rng.exponential(20000.0)
            if moment > YEAR_HOURS:
                break
            units.append(f"n{node}")
            times.append(START + timedelta(hours=moment))
            just_failed = True
    return units, times


def test_a_tail_driven_fit_of_a_bursty_log_is_refused_by_its_failure_count() -> None:
    # The shape of LANL system 20's per-node log: the AIC's family (a lognormal, or a
    # Weibull of small shape) takes its mean from a tail the year never saw; simulated
    # in equilibrium over the log's own window it gives a fraction of the log's failures.
    units, times = bursty_node_log(5)
    built = events_to_lifetimes(units, times, START, START + timedelta(hours=YEAR_HOURS),
                                units=512)  # fmt: skip
    report = fit_lifetimes(built.sample, window=RenewalWindow(512, YEAR_HOURS))
    exposure = 512 * YEAR_HOURS / built.events  # every node watched the whole year
    assert report.exposure_mean_hours == pytest.approx(exposure, rel=1e-12)
    assert report.best in report.passing and report.best != "exponential"
    # a stationary renewal process fails at 1 / mean: units x window / mean, by hand
    count = report.count
    assert count.observed == built.events
    assert count.expected == pytest.approx(512 * YEAR_HOURS / report.fits[report.best].mean_hours)
    assert count.ratio < 1 / COUNT_REFUSE and report.write_refused
    assert any(f"({count.ratio:.2f}x)" in warning and "--force" in warning
               for warning in report.warnings)  # fmt: skip
    # the exponential's mean is the exposure estimate: its count is the log's, exactly
    assert report.counts["exponential"].ratio == pytest.approx(1.0, rel=1e-12)
    # the old rule against the mean is a note now, not a veto
    assert not report.checks[report.best].trusted
    assert any("exposure estimate" in note for note in report.notes)
    data = report.to_dict()
    assert data["count_check"]["write_refused"] is True
    assert data["count_check"]["ratio"] == pytest.approx(count.ratio)
    assert data["fits"]["exponential"]["count_check"]["verdict"] == "ok"


def test_a_wear_out_fleet_keeps_its_weibull() -> None:
    # tests/data/wearout_lifetimes.csv: the shape of the Titan GPU lifetimes (a Weibull of
    # shape 2.9 watched for less than its mean life). The rule "a mean within 2x of the
    # exposure estimate and not beyond the longest observation" picked an exponential of
    # 19.8 years here, hundreds of AIC worse and far from the Kaplan-Meier curve.
    report = fit_lifetimes(read_lifetime_csv(REPO / "tests" / "data" / "wearout_lifetimes.csv"))
    assert report.best == "weibull"
    assert report.fits["weibull"].params["shape"] > 2
    assert report.fits["exponential"].aic - report.fits["weibull"].aic > 100
    assert not report.checks["weibull"].trusted  # what the old rule saw: now a note
    assert "exponential" not in report.passing  # the Kaplan-Meier curve rules it out
    assert report.fits["exponential"].km_distance > report.gof.bound
    assert report.count.verdict == "ok" and not report.write_refused
    assert abs(report.count.ratio - 1.0) < 0.2


def test_the_check_bounds_are_the_tolerance_and_the_longest_observation() -> None:
    sample = lifetime_sample([100.0, 300.0, 600.0], [1, 1, 0])
    fit = fit_exponential(sample)  # mean 500 h
    assert family_check(fit, 500.0 / MEAN_EXPOSURE_TOLERANCE, 600.0).trusted  # exactly 2x
    assert family_check(fit, 500.0 * MEAN_EXPOSURE_TOLERANCE, 600.0).trusted  # exactly 1/2
    assert not family_check(fit, 500.0 / MEAN_EXPOSURE_TOLERANCE * 0.999, 600.0).trusted
    assert family_check(fit, 500.0, 500.0).trusted  # at the longest observation
    # the exponential beyond the longest observation: kept, with a note
    beyond = family_check(fit, 500.0, 499.0)
    assert beyond.beyond_longest and beyond.trusted and len(beyond.notes) == 1
    # a shape family beyond it: not trusted
    weibull = fit_weibull(sample)
    shaped = family_check(weibull, weibull.mean_hours, weibull.mean_hours * 0.99)
    assert shaped.beyond_longest and not shaped.trusted


def test_a_fleet_watched_for_less_than_a_mean_life_keeps_the_exponential_with_a_note() -> None:
    # 8 units watched 100 h without failing and two failures: exposure (800 + 50 + 60) / 2
    # = 455 h, beyond the longest observation (100 h)
    sample = lifetime_sample([100.0] * 8 + [50.0, 60.0], [0] * 8 + [1, 1])
    report = fit_lifetimes(sample)
    assert report.exposure_mean_hours == pytest.approx(455.0)
    assert not report.checks["weibull"].trusted and not report.checks["lognormal"].trusted
    assert report.best == "exponential" and report.best_trusted
    assert any("constant hazard" in note for note in report.notes)
    # units new at entry, each watched 100 h (the reverse Kaplan-Meier puts every
    # follow-up there): 10 x F(100) of the exponential of 455 h
    assert report.count.expected == pytest.approx(10 * (1 - np.exp(-100 / 455)))


def test_a_family_asked_for_is_checked_like_the_best() -> None:
    units, times = bursty_node_log(5, nodes=128)
    built = events_to_lifetimes(units, times, START, START + timedelta(hours=YEAR_HOURS),
                                units=128)  # fmt: skip
    window = RenewalWindow(128, YEAR_HOURS)
    report = fit_lifetimes(built.sample, family="lognormal", window=window)
    assert report.best == "lognormal" and report.chosen_by == "asked"
    assert report.write_refused
    assert any(warning.startswith("lognormal, simulated over the log's window")
               for warning in report.warnings)  # fmt: skip
    exponential = fit_lifetimes(built.sample, family="exponential", window=window)
    assert not exponential.write_refused  # its count is the log's
    assert exponential.warnings[0].startswith("exponential was asked for, but fails the "
                                              "goodness-of-fit check")  # fmt: skip
    with pytest.raises(ConfigError) as caught:
        fit_lifetimes(built.sample, family="gamma")
    assert caught.value.key == "--family"


def test_groups_are_fitted_apart() -> None:
    path = REPO / "tests" / "data" / "lifetimes_batches.csv"
    groups, skipped = read_lifetime_groups(path, "batch")
    assert skipped == {}
    reports = fit_groups(groups)
    rows = np.genfromtxt(path, delimiter=",", names=True, dtype=None, encoding="utf-8")
    for batch in ("A", "B"):
        mine = rows[rows["batch"] == batch]
        exposure = mine["hours"].sum() / mine["failed"].sum()
        assert reports[batch].exposure_mean_hours == pytest.approx(exposure)
        assert reports[batch].fits["exponential"].params["mtbf_hours"] == pytest.approx(exposure)
    assert reports["B"].exposure_mean_hours > 10 * reports["A"].exposure_mean_hours


def test_a_tail_driven_repair_line_is_refused_by_its_hours_of_repair() -> None:
    # the InfiniteHBD GPU repairs, every one ended: the lognormal the AIC picks has a
    # mean 4x the repairs' own, so drawn for each repair it gives 4x the hours of repair
    samples, _ = read_lifetime_groups(REPO / "tests" / "data" / "infinitehbd" / "repairs.csv",
                                      "category")  # fmt: skip
    gpu = samples["GPU"]
    report = fit_lifetimes(gpu, "repair", family="lognormal")
    check = report.count
    assert check.kind == "repairs" and check.observed == pytest.approx(gpu.hours.sum())
    assert check.expected == pytest.approx(gpu.n * report.fits["lognormal"].mean_hours)
    assert check.ratio > COUNT_REFUSE and report.write_refused
    weibull = fit_lifetimes(gpu, "repair", family="weibull")
    assert not weibull.write_refused


def test_the_smallest_aic_that_fails_the_check_gives_way_and_none_passing_is_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    samples, _ = read_lifetime_groups(REPO / "tests" / "data" / "infinitehbd" / "repairs.csv",
                                      "category")  # fmt: skip
    gpu = samples["GPU"]
    plain = fit_lifetimes(gpu, "repair")
    lognormal, weibull = plain.fits["lognormal"], plain.fits["weibull"]
    assert plain.aic_best == "lognormal" and weibull.km_distance < lognormal.km_distance
    # a bound between the two distances: the lognormal fails, the Weibull is chosen
    between = (weibull.km_distance + lognormal.km_distance) / 2
    monkeypatch.setattr(fit_module, "gof_rule", lambda hours, failed: GofRule(between, 0.0, 1.0))
    report = fit_lifetimes(gpu, "repair")
    assert (report.best, report.chosen_by) == ("weibull", "aic among passing")
    assert report.warnings[0].startswith("lognormal has the smallest AIC but fails")
    monkeypatch.undo()
    # two populations in one file (10,000 complete lives: 1 h and 1,000 h): every family
    # is more than 0.2 off the curve; the smallest AIC is shown, with a warning
    rng = np.random.default_rng(1)
    lives = np.concatenate([rng.exponential(1.0, 5000), rng.normal(1000.0, 20.0, 5000)])
    mixed = fit_lifetimes(lifetime_sample(lives, np.ones(lives.size)))
    assert mixed.passing == () and mixed.chosen_by == "aic, none passing"
    assert mixed.best == mixed.aic_best
    assert mixed.warnings[0].startswith("no family passes the goodness-of-fit check")


def test_a_repair_line_can_be_written() -> None:
    report = fit_lifetimes(lifetime_sample([1.0, 2.0, 3.5, 8.0], [1, 1, 1, 1]), "repair")
    assert report.config.startswith("repair = { dist = ")
    with pytest.raises(ConfigError) as caught:
        fit_lifetimes(lifetime_sample([1.0, 2.0], [1, 1]), "downtime")
    assert caught.value.key == "--as"


def hours(value: float) -> datetime:
    return START + timedelta(hours=value)


def test_events_become_censored_gaps_with_simultaneous_records_merged() -> None:
    built = events_to_lifetimes(
        ["a", "a", "a", "b", "b", "c"],
        [hours(10), hours(10), hours(25), hours(0), hours(40), hours(120)],  # c: outside
        START,
        hours(100),
        units=4,
    )
    # a: 10, 15 failed, 75 censored; b: failed at the start (no gap), 40 failed, 60
    # censored; two units without a record: 100 censored each
    pairs = zip(built.sample.hours.tolist(), built.sample.failed.tolist(), strict=True)
    assert sorted(pairs) == sorted(
        [(10.0, True), (15.0, True), (75.0, False), (40.0, True), (60.0, False),
         (100.0, False), (100.0, False)]
    )  # fmt: skip
    assert (built.events, built.merged, built.outside, built.units) == (3, 1, 1, 4)


def test_exponential_mtbf_from_events_is_units_times_window_over_failures() -> None:
    rng = np.random.default_rng(7)
    units, times = [], []
    for unit in range(50):
        for offset in rng.uniform(0.0, 1000.0, rng.poisson(3.0)):
            units.append(f"u{unit}")
            times.append(hours(float(offset)))
    built = events_to_lifetimes(units, times, START, hours(1000), units=60)
    fit = fit_exponential(built.sample)
    distinct = len(set(zip(units, times, strict=True)))
    assert fit.params["mtbf_hours"] == pytest.approx(60 * 1000.0 / distinct)


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"units": 1}, "--units"),  # two units in the log
        ({"unit_list": ["a"]}, "--unit-list"),  # b is not in it
        ({}, "--units"),  # neither
        ({"units": 2, "end": START}, "--end"),
        ({"units": 2, "end": hours(0.5)}, "--start"),  # no record in the window
    ],
)
def test_bad_event_inputs_name_the_option(kwargs: dict, key: str) -> None:
    end = kwargs.pop("end", hours(10))
    with pytest.raises(ConfigError) as caught:
        events_to_lifetimes(["a", "b"], [hours(1), hours(2)], START, end, **kwargs)
    assert caught.value.key == key


def test_a_unit_list_names_each_unit_once(tmp_path) -> None:
    path = tmp_path / "units.txt"
    path.write_text("a\nb # spare\n\na\n")
    with pytest.raises(ConfigError, match="twice: a"):
        read_unit_list(path)


def test_a_group_with_too_few_failures_is_skipped_and_named(tmp_path) -> None:
    path = tmp_path / "groups.csv"
    path.write_text("hours,failed,kind\n10,1,a\n20,1,a\n30,0,a\n5,1,b\n7,0,b\n")
    samples, skipped = read_lifetime_groups(path, "kind")
    assert list(samples) == ["a"] and list(skipped) == ["b"]
    assert "fewer than two distinct failure times" in skipped["b"]
    path.write_text("hours,failed,kind\n5,1,b\n7,0,b\n")
    with pytest.raises(ConfigError) as caught:
        read_lifetime_groups(path, "kind")
    assert caught.value.key == "--group"
