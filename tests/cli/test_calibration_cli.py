"""``relplan fit`` and ``relplan analyze``: JSON contracts, one-line errors with exit code 2,
configs that ``relplan validate`` accepts, tables that fit 80 columns, a lean import."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from relplan.calibrate.incidents import incident_report, read_incident_log
from relplan.calibrate.lifetimes import fit_lifetimes, read_lifetime_csv
from relplan.cli.app import app as relplan_app
from relplan.cli.app import reports_errors
from relplan.cli.calibration_commands import (
    analyze_command,
    fit_command,
    render_fit,
    render_incidents,
)
from relplan.config.loading import load_config
from tests.conftest import CONFIGS, MINIMAL_TOML, REPO

LIFETIMES = REPO / "tests" / "data" / "lifetimes.csv"
INCIDENTS = REPO / "tests" / "data" / "incidents.csv"
SMALL = CONFIGS / "small.toml"
runner = CliRunner()


def calibration_app() -> typer.Typer:
    """relplan's app once it registers the two commands; until then one registering them
    the same way (wrapped in the app's ``reports_errors``)."""
    names = {command.name for command in relplan_app.registered_commands}
    if {"fit", "analyze"} <= names:
        return relplan_app
    app = typer.Typer(rich_markup_mode=None, pretty_exceptions_enable=False)
    app.command("fit")(reports_errors(fit_command))
    app.command("analyze")(reports_errors(analyze_command))
    return app


def run(*args: str):
    return runner.invoke(calibration_app(), [str(arg) for arg in args])


def test_fit_json_holds_the_contract() -> None:
    result = run("fit", LIFETIMES, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["n"], data["failures"], data["censored"]) == (400, 204, 196)
    assert set(data["fits"]) == {"exponential", "weibull", "lognormal"}
    for fit in data["fits"].values():
        assert {"params", "ci95", "log_likelihood", "aic", "gof", "mean_hours", "mean_ci95"} <= set(
            fit
        )
    assert data["best"] == "weibull"
    assert data["config"].startswith('lifetime = { dist = "weibull", shape = ')


def test_fit_writes_a_fragment_that_makes_a_valid_config(tmp_path: Path) -> None:
    fragment = tmp_path / "out" / "gpu-lifetime.toml"
    result = run("fit", LIFETIMES, "--write-config", fragment)
    assert result.exit_code == 0, result.output
    assert "weibull *" in result.stdout
    line = fragment.read_text().strip()
    assert line == json.loads(run("fit", LIFETIMES, "--json").stdout)["config"].strip()
    config = tmp_path / "fitted.toml"
    config.write_text(
        MINIMAL_TOML.replace('lifetime = { dist = "exponential", mtbf = "5y" }', line)
    )
    assert line in config.read_text()
    validated = runner.invoke(relplan_app, ["validate", str(config)])
    assert validated.exit_code == 0, validated.output
    assert not list(fragment.parent.glob(".*.tmp"))  # written atomically, nothing left over


def test_analyze_json_holds_the_contract() -> None:
    result = run(
        "analyze",
        INCIDENTS,
        "--config",
        SMALL,
        "--start",
        "2024-01-01",
        "--end",
        "2025-01-01",
        "--json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"start", "end", "hours"} <= set(data["window"])
    assert data["window"]["hours"] == 366 * 24.0
    for entry in data["categories"].values():
        assert {
            "count",
            "units",
            "rate_per_unit_hour",
            "rate_per_unit_hour_ci95",
            "mtbf_hours",
            "mtbf_hours_ci95",
            "config_mtbf_hours",
            "ratio_to_config",
            "config_rate_inside_ci",
        } <= set(entry)
    assert {"mtti_hours", "interruptions_per_day", "goodput"} <= set(data["job"])
    (lemon,) = data["repeat_offenders"]
    assert {"unit", "category", "failures", "expected", "p_value"} <= set(lemon)


def test_analyze_writes_a_config_that_validate_accepts(tmp_path: Path) -> None:
    out = tmp_path / "small-recalibrated.toml"
    result = run("analyze", INCIDENTS, "--config", SMALL, "--write-config", out)
    assert result.exit_code == 0, result.output
    validated = runner.invoke(relplan_app, ["validate", str(out)])
    assert validated.exit_code == 0, validated.output
    assert "# was: lifetime" in out.read_text()


@pytest.mark.parametrize(
    ("args", "key"),
    [
        (("fit", "{tmp}/missing.csv"), "CSV"),
        (("fit", "{tmp}/no-failed.csv"), "failed"),
        (("fit", "{tmp}/words.csv"), "hours"),
        (("analyze", "{tmp}/unknown.csv", "--config", str(SMALL)), "category"),
        (("analyze", str(INCIDENTS), "--config", "{tmp}/missing.toml"), "--config"),
        (("analyze", str(INCIDENTS), "--config", str(SMALL), "--start", "soon"), "--start"),
        (("fit", str(LIFETIMES), "--write-config", "{tmp}"), "--write-config"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_the_key(
    tmp_path: Path, args: tuple[str, ...], key: str
) -> None:
    (tmp_path / "no-failed.csv").write_text("hours\n1\n")
    (tmp_path / "words.csv").write_text("hours,failed\nten,1\n")
    (tmp_path / "unknown.csv").write_text("time,category\n2024-01-01,gpu\n2024-01-02,psu\n")
    result = run(*(arg.replace("{tmp}", str(tmp_path)) for arg in args))
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"error: {key}: ")
    assert "Traceback" not in result.output


def test_unknown_categories_are_named_in_the_error(tmp_path: Path) -> None:
    log = tmp_path / "log.csv"
    log.write_text("time,category\n2024-01-01,gpu\n2024-01-02,psu\n2024-01-03,cosmic_ray\n")
    result = run("analyze", log, "--config", SMALL)
    assert result.exit_code == 2
    assert "cosmic_ray, psu" in result.output


def _rendered_width(render) -> int:
    console = Console(width=200, file=io.StringIO(), record=True)
    render(console)
    return max(len(line) for line in console.export_text().splitlines())


def test_terminal_tables_fit_80_columns() -> None:
    fit = fit_lifetimes(read_lifetime_csv(LIFETIMES)).to_dict()
    assert _rendered_width(lambda console: render_fit(fit, console)) <= 80
    report = incident_report(read_incident_log(INCIDENTS), load_config(SMALL))
    title = "incidents.csv against small"
    assert _rendered_width(lambda console: render_incidents(report, title, console)) <= 80


def test_terminal_output_names_the_lemon_and_the_best_family() -> None:
    analyzed = run("analyze", INCIDENTS, "--config", SMALL)
    assert analyzed.exit_code == 0, analyzed.output
    assert "gpu-0137" in analyzed.stdout and "MTTI" in analyzed.stdout
    fitted = run("fit", LIFETIMES)
    assert "best by AIC: weibull" in fitted.stdout


def test_importing_the_commands_loads_no_heavy_library() -> None:
    heavy = ("numba", "matplotlib", "pandas", "scipy", "dask", "pyarrow", "numpy", "pydantic")
    probe = (
        f"import sys, json; import relplan.cli.calibration_commands; "
        f"print(json.dumps([m for m in {heavy!r} if m in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
