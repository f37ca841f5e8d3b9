"""Calibration from logs on the command line: ``fit`` refusing to write a line whose
failures over the data's own exposure are more than 2x off (unless ``--force``), writing a
wear-out fleet's Weibull, ``--group``, ``--events``, ``--as repair``; ``analyze --ids`` and
``--map``; ``relplan replay`` and its JSON contract; every bad input one line naming the
key, exit code 2."""

from __future__ import annotations

import io
import json
import tomllib

import pytest
from rich.console import Console
from typer.testing import CliRunner

from relplan.cli.app import app
from relplan.cli.calibration_commands import render_fit, render_replay
from relplan.vocab import BUCKETS
from tests.calibrate.test_fit_checks import YEAR_HOURS, bursty_node_log
from tests.conftest import CONFIGS, REPO

runner = CliRunner()
DATA = REPO / "tests" / "data"
HBD = DATA / "infinitehbd"
HBD_WINDOW = ["--start", "2024-03-30", "--end", "2025-03-13"]
SMALL = CONFIGS / "small.toml"


def run(*args: object):
    return runner.invoke(app, [str(arg) for arg in args])


def test_write_config_refuses_a_line_whose_failure_count_is_off_unless_forced(tmp_path) -> None:
    # a bursty per-node log (the shape of LANL system 20's): the AIC's family, simulated
    # in equilibrium over the log's year, gives a fraction of its failures
    units, times = bursty_node_log(5, nodes=256)
    log = tmp_path / "nodes.csv"
    log.write_text("unit,time\n" + "".join(f"{unit},{time.isoformat()}\n"
                                           for unit, time in zip(units, times, strict=True)))
    window = ["--events", "--units", "256", "--start", "2024-01-01T00:00Z",
              "--end", "2024-12-31T00:00Z"]  # fmt: skip
    data = json.loads(run("fit", log, *window, "--json").stdout)
    count = data["count_check"]
    assert count["write_refused"] and count["verdict"] == "refuse"
    mean = data["fits"][data["best"]]["mean_hours"]
    assert count["expected_failures"] == pytest.approx(256 * YEAR_HOURS / mean)
    assert count["ratio"] == pytest.approx(count["expected_failures"] / data["failures"])
    out = tmp_path / "node.toml"
    refused = run("fit", log, *window, "--write-config", out)
    assert refused.exit_code == 2
    assert "error: --write-config: refused" in refused.output and "--force" in refused.output
    assert f"({count['ratio']:.2f}x)" in refused.output  # the count ratio is printed
    assert not out.exists()
    forced = run("fit", log, *window, "--write-config", out, "--force")
    assert forced.exit_code == 0, forced.output
    assert tomllib.loads(out.read_text())["lifetime"]["dist"] == data["best"]
    assert "more than 2x off" in forced.output  # still warned


def test_a_wear_out_fleet_writes_its_weibull(tmp_path) -> None:
    # the shape of the Titan GPU lifetimes: the Weibull (shape 2.7) was refused by the old
    # rule (its mean 0.33x the exposure estimate, beyond the longest observation)
    out = tmp_path / "gpu.toml"
    result = run("fit", DATA / "wearout_lifetimes.csv", "--write-config", out)
    assert result.exit_code == 0, result.output
    assert tomllib.loads(out.read_text())["lifetime"]["dist"] == "weibull"
    assert "weibull *" in result.output and "exponential !" in result.output


def test_force_needs_write_config() -> None:
    result = run("fit", DATA / "lifetimes.csv", "--force")
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1].startswith("error: --force: ")


def test_fit_json_reports_the_exposure_estimate_and_the_checks() -> None:
    data = json.loads(run("fit", DATA / "lifetimes.csv", "--json").stdout)
    rows = (DATA / "lifetimes.csv").read_text().splitlines()[1:]
    hours = [float(row.split(",")[1]) for row in rows]
    failed = [float(row.split(",")[2]) for row in rows]
    assert data["exposure_mean_hours"] == pytest.approx(sum(hours) / sum(failed))
    assert data["longest_hours"] == pytest.approx(max(hours))
    assert data["fits"]["lognormal"]["trusted"] is False  # a note now: not a veto
    assert data["fits"]["lognormal"]["mean_to_exposure"] > 2
    gof = data["gof"]
    assert gof["bound"] == max(gof["noise_bound"], gof["tolerance_bound"])
    assert gof["tolerance_bound"] == pytest.approx(0.2 * gof["km_end_cdf"])
    for family, fit in data["fits"].items():
        assert {"mean_to_exposure", "beyond_longest", "trusted", "reasons", "notes"} <= set(fit)
        assert fit["gof"]["passes"] == (fit["gof"]["km_distance"] <= gof["bound"])
        assert (family in gof["passing"]) == fit["gof"]["passes"]
        check = fit["count_check"]
        assert check["observed_failures"] == sum(failed)
        assert check["ratio"] == pytest.approx(check["expected_failures"] / sum(failed))
    assert data["count_check"]["family"] == data["best"]
    assert data["best"] in gof["passing"]


