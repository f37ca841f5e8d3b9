"""Settings that ask a feature for something it cannot do are warned about: idle failures
of modes that strike only a running job, drains of what is not a server's own leg."""

from __future__ import annotations

from typer.testing import CliRunner

from relplan.cli.app import app
from relplan.config.checks import config_warnings
from relplan.config.loading import load_config
from tests.conftest import REPO

SMALL = REPO / "configs" / "small.toml"

RUNNING_ONLY = [
    'failures.straggler={unit="gpu", impact="slow", lifetime={dist="exponential", '
    'mtbf="100y"}}',
    'failures.sdc={unit="gpu", impact="corruption", lifetime={dist="exponential", '
    'mtbf="400y"}, detect="2h"}',
    'failures.software={unit="job", lifetime={dist="exponential", mtbf="30d"}, spares=false}',
]  # fmt: skip


def _warnings(overrides: list[str]) -> dict[str, list[str]]:
    config = load_config(SMALL, overrides)
    found: dict[str, list[str]] = {}
    for warning in config_warnings(config, job_mtti_hours=130.0):
        found.setdefault(warning.key, []).append(warning.message)
    return found


def test_idle_failures_name_the_modes_that_strike_only_a_running_job() -> None:
    messages = _warnings([*RUNNING_ONLY, "job.idle_failures=true"])["job.idle_failures"]
    assert messages == [
        "failures.straggler does not fail while the job is down: a fail-slow unit shows "
        "only in a running job",
        "failures.sdc does not fail while the job is down: a corruption shows only in a "
        "running job",
        'failures.software does not fail while the job is down: a mode counted per job '
        '(unit = "job") needs the job running',
    ]
    # the same modes without idle failures: nothing to say; small.toml's own hardware
    # fails idle: nothing either
    assert "job.idle_failures" not in _warnings(RUNNING_ONLY)
    assert "job.idle_failures" not in _warnings(["job.idle_failures=true"])


def test_a_drain_of_what_is_not_a_servers_own_leg_is_warned() -> None:
    throttle = ('failures.throttle={unit="job", impact="degraded", slowdown=1.1, '
                'lifetime={dist="exponential", mtbf="1d"}, drain="now"}')  # fmt: skip
    found = _warnings([throttle, 'failures.gpu.drain="now"', 'failures.optic.drain="now"'])
    assert set(found) >= {"failures.throttle.drain", "failures.gpu.drain"}
    assert "failures.optic.drain" not in found  # a server's optic: a leg of its own
    assert found["failures.throttle.drain"] == [
        "only a server's own nic, link, optic running degraded (a lost dual-ToR leg or "
        "LACP member, a NIC under PXN) is drained"]
    # job.drain with nothing that could leave a server degraded: small.toml's NIC and
    # optic modes counted as host failures
    hosts = ['failures.nic.unit="host"', 'failures.optic.unit="host"']
    assert "job.drain" in _warnings([*hosts, 'job.drain="now"'])
    assert "job.drain" not in _warnings(['job.drain="now"'])


def test_validate_is_no_longer_silent() -> None:
    """The command line prints each warning on stderr (the issue's probe: validate said
    nothing)."""
    result = CliRunner().invoke(app, ["validate", str(SMALL), "--set", RUNNING_ONLY[1],
                                      "--set", "job.idle_failures=true"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert ("warning: job.idle_failures: failures.sdc does not fail while the job is "
            "down") in result.output
