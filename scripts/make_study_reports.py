"""Regenerate the study reports committed under docs/ (one place for all of them).

Each report is the output folder of one shipped study or plan, run with the trials and
seed it was published with, written to a temporary folder and then moved over the
committed one; only the files readers use are kept (the report, its figures as PNG, the
provenance record and, for a plan, ``plan.json`` and ``portfolios.csv``). Run from the
repository root::

    python scripts/make_study_reports.py            # every report
    python scripts/make_study_reports.py fleet-behaviours plan-seed-moe
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

REPORTS: dict[str, tuple[str, str, int]] = {
    # docs folder: (command, study file, trials per point); seed: the study's own
    "fleet-behaviours": ("sweep", "studies/fleet-behaviours.toml", 200),
    "network-vs-gpus": ("sweep", "studies/network-vs-gpus.toml", 200),
    "recovery-stacks": ("sweep", "studies/recovery-stacks.toml", 1000),
    "recovery-stacks-llama3": ("sweep", "studies/recovery-stacks-llama3.toml", 300),
    "spot": ("sweep", "studies/spot.toml", 1000),
    "health-checks": ("sweep", "studies/health-checks.toml", 300),
    "plan-seed-moe": ("plan", "studies/redundancy-plan-seed-moe.toml", 200),
}
"""Every report committed under docs/, with what makes it."""

KEPT_SUFFIXES = (".md", ".html", ".png")
"""Files of an output folder that are committed, besides :data:`KEPT_NAMES`."""

KEPT_NAMES = ("provenance.json", "plan.json", "portfolios.csv")


def regenerate(name: str) -> None:
    """Run one report's study into a temporary folder and replace ``docs/<name>`` by it."""
    command, study, trials = REPORTS[name]
    target = REPO / "docs" / name
    with tempfile.TemporaryDirectory(dir=REPO / "docs") as scratch:
        out = Path(scratch) / name
        subprocess.run([sys.executable, "-m", "relplan", command, study, "--trials",
                        str(trials), "--out", str(out)], cwd=REPO, check=True)  # fmt: skip
        kept = [path for path in out.iterdir()
                if path.suffix in KEPT_SUFFIXES or path.name in KEPT_NAMES]  # fmt: skip
        staged = Path(scratch) / "staged"
        staged.mkdir()
        for path in kept:
            shutil.copy2(path, staged / path.name)
        if target.exists():
            shutil.rmtree(target)
        staged.rename(target)
    print(f"docs/{name}: {', '.join(sorted(p.name for p in target.iterdir()))}")


def main(names: list[str]) -> None:
    unknown = [name for name in names if name not in REPORTS]
    if unknown:
        raise SystemExit(f"unknown report(s) {', '.join(unknown)}; known: {', '.join(REPORTS)}")
    for name in names or list(REPORTS):
        regenerate(name)


if __name__ == "__main__":
    main(sys.argv[1:])
