"""Config keys of scale-up domains: their checks name the key (exit 2 on the command line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from relplan.cli.app import app
from relplan.config.loading import parse_config
from tests.conftest import assert_refused


@pytest.mark.parametrize(
    ("overrides", "key", "words"),
    [
        (["cluster.servers_per_domain=0"], "cluster.servers_per_domain", "greater than 0"),
        (["cluster.servers_per_domain=1.5"], "cluster.servers_per_domain", "integer"),
        (["job.spare_domains=-1"], "job.spare_domains", "greater than or equal to 0"),
        # the job fills all 128 servers: no room for a domain
        (["job.spare_domains=1"], "job.spare_domains", "do not fit"),
        # 128 servers are 8 domains of 16: the job's 60 servers fill 4, and 5 spare
        # domains make 9; with 2 spare domains (6 in all, 96 servers), 37 loose spares
        # take the 4 left in the job's last domain and 33 more: 129
        (["job.gpus=480", "cluster.servers_per_domain=16", "job.spare_domains=5"],
         "job.spare_domains", "do not fit"),
        (["job.gpus=480", "cluster.servers_per_domain=16", "job.spare_domains=2",
          "job.spares=37"], "job.spare_domains", "do not fit"),
    ],
)  # fmt: skip
def test_bad_domain_keys_name_the_key(
    minimal_raw: dict[str, Any], overrides: list[str], key: str, words: str
) -> None:
    assert_refused(minimal_raw, overrides, key=key, words=words)


def test_spare_domains_that_fit_are_taken(minimal_raw: dict[str, Any]) -> None:
    # 60 servers fill 4 domains of 16 (64 servers); 2 spare domains take 32 more, and
    # 36 loose spares the job's last domain's 4 and 32 others: 128 in all.
    config = parse_config(minimal_raw, ["job.gpus=480", "cluster.servers_per_domain=16",
                                        "job.spare_domains=2", "job.spares=36"])
    assert config.job.spare_domains == 2 and config.cluster.servers_per_domain == 16


def test_spare_domains_that_do_not_fit_exit_2(minimal_config_file: Path) -> None:
    result = CliRunner().invoke(app, ["simulate", str(minimal_config_file), "--set",
                                      "job.spare_domains=1", "--trials", "10"])
    assert result.exit_code == 2
    assert "job.spare_domains" in result.output and "Traceback" not in result.output


def test_inventory_shows_what_a_swap_takes(minimal_config_file: Path) -> None:
    sets = ["cluster.gpus_per_server=4", "cluster.servers_per_domain=16",
            "cluster.servers_per_rack=16", "job.gpus=256", "job.spare_domains=1",
            'failures.nvl={ unit = "domain", lifetime = { dist = "exponential", mtbf = "50y" } }',
            'failures.power={ unit = "rack", lifetime = { dist = "exponential", mtbf = "50y" } }']
    args = [arg for key in sets for arg in ("--set", key)]
    result = CliRunner().invoke(app, ["inventory", str(minimal_config_file), *args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["components"]["domain"] == {"cluster_units": 8, "job_units": 4}
    modes = data["failure_modes"]
    assert (modes["nvl"]["spare_domain"], modes["nvl"]["spares_needed"]) == (True, 16)
    assert (modes["power"]["spare_domain"], modes["power"]["spares_needed"]) == (False, 16)
    assert (modes["gpu"]["spare_domain"], modes["gpu"]["spares_needed"]) == (False, 1)
    assert data["spare_servers"] == 16
    table = CliRunner().invoke(app, ["inventory", str(minimal_config_file), *args])
    assert "a domain" in table.stdout and "16 servers" in table.stdout