def test_groups_are_fitted_apart_and_written_as_tables(tmp_path) -> None:
    out = tmp_path / "batches.toml"
    result = run("fit", DATA / "lifetimes_batches.csv", "--group", "batch", "--json",
                 "--write-config", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data["groups"]) == {"A", "B"}
    written = tomllib.loads(out.read_text())
    assert set(written["failures"]) == {"A", "B"}
    for name in ("A", "B"):
        assert written["failures"][name]["lifetime"]["dist"] == data["groups"][name]["best"]


def test_events_become_lifetimes_on_the_command_line(tmp_path) -> None:
    log = tmp_path / "events.csv"
    log.write_text("unit,time\na,2024-01-01T10:00Z\na,2024-01-01T10:00Z\na,2024-01-02T01:00Z\n"
                   "b,2024-01-03T00:00Z\n")  # fmt: skip
    result = run("fit", log, "--events", "--start", "2024-01-01", "--end", "2024-01-05",
                 "--units", "4", "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["events"] == {"units": 4, "events": 3, "merged": 1, "outside": 0,
                              "window_hours": 96.0}  # fmt: skip
    assert data["exposure_mean_hours"] == pytest.approx(4 * 96.0 / 3)


def test_repair_times_write_a_repair_line(tmp_path) -> None:
    out = tmp_path / "repair.toml"
    result = run("fit", HBD / "repairs.csv", "--as", "repair", "--write-config", out)
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("repair = { dist = ")


def test_analyze_with_server_ids_flags_fewer_servers_than_unit_ids_on_the_trace() -> None:
    common = [HBD / "faults.csv", "--config", HBD / "config.toml", "--map",
              HBD / "category_map.csv", *HBD_WINDOW, "--json"]  # fmt: skip
    by_unit = json.loads(run("analyze", *common).stdout)
    by_server = json.loads(run("analyze", *common, "--ids", "server").stdout)
    assert by_server["ids"] == "server"
    assert 0 < len(by_server["repeat_offenders"]) < len(by_unit["repeat_offenders"])
    assert by_server["categories"]["link"]["units"] < by_unit["categories"]["link"]["units"]
    gpu_per_unit = by_unit["categories"]["gpu"]["count"] / by_unit["categories"]["gpu"]["units"]
    for row in by_server["repeat_offenders"]:
        if row["category"] == "gpu":
            assert row["expected"] == pytest.approx(8 * gpu_per_unit)


def test_repair_times_given_as_downtimes_are_refused(tmp_path) -> None:
    text = (HBD / "faults.csv").read_text().replace("repair_hours", "downtime_hours", 1)
    log = tmp_path / "as_downtime.csv"
    log.write_text(text)
    result = run("analyze", log, "--config", HBD / "config.toml", "--map",
                 HBD / "category_map.csv", *HBD_WINDOW)  # fmt: skip
    assert result.exit_code == 2
    assert "downtime_hours" in result.output and "more than the window" in result.output


def test_duplicated_rows_are_counted_in_a_warning(tmp_path) -> None:
    rows = (DATA / "incidents.csv").read_text().splitlines()
    log = tmp_path / "twice.csv"
    log.write_text("\n".join([*rows, *rows[1:4]]) + "\n")
    result = run("analyze", log, "--config", SMALL)
    assert result.exit_code == 0, result.output
    assert "3 duplicated rows dropped" in result.output


def test_replay_json_holds_the_contract() -> None:
    result = run("replay", HBD / "faults.csv", "--config", HBD / "config.toml", "--map",
                 HBD / "category_map.csv", *HBD_WINDOW, "--interval", "30min",
                 "--interval", "2h", "--samples", "50", "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [interval["interval_hours"] for interval in data["intervals"]] == [0.5, 2.0]
    bootstrap = data["bootstrap"]
    assert {"method", "rule", "block_hours", "bin_hours", "bins", "block_bins",
            "samples"} <= set(bootstrap)  # fmt: skip
    assert bootstrap["bins"] == 298  # a bin per failure
    assert bootstrap["bin_hours"] == pytest.approx(data["window"]["hours"] / 298)
    assert bootstrap["block_hours"] == pytest.approx(bootstrap["block_bins"]
                                                     * bootstrap["bin_hours"])  # fmt: skip
    for interval in data["intervals"]:
        assert set(interval["goodput"]) >= {"mean", "ci95", "phase_ci95", "at_window_start"}
        phase_low, phase_high = interval["goodput"]["phase_ci95"]
        assert phase_low <= interval["goodput"]["mean"] <= phase_high
        assert set(interval["lost_hours"]) >= {"mean", "ci95"}
        assert set(interval["bucket_hours"]) == set(BUCKETS)
        assert set(interval["interruptions"]) >= {"mean", "ci95"}
        low, high = interval["goodput"]["ci95"]
        assert 0.0 <= low <= interval["goodput"]["mean"] <= high <= 1.0
        window = sum(interval["bucket_hours"].values())
        assert window == pytest.approx(data["window"]["hours"])
        assert interval["lost_hours"]["mean"] == pytest.approx(
            window - interval["bucket_hours"]["useful"]
        )
    assert data["log"]["events"] == 298


def test_replay_is_the_same_for_the_same_seed() -> None:
    args = ["replay", DATA / "incidents.csv", "--config", SMALL, "--start", "2024-01-01",
            "--end", "2024-12-31", "--samples", "30", "--json"]  # fmt: skip
    assert run(*args).stdout == run(*args).stdout


def _rendered_width(draw) -> int:
    console = Console(width=200, file=io.StringIO(), record=True)
    draw(console)
    return max(len(line) for line in console.export_text().splitlines())


def test_replay_and_fit_tables_fit_80_columns(tmp_path) -> None:
    replayed = json.loads(run("replay", HBD / "faults.csv", "--config", HBD / "config.toml",
                              "--map", HBD / "category_map.csv", *HBD_WINDOW, "--interval",
                              "30min", "--interval", "3h", "--samples", "20", "--json").stdout)
    assert _rendered_width(lambda console: render_replay(replayed, "faults.csv against x",
                                                         console)) <= 80  # fmt: skip
    grouped = json.loads(run("fit", DATA / "lifetimes_batches.csv", "--group", "batch",
                             "--json").stdout)  # fmt: skip
    assert _rendered_width(lambda console: render_fit(grouped, console)) <= 80


@pytest.mark.parametrize(
    ("args", "key"),
    [
        (["fit", DATA / "lifetimes.csv", "--as", "downtime"], "--as"),
        (["fit", DATA / "lifetimes.csv", "--start", "2024-01-01"], "--start"),
        (["fit", DATA / "lifetimes.csv", "--group", "batch"], "--group"),
        (["fit", DATA / "incidents.csv", "--events", "--end", "2024-02-01", "--units", "9"],
         "--start"),
        (["fit", DATA / "incidents.csv", "--events", "--start", "2024-02-01", "--end",
          "2024-01-01", "--units", "9999"], "--end"),
        (["analyze", DATA / "incidents.csv", "--config", SMALL, "--ids", "rack"], "--ids"),
        (["analyze", DATA / "incidents.csv", "--config", SMALL, "--start", "2030-01-01",
          "--end", "2030-02-01"], "LOG"),
        (["analyze", HBD / "faults.csv", "--config", HBD / "config.toml", "--map",
          "MAP_WITH_BAD_MODE"], "--map"),
        (["replay", DATA / "incidents.csv", "--config", SMALL, "--start", "2024-01-01",
          "--end", "2024-12-31", "--interval", "5"], "--interval"),
        (["replay", DATA / "incidents.csv", "--config", SMALL, "--start", "2024-12-31",
          "--end", "2024-01-01"], "--end"),
        (["replay", DATA / "incidents.csv", "--config", SMALL, "--start", "2030-01-01",
          "--end", "2030-02-01"], "LOG"),
        (["replay", DATA / "incidents.csv", "--config", SMALL, "--start", "soon",
          "--end", "2030-02-01"], "--start"),
        (["replay", "BAD_TIME_LOG", "--config", SMALL, "--start", "2024-01-01",
          "--end", "2024-12-31"], "time"),
        (["replay", "NEGATIVE_LOG", "--config", SMALL, "--start", "2024-01-01",
          "--end", "2024-12-31"], "downtime_hours"),
    ],
)
def test_bad_input_is_one_line_naming_the_key(tmp_path, args: list, key: str) -> None:
    files = {
        "MAP_WITH_BAD_MODE": ("map.csv", "category,mode\nGPU,gpus\n"),
        "BAD_TIME_LOG": ("log.csv", "time,category\n2024-13-45,gpu\n"),
        "NEGATIVE_LOG": ("log.csv", "time,category,downtime_hours\n2024-02-01,gpu,-1\n"),
    }
    for index, arg in enumerate(args):
        if arg in files:
            name, text = files[arg]
            (tmp_path / name).write_text(text)
            args[index] = tmp_path / name
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    first = result.output.strip().splitlines()[-1]
    assert f"error: {key}:" in result.output, first
